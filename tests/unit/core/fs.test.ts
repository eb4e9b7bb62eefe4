import { expect, test } from "bun:test";
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  stat,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { pid } from "node:process";
import {
  createFileAtomic,
  lockHost,
  readJsonFile,
  withLock,
  writeFileAtomic,
} from "../../../lib/core/fs.ts";
import { tempDir } from "../../support/ctx.ts";

test("atomic write leaves no temp file and mode 0600", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "a", "b.json");
  await writeFileAtomic(path, "{}");
  expect(await readFile(path, "utf8")).toBe("{}");
  expect((await stat(path)).mode & 0o777).toBe(0o600);
  expect(await readdir(join(dir.path, "a"))).toEqual(["b.json"]);
});

test("a corrupt JSON file is quarantined, never overwritten", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "x.json");
  await writeFile(path, "{not json");
  const first = await readJsonFile(path);
  expect(first.kind).toBe("corrupt");
  expect(await readFile(`${path}.corrupt`, "utf8")).toBe("{not json");
  await writeFile(path, "[oops");
  const second = await readJsonFile(path);
  expect(second.kind === "corrupt" && second.quarantinedTo).toMatch(/\.corrupt-\d+/);
});

test("withLock serialises read-modify-write cycles", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "counter");
  await writeFile(path, "0");
  await Promise.all(
    Array.from({ length: 20 }, () =>
      withLock(path, async () => {
        const n = Number(await readFile(path, "utf8"));
        await Bun.sleep(1);
        await writeFile(path, String(n + 1));
      }),
    ),
  );
  expect(await readFile(path, "utf8")).toBe("20");
});

async function deadPid(): Promise<number> {
  const child = Bun.spawn(["true"]);
  await child.exited;
  return child.pid;
}

test("a lock left by a process that is gone is taken at once, not after the stale window", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "store.json");
  await writeFile(`${path}.lock`, `${await deadPid()}\n${lockHost()}\n`);
  const ran = await withLock(path, async () => "ran", { timeoutMs: 2_000, staleMs: 600_000 });
  expect(ran).toBe("ran");
  expect(await readdir(dir.path)).toEqual([]);
});

test("by default a waiter outlives the stale window: an abandoned lock from another host is recovered", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "store.json");
  await writeFile(`${path}.lock`, `${pid}\nsome-other-host\n`);
  const ran = await withLock(path, async () => "ran", { staleMs: 150 });
  expect(ran).toBe("ran");
});

test("a lock older than the stale window is recovered with the default options", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "store.json");
  await writeFile(`${path}.lock`, `${pid}\nsome-other-host\n`);
  // 31 s before the file's own (kernel-stamped) mtime: the process clock may differ (faketime).
  const old = new Date((await stat(`${path}.lock`)).mtimeMs - 31_000);
  await utimes(`${path}.lock`, old, old);
  expect(await withLock(path, async () => "ran")).toBe("ran");
});

test("a waiter that gives up names the lock and its live holder", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "store.json");
  await writeFile(`${path}.lock`, `${pid}\n${lockHost()}\n`);
  const error = await withLock(path, async () => "ran", { timeoutMs: 30 }).catch((e: Error) => e);
  expect(String(error)).toContain(`${path}.lock is held by pid ${pid} on ${lockHost()}`);
  expect(await readFile(`${path}.lock`, "utf8")).toBe(`${pid}\n${lockHost()}\n`);
});

test("a slow holder keeps its lock fresh: a waiter never steals it as stale", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "store.json");
  const order: string[] = [];
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const slow = withLock(
    path,
    async () => {
      order.push("slow:start");
      entered();
      await Bun.sleep(400); // simulated slow work, several stale windows long
      order.push("slow:end");
    },
    { staleMs: 60 },
  );
  await inside;
  // Seen from another host, so only the age of the lock could make it look abandoned.
  await writeFile(`${path}.lock`, `${pid}\nsome-other-host\n`);
  const waiter = withLock(path, async () => order.push("waiter"), { staleMs: 60 });
  await Promise.all([slow, waiter]);
  expect(order).toEqual(["slow:start", "slow:end", "waiter"]);
});

