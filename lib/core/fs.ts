import { readFileSync, readlinkSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { kill, pid } from "node:process";

type Promises = typeof import("node:fs/promises");
let promises: Promises | undefined;
/**
 * node:fs/promises, loaded on first use: ~0.25 ms of every start (with node:events), and the
 * start-up paths that only read small files synchronously (`bootstrap show`) never need it.
 */
function fsp(): Promises {
  promises ??= require("node:fs/promises") as Promises;
  return promises;
}

/**
 * Writes a file atomically: unique temp file in the same dir, mode 0600 (or `mode`), then rename over
 * the target. A symlinked target (a session or store kept in a dotfiles repo) is written where the
 * link points, so the link survives; on any failure the temp file is removed and the old content is
 * untouched — a full disk never leaves a half-written file.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  const mode = options.mode ?? 0o600;
  const target = await followSymlinks(path);
  const dir = dirname(target);
  await fsp().mkdir(dir, { recursive: true, mode: 0o750 });
  const tmp = join(dir, tempName(target));
  try {
    await fsp().writeFile(tmp, data, { mode });
    await fsp().chmod(tmp, mode);
    await fsp().rename(tmp, target);
  } catch (error) {
    await fsp()
      .rm(tmp, { force: true })
      .catch(() => {}); // keep the original error, not the cleanup's
    throw withPath(error, target);
  }
}

/** Names the file on an errno error that lacks it (Bun's read/write errors say only "write"). */
export function withPath(error: unknown, path: string): unknown {
  const e = error as { code?: unknown; path?: unknown } | null;
  if (e && typeof e === "object" && typeof e.code === "string" && !e.path) e.path = path;
  return error;
}

/**
 * Creates a file that must not exist yet, atomically: the content goes to a temp file that is then
 * hard-linked into place (link() never replaces). Returns false, writing nothing, when the file exists.
 */
export async function createFileAtomic(path: string, data: string | Uint8Array): Promise<boolean> {
  const dir = dirname(path);
  await fsp().mkdir(dir, { recursive: true, mode: 0o750 });
  const tmp = join(dir, tempName(path));
  try {
    await fsp().writeFile(tmp, data, { mode: 0o600 });
    await fsp().chmod(tmp, 0o600);
    await fsp().link(tmp, path);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") return false;
    throw withPath(error, path);
  } finally {
    await fsp()
      .rm(tmp, { force: true })
      .catch(() => {});
  }
}

/**
 * `n` random bytes as hex, from Web Crypto (always there: loading node:crypto for this cost every
 * command ~2 ms of start-up, issue 23).
 */
function randomHex(n: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(n));
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/** A unique temp file name beside `path` that fits a 255-byte file name however long the target's. */
function tempName(path: string): string {
  return `${basename(path).slice(0, 200)}.${randomHex(6)}.tmp`;
}

/** Where a chain of symlinks ends (the path itself when it is not a link or does not exist). */
async function followSymlinks(path: string): Promise<string> {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    let link: string;
    try {
      link = await fsp().readlink(current);
    } catch {
      return current; // not a link (EINVAL), missing (ENOENT): write here
    }
    current = resolve(dirname(current), link);
  }
  return current; // a loop: rename replaces the last link rather than spinning
}

/** Go's MarshalIndent(v, "", "  "): two-space indent, no trailing newline. */
export function toGoJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await fsp().readFile(path, "utf8");
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw withPath(error, path);
  }
}

/**
 * readTextIfExists without a round trip through the thread pool, for the small files read at every
 * start (config.json, CHATCLI_DOTENV): an async read of a missing config.json cost ~0.5 ms of a
 * `bootstrap show` (issue 23). Same results and errors.
 */
export function readTextIfExistsSync(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw withPath(error, path);
  }
}

export function isNotFound(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "ENOENT";
}

export type JsonRead<T> =
  | { kind: "missing" }
  | { kind: "ok"; value: T }
  | { kind: "corrupt"; quarantinedTo: string; message: string };

/**
 * Reads a JSON file. A file that does not parse is renamed `<path>.corrupt` (or `.corrupt-<unix>` when
 * that exists) and reported — never overwritten. When another process moves or replaces the file
 * meanwhile, the file is read again: a good file that appeared is never quarantined. `sync`: read
 * without the thread pool (the memory store, read at every `memory facts` start: issue 23).
 */
