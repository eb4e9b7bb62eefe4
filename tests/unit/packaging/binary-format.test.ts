import { expect, test } from "bun:test";
import { binaryFormat, expectedFormat, machoSigned } from "../../../scripts/binary-format.ts";
import { TARGETS } from "../../../scripts/compile.ts";

/** The first bytes of a real executable of each kind, built by hand from the formats' specs. */
function elf(machine: number): Uint8Array {
  const b = new Uint8Array(64);
  b.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  new DataView(b.buffer).setUint16(18, machine, true);
  return b;
}
function macho(cpu: number): Uint8Array {
  const b = new Uint8Array(32);
  b.set([0xcf, 0xfa, 0xed, 0xfe]);
  new DataView(b.buffer).setUint32(4, cpu, true);
  return b;
}
function pe(machine: number, at = 0x80): Uint8Array {
  const b = new Uint8Array(at + 24);
  b.set([0x4d, 0x5a]);
  const v = new DataView(b.buffer);
  v.setUint32(0x3c, at, true);
  b.set([0x50, 0x45, 0, 0], at);
  v.setUint16(at + 4, machine, true);
  return b;
}

test("each release target's header is recognised as the format and CPU it must have", () => {
  const headers: Record<string, Uint8Array> = {
    "linux-x64": elf(0x3e),
    "linux-arm64": elf(0xb7),
    "darwin-x64": macho(0x01000007),
    "darwin-arm64": macho(0x0100000c),
    "windows-x64": pe(0x8664),
  };
  expect(TARGETS.map((t) => t.name).sort()).toEqual(Object.keys(headers).sort());
  for (const target of TARGETS) {
    expect(binaryFormat(headers[target.name] as Uint8Array)).toEqual(expectedFormat(target));
  }
});

test("a binary for the wrong CPU or OS does not pass for the target", () => {
  const arm = TARGETS.find((t) => t.name === "linux-arm64")!;
  expect(binaryFormat(elf(0x3e))).not.toEqual(expectedFormat(arm));
  expect(binaryFormat(macho(0x01000007))).not.toEqual(expectedFormat(arm));
  expect(binaryFormat(pe(0xaa64))).toEqual({ format: "pe", arch: "arm64" });
  expect(binaryFormat(elf(0x28))).toEqual({ format: "elf", arch: "other" }); // 32-bit ARM machine
});

test("scripts, truncated headers and 32-bit or big-endian files are not executables for a target", () => {
  expect(binaryFormat(new TextEncoder().encode("#!/bin/sh\necho hi\n"))).toBeUndefined();
  expect(binaryFormat(new Uint8Array([0x7f, 0x45, 0x4c]))).toBeUndefined();
  const elf32 = elf(0x3e);
  elf32[4] = 1;
  expect(binaryFormat(elf32)).toBeUndefined();
  expect(binaryFormat(new Uint8Array([0xfe, 0xed, 0xfa, 0xcf, 0, 0, 0, 7]))).toBeUndefined();
  const mzOnly = pe(0x8664);
  mzOnly.set([0, 0, 0, 0], 0x80); // an MZ stub without the PE signature (a DOS program)
  expect(binaryFormat(mzOnly)).toBeUndefined();
  expect(binaryFormat(pe(0x8664, 0x1000).subarray(0, 0x100))).toBeUndefined(); // e_lfanew past the read
});

test("machoSigned finds LC_CODE_SIGNATURE among the load commands (ad hoc signing)", () => {
  const withCommands = (...cmds: number[]) => {
    const b = macho(0x0100000c);
    const out = new Uint8Array(32 + cmds.length * 16);
    out.set(b);
    const v = new DataView(out.buffer);
    v.setUint32(16, cmds.length, true);
    cmds.forEach((cmd, i) => {
      v.setUint32(32 + i * 16, cmd, true);
      v.setUint32(36 + i * 16, 16, true);
    });
    return out;
  };
  expect(machoSigned(withCommands(0x19, 0x2, 0x1d))).toBe(true);
  expect(machoSigned(withCommands(0x19, 0x2))).toBe(false);
  expect(machoSigned(withCommands(0x19, 0x2, 0x1d).subarray(0, 60))).toBeUndefined();
});