test("an atomic write through a symlink updates the link's target and keeps the link", async () => {
  await using dir = await tempDir();
  await mkdir(join(dir.path, "dotfiles"));
  await mkdir(join(dir.path, "home"));
  const real = join(dir.path, "dotfiles", "s1.json");
  const link = join(dir.path, "home", "s1.json");
  await writeFile(real, "old");
  await symlink("../dotfiles/s1.json", link);
  await writeFileAtomic(link, "new");
  expect((await lstat(link)).isSymbolicLink()).toBe(true);
  expect(await readFile(real, "utf8")).toBe("new");
  expect((await readdir(join(dir.path, "home"))).sort()).toEqual(["s1.json"]);
  expect((await readdir(join(dir.path, "dotfiles"))).sort()).toEqual(["s1.json"]);
});

test("a dangling symlink is written through, creating its target", async () => {
  await using dir = await tempDir();
  const link = join(dir.path, "config.json");
  await symlink(join(dir.path, "elsewhere.json"), link);
  await writeFileAtomic(link, "{}");
  expect((await lstat(link)).isSymbolicLink()).toBe(true);
  expect(await readFile(join(dir.path, "elsewhere.json"), "utf8")).toBe("{}");
});

test("a failed atomic write leaves the old file and no temp file", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.json");
  await writeFile(path, "old");
  await mkdir(`${path}.occupied`);
  // rename() of a file over a directory fails: simulate by targeting a directory.
  const error = await writeFileAtomic(`${path}.occupied`, "new").catch((e: Error) => e);
  expect(error).toBeInstanceOf(Error);
  expect(await readFile(path, "utf8")).toBe("old");
  expect((await readdir(dir.path)).sort()).toEqual(["s.json", "s.json.occupied"]);
});

test("createFileAtomic writes a new file (0600, no temp left) and never replaces an existing one", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "202611", "20261129.md");
  expect(await createFileAtomic(path, "first")).toBe(true);
  expect(await createFileAtomic(path, "second")).toBe(false);
  expect(await readFile(path, "utf8")).toBe("first");
  expect((await stat(path)).mode & 0o777).toBe(0o600);
  expect(await readdir(join(dir.path, "202611"))).toEqual(["20261129.md"]);
});

test("createFileAtomic reports a write failure instead of hiding it", async () => {
  await using dir = await tempDir();
  await writeFile(join(dir.path, "202611"), "a file where the month directory should be");
  const error = await createFileAtomic(join(dir.path, "202611", "20261129.md"), "x").catch(
    (e: NodeJS.ErrnoException) => e,
  );
  expect((error as NodeJS.ErrnoException).code).toMatch(/EEXIST|ENOTDIR/);
});

test("many readers of one corrupt file: one quarantines it, none fails, nothing else is moved", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "state.json");
  await writeFile(path, "{torn");
  const reads = await Promise.all(Array.from({ length: 8 }, () => readJsonFile(path)));
  const corrupt = reads.filter((r) => r.kind === "corrupt");
  expect(corrupt).toHaveLength(1);
  expect(reads.filter((r) => r.kind === "missing")).toHaveLength(7);
  expect(await readdir(dir.path)).toEqual(["state.json.corrupt"]);
  expect(await readFile(join(dir.path, "state.json.corrupt"), "utf8")).toBe("{torn");
});

test("atomic writes work for a 255-byte file name (the temp name is shortened, not the target)", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "n".repeat(255));
  await writeFileAtomic(path, "a");
  await writeFileAtomic(path, "b");
  expect(await createFileAtomic(join(dir.path, "m".repeat(255)), "c")).toBe(true);
  expect(await readFile(path, "utf8")).toBe("b");
  expect((await readdir(dir.path)).sort()).toEqual(["m".repeat(255), "n".repeat(255)]);
});

test("a dead-looking pid from another pid namespace (a container on the same host) is not taken", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "store.json");
  const foreign = `${await deadPid()}\n${lockHost().split(" ")[0]} pid:[1]\n`;
  await writeFile(`${path}.lock`, foreign);
  const error = await withLock(path, async () => "ran", { timeoutMs: 30 }).catch((e: Error) => e);
  expect(String(error)).toContain("is held by pid");
  expect(await readFile(`${path}.lock`, "utf8")).toBe(foreign);
});

test("a holder whose lock was taken over (judged stale) does not remove the new holder's lock", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "store.json");
  const theirs = `${pid}\nsome-other-host\n`;
  await withLock(path, async () => {
    // Another process removed our lock as stale and now holds its own (a different file).
    await writeFile(`${path}.other`, theirs);
    await rename(`${path}.other`, `${path}.lock`);
  });
  expect(await readFile(`${path}.lock`, "utf8")).toBe(theirs);
});