export async function readJsonFile<T = unknown>(
  path: string,
  options: { sync?: boolean } = {},
): Promise<JsonRead<T>> {
  for (let attempt = 0; ; attempt++) {
    const text = options.sync ? readTextIfExistsSync(path) : await readTextIfExists(path);
    if (text === undefined) return { kind: "missing" };
    if (text.trim() === "") return { kind: "missing" };
    let message: string;
    try {
      return { kind: "ok", value: JSON.parse(text) as T };
    } catch (error) {
      message = (error as Error).message;
    }
    const quarantinedTo =
      attempt < 3 ? await quarantineIfUnchanged(path, text) : await quarantine(path);
    if (quarantinedTo !== undefined) return { kind: "corrupt", quarantinedTo, message };
  }
}

/** Renames a bad file out of the way and returns where it went. */
export async function quarantine(path: string): Promise<string> {
  let target = `${path}.corrupt`;
  if (await exists(target)) target = `${path}.corrupt-${Math.floor(Date.now() / 1000)}`;
  if (await exists(target)) target = `${path}.corrupt-${Date.now()}-${randomHex(3)}`;
  await fsp().rename(path, target);
  return target;
}

/** quarantine() of a file that still holds `expected`; undefined when it changed or vanished meanwhile. */
async function quarantineIfUnchanged(path: string, expected: string): Promise<string | undefined> {
  if ((await readTextIfExists(path)) !== expected) return undefined;
  try {
    return await quarantine(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await fsp().stat(path);
    return true;
  } catch {
    return false;
  }
}

export interface LockOptions {
  /** Give up after this long (ms). Defaults to the staleness window plus 15 s, so a waiter always outlives it. */
  timeoutMs?: number;
  /** A lock file not refreshed for this long is considered abandoned (ms). */
  staleMs?: number;
  /**
   * An empty lock file (its creator died between open() and writing its pid — `kill -9`) older than
   * this is abandoned (ms). A live creator writes its pid within microseconds of creating it.
   */
  emptyStaleMs?: number;
}

const DEFAULT_STALE_MS = 30_000;
const DEFAULT_EMPTY_STALE_MS = 2_000;

/**
 * Runs `fn` holding an exclusive lock file (`<path>.lock`, O_EXCL). Processes that share a store
 * (CI matrix jobs, a REPL and a one-shot) serialise their read-merge-write cycles through it.
 *
 * The lock names its holder (`pid` and host). A waiter removes it at once when that process is gone
 * (same host), or when the holder stopped refreshing it for `staleMs` (another host, a hung process);
 * the holder refreshes it every `staleMs / 3` while `fn` runs, so a slow holder is never robbed.
 */
export async function withLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const lockPath = `${path}.lock`;
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const timeoutMs = options.timeoutMs ?? staleMs + 15_000;
  const deadline = Date.now() + timeoutMs;
  await fsp().mkdir(dirname(lockPath), { recursive: true, mode: 0o750 });
  let delay = 2;
  let ours = await tryAcquire(lockPath);
  while (ours === undefined) {
    const holder = await removeIfAbandoned(
      lockPath,
      staleMs,
      options.emptyStaleMs ?? DEFAULT_EMPTY_STALE_MS,
    );
    if (Date.now() > deadline) {
      throw new Error(
        `could not lock ${path} within ${Math.round(timeoutMs / 1000)} s: ${lockPath} is held${holder ? ` by ${holder}` : ""}`,
      );
    }
    await Bun.sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
    ours = await tryAcquire(lockPath);
  }
  const refresh = setInterval(() => {
    touchByKernel(lockPath).catch(() => {}); // best effort: a missed beat only shortens the grace
  }, staleMs / 3);
  refresh.unref?.();
  try {
    return await fn();
  } finally {
    clearInterval(refresh);
    await releaseLock(lockPath, ours);
  }
}

/** Removes the lock file if it is still ours (a waiter may have judged it stale and taken it). */
async function releaseLock(lockPath: string, ino: number): Promise<void> {
  try {
    if ((await fsp().stat(lockPath)).ino === ino) await fsp().unlink(lockPath);
  } catch {
    // already gone: nothing to release
  }
}

