import { expect, test } from "bun:test";
import type { Stdin } from "../../../lib/core/ctx.ts";
import { composePrompt, cutUtf8, readStdin } from "../../../lib/core/input.ts";

const enc = (s: string) => new TextEncoder().encode(s);
function pipe(...parts: Uint8Array[]): Stdin {
  return {
    kind: "pipe",
    async *chunks() {
      for (const p of parts) yield p;
    },
  };
}
/** A pipe that is open and never writes until released. */
function silentPipe(): Stdin & { release(): void } {
  let release = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  return {
    kind: "pipe",
    release: () => release(),
    async *chunks() {
      await gate;
      yield* [];
    },
  };
}
const base = { firstByteTimeoutMs: 50, maxBytes: 1024 };

test("a tty or /dev/null stdin is never read", async () => {
  for (const kind of ["tty", "null"] as const) {
    const r = await readStdin(
      { kind, chunks: () => pipe(enc("x")).chunks() },
      { ...base, hasPrompt: true },
    );
    expect(r.text).toBeUndefined();
  }
});

test("an open pipe that never writes: continue with stdin_no_data when a prompt was given", async () => {
  const stdin = silentPipe();
  const r = await readStdin(stdin, { ...base, hasPrompt: true });
  stdin.release();
  expect(r.text).toBeUndefined();
  expect(r.warnings.map((w) => w.code)).toEqual(["stdin_no_data"]);
});

test("stdin over the cap fails, or is cut on a UTF-8 boundary with --truncate-input", async () => {
  const data = enc("ééééé"); // 10 bytes
  await expect(
    readStdin(pipe(data), { ...base, hasPrompt: true, maxBytes: 5 }),
  ).rejects.toMatchObject({
    reason: "input_too_large",
  });
  const cut = await readStdin(pipe(data), {
    ...base,
    hasPrompt: true,
    maxBytes: 5,
    truncate: true,
  });
  expect(cut.text).toBe("éé");
  expect(cut.warnings[0]?.code).toBe("input_truncated");
});

test("NUL bytes are binary input", async () => {
  await expect(
    readStdin(pipe(new Uint8Array([65, 0, 66])), { ...base, hasPrompt: false }),
  ).rejects.toMatchObject({ reason: "bad_input" });
});

test("chunks are joined and composed as <stdin bytes=N> before the instruction", async () => {
  const r = await readStdin(pipe(enc("line 1\n"), enc("line 2\n")), { ...base, hasPrompt: true });
  expect(r.bytes).toBe(14);
  expect(composePrompt("why?", r)).toBe('<stdin bytes="14">\nline 1\nline 2\n</stdin>\n\nwhy?');
  expect(composePrompt(undefined, r)).toBe("line 1\nline 2\n");
  expect(composePrompt("  ", { text: undefined, bytes: 0, warnings: [] })).toBeUndefined();
});

test("cutUtf8 drops a trailing partial character only", () => {
  const bytes = enc("aé€");
  expect(new TextDecoder().decode(cutUtf8(bytes.subarray(0, 4)))).toBe("aé");
  expect(cutUtf8(bytes).length).toBe(bytes.length);
});
