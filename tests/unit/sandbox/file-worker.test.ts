/** The sandboxed file worker: its wire format, and the real thing inside bubblewrap. */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FileOps } from "../../../lib/sandbox/file-ops.ts";
import {
  encodeFrame,
  FileWorkerClient,
  FrameReader,
  type StartWorker,
} from "../../../lib/sandbox/file-worker.ts";
import { Sandbox } from "../../../lib/sandbox/sandbox.ts";
import { tempDir } from "../../support/ctx.ts";
import { SANDBOX_MISSING } from "../../support/sandbox.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const SELF = [process.execPath, join(import.meta.dir, "../../../main.ts")];

describe("file worker wire format", () => {
  test("frames and their payloads survive any split into chunks", () => {
    const payload = Buffer.from(`${"x".repeat(70_000)}\n{not a header}\n`);
    const bytes = Buffer.concat([
      encodeFrame({ id: 1, op: "write" }, payload),
      encodeFrame({ id: 2, op: "list", args: { path: "/a\nb" } }),
    ]);
    for (const size of [1, 7, 4096, bytes.length]) {
      const reader = new FrameReader();
      const frames = [];
      for (let i = 0; i < bytes.length; i += size)
        frames.push(...reader.push(bytes.subarray(i, i + size)));
      expect(frames.map((f) => f.header["id"])).toEqual([1, 2]);
      expect(Buffer.from(frames[0]?.payload ?? []).equals(payload)).toBe(true);
      expect(frames[1]?.header["args"]).toEqual({ path: "/a\nb" });
    }
  });
});

/** A worker that fails its first `failures` starts with `why`, then answers every list with its path. */
function flakyStart(failures: number, why: string) {
  let starts = 0;
  const start: StartWorker = (events) => {
    const n = ++starts;
    const reader = new FrameReader();
    return {
      write(bytes) {
        for (const f of reader.push(bytes)) {
          if (f.header["op"] === "init") {
            if (n <= failures) queueMicrotask(() => events.exit(why));
            continue;
          }
          if (n <= failures) continue;
          const result = { entries: [], path: (f.header["args"] as { path: string }).path };
          queueMicrotask(() => events.data(encodeFrame({ id: f.header["id"], ok: true, result })));
        }
      },
      hold() {},
      kill() {},
    };
  };
  return { start, starts: () => starts };
}

describe("the file worker's host side", () => {
  const guard = {} as ConstructorParameters<typeof FileWorkerClient>[1];
  const BWRAP =
    "exit 1: bwrap: Can't bind mount /oldroot/ws/box/r0/.git on /newroot/ws/box/r0/.git";

  test("bwrap failing to set up (a path swapped while it mounts) is started over once; the requests are sent again", async () => {
    const w = flakyStart(1, BWRAP);
    const client = new FileWorkerClient(w.start, guard);
    const [a, b] = await Promise.all([
      client.list({ path: "a" } as never),
      client.list({ path: "b" } as never),
    ]);
    expect([a, b].map((r) => (r as unknown as { path: string }).path)).toEqual(["a", "b"]);
    expect(w.starts()).toBe(2);
  });

  test("a second set-up failure, or a worker that dies otherwise, fails the requests", async () => {
    const twice = new FileWorkerClient(flakyStart(2, BWRAP).start, guard);
    await expect(twice.list({ path: "a" } as never)).rejects.toThrow(
      /file worker stopped: exit 1: bwrap/,
    );
    const crash = flakyStart(1, "signal SIGKILL");
    const client = new FileWorkerClient(crash.start, guard);
    await expect(client.list({ path: "a" } as never)).rejects.toThrow(
      /file worker stopped: signal SIGKILL/,
    );
    expect(crash.starts()).toBe(1);
  });
});

async function setup(home: string) {
  const ws = join(home, "ws");
  await mkdir(join(ws, ".git"), { recursive: true });
  await mkdir(join(ws, ".chatcli"));
  await writeFile(join(ws, "f.txt"), "one\n");
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: home };
  return { ws, env };
}

async function errorCode(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  }
}

const write = (ops: FileOps, path: string, text: string) =>
  ops.write({ path, data: Buffer.from(text) });

describe("the worker inside bubblewrap", () => {
  live(
    "read-only: the worker sees the workspace read-only; an edit tool's worker (a rule or a human said yes) may write it",
    async () => {
      await using home = await tempDir();
      const { ws, env } = await setup(home.path);
      const sb = await Sandbox.create({
        env,
        setting: "required",
        permissionMode: "read-only",
        workspaceRoot: ws,
        selfArgv: SELF,
      });
      try {
        const reads = sb.files({ write: false });
        const r = await reads.read({ path: join(ws, "f.txt"), wholeMax: 1000, window: 100 });
        expect(Buffer.from(r.bytes).toString()).toBe("one\n");
        // the guard allows this write (inside the workspace); the mount does not
        expect(await errorCode(write(reads, join(ws, "f.txt"), "two\n"))).toBe("EROFS");
        expect(await readFile(join(ws, "f.txt"), "utf8")).toBe("one\n");
        const writes = sb.files({ write: true });
        expect((await write(writes, join(ws, "new.txt"), "n")).change).toBe("created");
        expect(await readFile(join(ws, "new.txt"), "utf8")).toBe("n");
      } finally {
        sb.dispose();
      }
    },
    60_000,
  );

  live(
    "edit: the workspace writable, .chatcli/ read-only by mount, a search runs inside, a disposed worker starts again",
    async () => {
      await using home = await tempDir();
      const { ws, env } = await setup(home.path);
      const sb = await Sandbox.create({
        env,
        setting: "required",
        permissionMode: "edit",
        workspaceRoot: ws,
        selfArgv: SELF,
      });
      try {
        const ops = sb.files({ write: true });
        expect((await write(ops, join(ws, "src", "a.txt"), "needle\n")).change).toBe("created");
        // the walk lets .chatcli/notes.md through; the worker's mounts keep .chatcli/ read-only
        expect(await errorCode(write(ops, join(ws, ".chatcli", "notes.md"), "x"))).toBe("EROFS");
        expect(existsSync(join(ws, ".chatcli", "notes.md"))).toBe(false);
        const found = await ops.search(
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
        expect(found.lines).toEqual(["src/a.txt:1:needle"]);
        sb.dispose();
        // after dispose the next call starts a new worker (the REPL's next /agent run)
        const again = sb.files({ write: false });
        const r = await again.read({ path: join(ws, "src", "a.txt"), wholeMax: 100, window: 10 });
        expect(Buffer.from(r.bytes).toString()).toBe("needle\n");
      } finally {
        sb.dispose();
      }
    },
    60_000,
  );
});
