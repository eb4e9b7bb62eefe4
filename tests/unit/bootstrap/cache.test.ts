import { expect, test } from "bun:test";
import { rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BootstrapCache } from "../../../lib/bootstrap/cache.ts";
import { loadBootstrapFiles } from "../../../lib/bootstrap/files.ts";
import { tempDir } from "../../support/ctx.ts";
import { put } from "./helpers.ts";

/** Rewrites a file and moves its mtime forward explicitly (no sleeping for the clock to tick). */
function rewrite(path: string, text: string, secondsLater = 10): void {
  writeFileSync(path, text);
  const t = new Date(Date.now() + secondsLater * 1000);
  utimesSync(path, t, t);
}

test("second build is served from the cache; isStale false right after loading", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  put(ws, "SOUL.md", "v1\n");
  put(ws, "USER.md", "user\n");
  const cache = new BootstrapCache();
  const env = { HOME: join(dir.path, "home") };
  loadBootstrapFiles({ env, workspaceRoot: ws, cache });
  expect(cache.misses).toBe(2);
  expect(cache.isStale()).toBe(false);
  const again = loadBootstrapFiles({ env, workspaceRoot: ws, cache });
  expect(cache.hits).toBe(2);
  expect(cache.misses).toBe(2);
  expect(again.files.map((f) => f.content)).toEqual(["v1\n", "user\n"]);
});

test("an mtime change within one process: isStale turns true and only that file is re-read", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  const soul = put(ws, "SOUL.md", "v1\n");
  put(ws, "USER.md", "user\n");
  const cache = new BootstrapCache();
  const env = { HOME: join(dir.path, "home") };
  loadBootstrapFiles({ env, workspaceRoot: ws, cache });
  rewrite(soul, "v2\n");
  expect(cache.isStale()).toBe(true);
  const after = loadBootstrapFiles({ env, workspaceRoot: ws, cache });
  expect(after.files[0]?.content).toBe("v2\n");
  expect(cache.misses).toBe(3);
  expect(cache.hits).toBe(1);
  expect(cache.isStale()).toBe(false);
});

test("a same-size rewrite with an older mtime is still noticed (mtime differs, not just newer)", async () => {
  await using dir = await tempDir();
  const path = put(dir.path, "f.md", "aaaa");
  const cache = new BootstrapCache();
  cache.read(path, 1024);
  rewrite(path, "bbbb", -3600);
  expect(cache.isStale()).toBe(true);
  const read = cache.read(path, 1024);
  expect(read.kind === "ok" && read.content).toBe("bbbb");
});

test("a deleted file makes the cache stale; a file created later does not (next build sees it)", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  const soul = put(ws, "SOUL.md", "soul\n");
  const cache = new BootstrapCache();
  const env = { HOME: join(dir.path, "home") };
  loadBootstrapFiles({ env, workspaceRoot: ws, cache });
  put(ws, "USER.md", "new\n");
  expect(cache.isStale()).toBe(false);
  expect(loadBootstrapFiles({ env, workspaceRoot: ws, cache }).files).toHaveLength(2);
  rmSync(soul);
  expect(cache.isStale()).toBe(true);
  expect(loadBootstrapFiles({ env, workspaceRoot: ws, cache }).files.map((f) => f.name)).toEqual([
    "USER.md",
  ]);
});

test("invalidate forgets everything", async () => {
  await using dir = await tempDir();
  const path = put(dir.path, "f.md", "x");
  const cache = new BootstrapCache();
  cache.read(path, 10);
  cache.invalidate();
  expect(cache.size).toBe(0);
  cache.read(path, 10);
  expect(cache.misses).toBe(2);
});
