/**
 * A classic-BPF seccomp program for bwrap's `--seccomp FD`: creating an AF_UNIX socket fails with
 * EPERM, so a sandboxed process cannot talk to a host daemon through a socket file it can see
 * (docker.sock, an ssh or gpg agent, a desktop bus) — the file system view alone cannot hide every
 * one. io_uring is refused too (IORING_OP_SOCKET would get around the socket() check), and so are
 * the kernel keyring calls (keyctl, add_key, request_key): a key in the user's keyring that the user
 * may read is readable by serial number from any user namespace mapped to the same uid — the sandbox's
 * namespaces do not hide it. Pipes and socketpair() keep working. Everything else is allowed: this
 * filter narrows, it does not replace the namespaces.
 */

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050001;
const AF_UNIX = 1;
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0 = 16;

interface ArchRule {
  audit: number;
  socket: number;
  /** Syscalls refused outright (io_uring, the i386 socketcall multiplexer). */
  refuse: number[];
  /** x32: every syscall at or above this number is refused (it shares the x86-64 audit arch). */
  refuseFrom?: number;
}

const IO_URING = [425, 426, 427];
/** add_key, request_key, keyctl by arch (x86-64, i386, arm64/asm-generic, arm EABI). */
const KEYRING = {
  x64: [248, 249, 250],
  i386: [286, 287, 288],
  arm64: [217, 218, 219],
  arm: [309, 310, 311],
};

/** The rules for the native arch and its compat personalities, by Node's `process.arch`. */
export function archRules(arch: string): ArchRule[] | undefined {
  if (arch === "x64")
    return [
      {
        audit: 0xc000003e,
        socket: 41,
        refuse: [...IO_URING, ...KEYRING.x64],
        refuseFrom: 0x40000000,
      },
      { audit: 0x40000003, socket: 359, refuse: [102, ...IO_URING, ...KEYRING.i386] },
    ];
  if (arch === "arm64")
    return [
      { audit: 0xc00000b7, socket: 198, refuse: [...IO_URING, ...KEYRING.arm64] },
      { audit: 0x40000028, socket: 281, refuse: [...IO_URING, ...KEYRING.arm] },
    ];
  return undefined;
}

type Insn = { code: number; jt: number | string; jf: number | string; k: number } | string;

/** The program as bytes (struct sock_filter, little-endian), or undefined on an unknown arch. */
export function sandboxFilter(arch: string): Uint8Array | undefined {
  const rules = archRules(arch);
  if (!rules) return undefined;
  const prog: Insn[] = [{ code: LD_W_ABS, jt: 0, jf: 0, k: OFF_ARCH }];
  for (const [i, r] of rules.entries())
    prog.push({ code: JEQ_K, jt: `arch${i}`, jf: 0, k: r.audit });
  prog.push({ code: RET_K, jt: 0, jf: 0, k: RET_ALLOW });
  rules.forEach((r, i) => {
    prog.push(`arch${i}`, { code: LD_W_ABS, jt: 0, jf: 0, k: OFF_NR });
    if (r.refuseFrom !== undefined) prog.push({ code: JGE_K, jt: "deny", jf: 0, k: r.refuseFrom });
    for (const nr of r.refuse) prog.push({ code: JEQ_K, jt: "deny", jf: 0, k: nr });
    prog.push({ code: JEQ_K, jt: 0, jf: "allow", k: r.socket });
    prog.push({ code: LD_W_ABS, jt: 0, jf: 0, k: OFF_ARG0 });
    prog.push({ code: JEQ_K, jt: "deny", jf: "allow", k: AF_UNIX });
  });
  prog.push("allow", { code: RET_K, jt: 0, jf: 0, k: RET_ALLOW });
  prog.push("deny", { code: RET_K, jt: 0, jf: 0, k: RET_EPERM });
  return assemble(prog);
}

function assemble(prog: Insn[]): Uint8Array {
  const labels = new Map<string, number>();
  const insns: Array<Exclude<Insn, string>> = [];
  for (const item of prog) {
    if (typeof item === "string") labels.set(item, insns.length);
    else insns.push(item);
  }
  const buf = new DataView(new ArrayBuffer(insns.length * 8));
  insns.forEach((insn, pc) => {
    const jump = (target: number | string) => {
      if (typeof target === "number") return target;
      const at = labels.get(target);
      if (at === undefined) throw new Error(`seccomp: no label ${target}`);
      const off = at - pc - 1;
      if (off < 0 || off > 255) throw new Error(`seccomp: jump to ${target} out of range`);
      return off;
    };
    buf.setUint16(pc * 8, insn.code, true);
    buf.setUint8(pc * 8 + 2, jump(insn.jt));
    buf.setUint8(pc * 8 + 3, jump(insn.jf));
    buf.setUint32(pc * 8 + 4, insn.k >>> 0, true);
  });
  return new Uint8Array(buf.buffer);
}
