import { randomBytes } from "node:crypto";
import {
  chmod,
  mkdir,
  open,
  readFile,
  rename,
  rm,
  stat,
  unlink,
  writeFile,
} from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { pid } from "node:process";

/** Writes a file atomically: unique temp file in the same dir, mode 0600, then rename over the target. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o750 });
  const tmp = join(dir, `${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(tmp, data, { mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/** Go's MarshalIndent(v, "", "  "): two-space indent, no trailing newline. */
export function toGoJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
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
 * that exists) and reported — never overwritten.
 */
export async function readJsonFile<T = unknown>(path: string): Promise<JsonRead<T>> {
  const text = await readTextIfExists(path);
  if (text === undefined) return { kind: "missing" };
  if (text.trim() === "") return { kind: "missing" };
  try {
    return { kind: "ok", value: JSON.parse(text) as T };
  } catch (error) {
    const quarantinedTo = await quarantine(path);
    return { kind: "corrupt", quarantinedTo, message: (error as Error).message };
  }
}

/** Renames a bad file out of the way and returns where it went. */
export async function quarantine(path: string): Promise<string> {
  let target = `${path}.corrupt`;
  if (await exists(target)) target = `${path}.corrupt-${Math.floor(Date.now() / 1000)}`;
  if (await exists(target))
    target = `${path}.corrupt-${Date.now()}-${randomBytes(3).toString("hex")}`;
  await rename(path, target);
  return target;
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export interface LockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock file older than this is considered abandoned (ms). */
  staleMs?: number;
}

/**
 * Runs `fn` holding an exclusive lock file (`<path>.lock`, O_EXCL). Processes that share a store
 * (CI matrix jobs, a REPL and a one-shot) serialise their read-merge-write cycles through it.
 */
export async function withLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const lockPath = `${path}.lock`;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  await mkdir(dirname(lockPath), { recursive: true, mode: 0o750 });
  let delay = 2;
  for (;;) {
    try {
      const handle = await open(lockPath, "wx", 0o600);
      await handle.writeFile(`${pid}\n`);
      await handle.close();
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
      await removeIfStale(lockPath, staleMs);
      if (Date.now() > deadline) throw new Error(`could not lock ${path} within ${timeoutMs} ms`);
      await Bun.sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 50);
    }
  }
  try {
    return await fn();
  } finally {
    await unlink(lockPath).catch(() => {});
  }
}

async function removeIfStale(lockPath: string, staleMs: number): Promise<void> {
  try {
    const info = await stat(lockPath);
    if (Date.now() - info.mtimeMs > staleMs) await unlink(lockPath);
  } catch {
    // vanished meanwhile: fine
  }
}