/**
 * Creates the lock file and returns its inode; undefined when another process holds it. A failed
 * write never leaves it behind.
 */
async function tryAcquire(lockPath: string): Promise<number | undefined> {
  let handle: FileHandle;
  try {
    handle = await fsp().open(lockPath, "wx", 0o600);
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") return undefined;
    throw error;
  }
  try {
    await handle.writeFile(`${pid}\n${lockHost()}\n`);
    const { ino } = await handle.stat();
    await handle.close();
    return ino;
  } catch (error) {
    await handle.close().catch(() => {});
    await fsp()
      .unlink(lockPath)
      .catch(() => {});
    throw error;
  }
}

/**
 * Removes the lock when its holder is dead or it went stale; returns a description of the holder
 * ("pid 42 on host") for the timeout message. Re-checks the inode before unlinking, so a lock that a
 * third process just re-created is left alone.
 */
async function removeIfAbandoned(
  lockPath: string,
  staleMs: number,
  emptyStaleMs: number,
): Promise<string | undefined> {
  try {
    const info = await fsp().stat(lockPath);
    const [holderPid, holderHost] = (await fsp().readFile(lockPath, "utf8")).split("\n");
    const owner = Number(holderPid);
    const named = Number.isInteger(owner) && owner > 0;
    const dead = named && holderHost === lockHost() && !isAlive(owner);
    // An empty file is a holder between open() and write() — microseconds — or one killed there
    // (kill -9): past a short age it is abandoned. Ages are on the filesystem's clock (fileAgeMs).
    if (dead || (await fileAgeMs(lockPath, info.mtimeMs)) > (named ? staleMs : emptyStaleMs)) {
      const again = await fsp().stat(lockPath);
      if (again.ino === info.ino && again.mtimeMs === info.mtimeMs) await fsp().unlink(lockPath);
      return undefined;
    }
    return holderPid ? `pid ${holderPid}${holderHost ? ` on ${holderHost}` : ""}` : undefined;
  } catch {
    return undefined; // vanished meanwhile: the next attempt takes it
  }
}

/**
 * How long ago `mtimeMs` was, on the filesystem's clock: the mtime of a probe created now next to
 * `path`. Comparing a kernel-set mtime with this process's clock would be wrong whenever the two
 * differ (faketime, a container with a skewed clock, a network filesystem's server).
 */
export async function fileAgeMs(path: string, mtimeMs: number): Promise<number> {
  const probe = join(dirname(path), `.clock-${pid}-${randomHex(4)}`);
  try {
    await fsp().writeFile(probe, "", { flag: "wx", mode: 0o600 });
    return (await fsp().stat(probe)).mtimeMs - mtimeMs;
  } catch {
    return Date.now() - mtimeMs; // cannot write here: the process clock is all there is
  } finally {
    await fsp()
      .unlink(probe)
      .catch(() => {});
  }
}

/** Sets a file's mtime to the kernel's now by rewriting its first byte (utimes would use our clock). */
async function touchByKernel(path: string): Promise<void> {
  const handle = await fsp().open(path, "r+");
  try {
    const byte = Buffer.alloc(1);
    const { bytesRead } = await handle.read(byte, 0, 1, 0);
    if (bytesRead === 1) await handle.write(byte, 0, 1, 0);
    else await handle.truncate(0); // empty: truncating still stamps the mtime
  } finally {
    await handle.close();
  }
}

let host: string | undefined;
/**
 * Who can check a pid: the host name plus, on Linux, the pid namespace (containers that share a home
 * and a host name — `--network host` — each see only their own processes).
 */
export function lockHost(): string {
  // node:os on first use: a start that takes no lock does not pay its ~0.2 ms
  host ??= `${(require("node:os") as typeof import("node:os")).hostname()}${pidNamespace()}`;
  return host;
}

function pidNamespace(): string {
  try {
    return ` ${readlinkSync("/proc/self/ns/pid")}`;
  } catch {
    return ""; // not Linux: the host name alone
  }
}

function isAlive(target: number): boolean {
  try {
    kill(target, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM"; // exists, owned by someone else
  }
}
