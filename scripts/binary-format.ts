// Reads an executable's header: which format (ELF, Mach-O, PE) and which CPU it is for. The release
// checks every binary it cannot run here against the target it was built for.

export type BinaryFormat = { format: "elf" | "macho" | "pe"; arch: "x64" | "arm64" | "other" };

const LC_CODE_SIGNATURE = 0x1d;

/**
 * Whether a Mach-O header's load commands include a code signature (macOS on Apple silicon kills an
 * unsigned binary; Bun signs ad hoc). undefined: the load commands do not fit in `head`.
 */
export function machoSigned(head: Uint8Array): boolean | undefined {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (head.length < 32) return undefined;
  const count = view.getUint32(16, true);
  let at = 32; // mach_header_64
  for (let i = 0; i < count; i++) {
    if (at + 8 > head.length) return undefined;
    if (view.getUint32(at, true) === LC_CODE_SIGNATURE) return true;
    const size = view.getUint32(at + 4, true);
    if (size < 8) return undefined;
    at += size;
  }
  return false;
}

const ELF_MACHINE: Record<number, "x64" | "arm64"> = { 62: "x64", 183: "arm64" };
const MACHO_CPU: Record<number, "x64" | "arm64"> = { 16777223: "x64", 16777228: "arm64" };
const PE_MACHINE: Record<number, "x64" | "arm64"> = { 34404: "x64", 43620: "arm64" };

/** The format of the executable whose first bytes are `head` (≥ 4 KiB read is plenty), or undefined. */
export function binaryFormat(head: Uint8Array): BinaryFormat | undefined {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const u32be = (at: number) => (at + 4 <= head.length ? view.getUint32(at, false) : -1);
  if (u32be(0) === 0x7f454c46) {
    // ELF: EI_CLASS 2 = 64-bit, EI_DATA 1 = little endian, e_machine at 18.
    if (head[4] !== 2 || head[5] !== 1 || head.length < 20) return undefined;
    return { format: "elf", arch: ELF_MACHINE[view.getUint16(18, true)] ?? "other" };
  }
  if (u32be(0) === 0xcffaedfe) {
    // Mach-O 64-bit little endian (MH_MAGIC_64 stored LE), cputype at 4.
    if (head.length < 8) return undefined;
    return { format: "macho", arch: MACHO_CPU[view.getUint32(4, true)] ?? "other" };
  }
  if (head[0] === 0x4d && head[1] === 0x5a && head.length >= 0x40) {
    // MZ stub; e_lfanew at 0x3c points at "PE\0\0", then the COFF Machine field.
    const pe = view.getUint32(0x3c, true);
    if (pe + 6 > head.length || u32be(pe) !== 0x50450000) return undefined;
    return { format: "pe", arch: PE_MACHINE[view.getUint16(pe + 4, true)] ?? "other" };
  }
  return undefined;
}

/** The format a target's binary must have: linux → ELF, darwin → Mach-O, win32 → PE. */
export function expectedFormat(target: { os: string; cpu: string }): BinaryFormat {
  const format = target.os === "darwin" ? "macho" : target.os === "win32" ? "pe" : "elf";
  return { format, arch: target.cpu === "arm64" ? "arm64" : "x64" };
}

/** Throws unless the file at `path` is an executable for `target`. */
export async function checkFormat(
  path: string,
  target: { name: string; os: string; cpu: string },
): Promise<BinaryFormat> {
  const head = new Uint8Array(await Bun.file(path).slice(0, 65536).arrayBuffer());
  const found = binaryFormat(head);
  const want = expectedFormat(target);
  if (!found || found.format !== want.format || found.arch !== want.arch) {
    const saw = found ? `${found.format} ${found.arch}` : "not an executable";
    throw new Error(
      `${path}: built for ${target.name}, want ${want.format} ${want.arch}, is ${saw}`,
    );
  }
  return found;
}
