/** The openat-style walk of chatcli's file tools (lib/sandbox/walk.ts, file-ops.ts), in-process. */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { link, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readEntry, writeEntry } from "../../../lib/sandbox/file-ops.ts";
import { listEntry, searchEntry } from "../../../lib/sandbox/file-tree.ts";
import { type FileGuard, procFdUsable, Refusal } from "../../../lib/sandbox/walk.ts";
import { tempDir } from "../../support/ctx.ts";

async function scene(root: string) {
  const ws = join(root, "ws");
  const out = join(root, "outside");
  const secret = join(root, "home", ".ssh");
  for (const d of [join(ws, "sub", "deep"), out, secret]) await mkdir(d, { recursive: true });
  await writeFile(join(ws, "sub", "x"), "inside\n");
  await writeFile(join(out, "x"), "OUTSIDE\n");
  await writeFile(join(secret, "id_rsa"), "KEY\n");
  const guard: FileGuard = {
    workspace: ws,
    workspaceReal: ws,
    bypass: false,
    denied: [secret],
    patterns: ["^/proc/[^/]+/environ$"],
  };
  return { ws, out, secret, guard };
}

const read = (g: FileGuard, path: string) =>
  readEntry(g, { path, wholeMax: 1 << 20, window: 1 << 16 });
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8");
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof Refusal) return error.message;
    throw error;
  }
  return "no refusal";
};

describe("the walk never leaves the workspace through a link", () => {
  test("/proc/self/fd resolution is available here (the race-free path on Linux)", () => {
    if (process.platform === "linux") expect(procFdUsable()).toBe(true);
  });

  test("links out (absolute, relative, to a protected dir) are refused for reads and writes; links inside are followed", async () => {
    await using d = await tempDir();
    const { ws, out, secret, guard } = await scene(d.path);
    await symlink(out, join(ws, "abs"));
    await symlink("../outside", join(ws, "rel"));
    await symlink(secret, join(ws, "keys"));
    await symlink("sub", join(ws, "inner"));
    await symlink(join(ws, "sub", "x"), join(ws, "absinner"));
    expect(refusal(() => read(guard, join(ws, "abs", "x")))).toContain(
      "outside the workspace; it is not followed",
    );
    expect(refusal(() => read(guard, join(ws, "rel", "x")))).toContain("outside the workspace");
    expect(refusal(() => read(guard, join(ws, "keys", "id_rsa")))).toContain(
      "outside the workspace",
    );
    // named directly, a protected path is refused by the guard itself
    expect(refusal(() => read(guard, join(secret, "id_rsa")))).toContain("protected path");
    expect(text(read(guard, join(ws, "inner", "x")).bytes)).toBe("inside\n");
    expect(text(read(guard, join(ws, "absinner")).bytes)).toBe("inside\n");
    // outside the workspace by name: read, with the guard still standing
    expect(text(read(guard, join(out, "x")).bytes)).toBe("OUTSIDE\n");
    for (const target of ["abs/new", "rel/x", "keys/id_rsa"])
      expect(
        refusal(() => writeEntry(guard, { path: join(ws, target), data: Buffer.from("pwned") })),
      ).toContain("outside the workspace");
    expect(readFileSync(join(out, "x"), "utf8")).toBe("OUTSIDE\n");
    expect(existsSync(join(out, "new"))).toBe(false);
    expect(
      refusal(() => writeEntry(guard, { path: join(out, "x"), data: Buffer.from("p") })),
    ).toContain("outside the workspace");
  });

  test("writes: .git and .chatcli/config.json refused; parents created; hard links broken, not written through", async () => {
    await using d = await tempDir();
    const { ws, out, guard } = await scene(d.path);
    await mkdir(join(ws, ".git"));
    expect(
      refusal(() =>
        writeEntry(guard, { path: join(ws, ".git", "config"), data: Buffer.from("x") }),
      ),
    ).toContain("protected");
    expect(
      refusal(() =>
        writeEntry(guard, { path: join(ws, ".chatcli", "config.json"), data: Buffer.from("x") }),
      ),
    ).toContain("protected");
    expect(
      writeEntry(guard, { path: join(ws, "a", "b", "c.txt"), data: Buffer.from("c") }).change,
    ).toBe("created");
    expect(await readFile(join(ws, "a", "b", "c.txt"), "utf8")).toBe("c");
    await link(join(out, "x"), join(ws, "hard"));
    writeEntry(guard, { path: join(ws, "hard"), data: Buffer.from("more\n"), append: true });
    expect(await readFile(join(ws, "hard"), "utf8")).toBe("OUTSIDE\nmore\n");
    expect(await readFile(join(out, "x"), "utf8")).toBe("OUTSIDE\n");
    // patch semantics: never creates
    expect(
      refusal(() =>
        writeEntry(guard, { path: join(ws, "nope"), data: Buffer.from("x"), existingOnly: true }),
      ),
    ).toContain("does not exist");
  });

  test("list and search skip protected paths and never enter links", async () => {
    await using d = await tempDir();
    const { ws, secret, guard } = await scene(d.path);
    await symlink(secret, join(ws, "keys"));
    const chome = join(ws, "chome");
    await mkdir(chome);
    await writeFile(join(chome, "MEMORY.md"), "needle secret\n");
    await writeFile(join(ws, "sub", "deep", "n.txt"), "needle here\n");
    const g = { ...guard, denied: [...guard.denied, chome] };
    const listed = listEntry(g, {
      path: ws,
      maxDepth: 3,
      hidden: false,
      maxEntries: 100,
      skip: [],
    });
    expect(listed.lines).toContain("chome/ (protected, not listed)");
    expect(listed.lines).toContain("keys (protected, not listed)");
    expect(listed.lines.join("\n")).not.toContain("MEMORY.md");
    const found = await searchEntry(
      g,
      {
        path: ws,
        hidden: false,
        globs: [],
        skip: [],
        maxFileBytes: 1 << 20,
        source: "needle",
        flags: "",
        context: 0,
        maxResults: 10,
        perFileMs: 2000,
      },
      new AbortController().signal,
    );
    expect(found.lines).toEqual(["sub/deep/n.txt:1:needle here"]);
  });
});

/**
 * Swaps `sub` and a link to `out` (renameat2 RENAME_EXCHANGE: `sub` is always there, a directory or
 * the link) in another thread, until told to stop (or 2 000 000 swaps).
 */
const SWAPPER = `
import { symlinkSync } from "node:fs";
import { dlopen, FFIType, ptr } from "bun:ffi";
const { symbols } = dlopen("libc.so.6", {
  renameat2: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
});
self.onmessage = ({ data }) => {
  const { sub, link, out, stop } = data;
  symlinkSync(out, link);
  const a = Buffer.from(sub + "\\0");
  const b = Buffer.from(link + "\\0");
  const flag = new Int32Array(stop);
  let n = 0;
  Atomics.store(flag, 1, 1);
  for (let i = 0; i < 2_000_000 && Atomics.load(flag, 0) === 0; i++)
    if (symbols.renameat2(-100, ptr(a), -100, ptr(b), 2) === 0) n++;
  if (n % 2 === 1) symbols.renameat2(-100, ptr(a), -100, ptr(b), 2);
  self.postMessage(n);
};
`;

describe("a concurrent swap cannot redirect a walk (bounded by iterations)", () => {
  test.skipIf(process.platform !== "linux")(
    "another thread swaps sub for a link out while reads and writes walk sub/x: none lands outside",
    async () => {
      await using d = await tempDir();
      const { ws, out, guard } = await scene(d.path);
      const url = URL.createObjectURL(new Blob([SWAPPER], { type: "application/javascript" }));
      const worker = new Worker(url);
      const stop = new SharedArrayBuffer(8);
      const flag = new Int32Array(stop);
      const swaps = new Promise<number>((resolve) => {
        worker.onmessage = (e) => resolve(e.data as number);
      });
      worker.postMessage({ sub: join(ws, "sub"), link: join(ws, "sub.link"), out, stop });
      // wait (by iterations, not time) until the swapper runs
      for (let i = 0; i < 1e7 && Atomics.load(flag, 1) === 0; i++)
        await new Promise((r) => setImmediate(r));
      let leaked = 0;
      let ok = 0;
      for (let i = 0; i < 3000; i++) {
        try {
          const r = read(guard, join(ws, "sub", "x"));
          if (text(r.bytes).includes("OUTSIDE")) leaked++;
          writeEntry(guard, { path: join(ws, "sub", `n${i % 50}`), data: Buffer.from("x") });
          writeEntry(guard, { path: join(ws, "sub", "x"), data: Buffer.from("inside\n") });
          ok++;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (!(error instanceof Refusal) && code !== "ENOENT" && code !== "ENOTDIR") throw error;
        }
      }
      Atomics.store(flag, 0, 1);
      const n = await swaps;
      worker.terminate();
      URL.revokeObjectURL(url);
      expect(n).toBeGreaterThan(0);
      expect(ok).toBeGreaterThan(0);
      expect(leaked).toBe(0);
      expect(
        (await Array.fromAsync(new Bun.Glob("*").scan({ cwd: out, dot: true }))).sort(),
      ).toEqual(["x"]);
      expect(readFileSync(join(out, "x"), "utf8")).toBe("OUTSIDE\n");
    },
  );
});
