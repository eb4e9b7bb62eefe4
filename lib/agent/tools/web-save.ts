/**
 * Where web_fetch puts a page it saves. The directory is shared ($TMPDIR under CI=1, where no
 * session folder exists), so a name is never taken over: a file is created with O_EXCL, and an
 * existing one is replaced only when this process created it (then by temp file + rename, so a
 * link put in its place meanwhile is replaced, not followed). A name that is taken gets a suffix.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rename, unlink, writeFile } from "node:fs/promises";
import { basename, extname, join, resolve } from "node:path";

/** Files web_fetch created in this process (a chatcli run), by absolute path. */
const CREATED = new Set<string>();

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

async function createExclusive(path: string, text: string): Promise<boolean> {
  try {
    await writeFile(path, text, { mode: 0o600, flag: "wx" });
    CREATED.add(path);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  }
}

/** Replaces a file this run created, never writing through whatever is at `path` now. */
async function replaceOwn(path: string, text: string): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(temp, text, { mode: 0o600, flag: "wx" });
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}

/**
 * Saves `text` in `dir` under the base name of `requested` (else `fallback`). Returns the path and,
 * when the name was taken by a file this run did not create, a note saying which name was used.
 */
export async function saveFetched(
  dir: string,
  requested: string | undefined,
  fallback: string,
  text: string,
): Promise<{ path: string; note?: string }> {
  await mkdir(dir, { recursive: true });
  const name = basename(requested?.trim() || fallback) || fallback;
  const wanted = resolve(join(dir, name));
  if (CREATED.has(wanted)) {
    await replaceOwn(wanted, text);
    return { path: wanted };
  }
  if (await createExclusive(wanted, text)) return { path: wanted };
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length) || "webfetch";
  for (let n = 2; n < 1000; n++) {
    const path = resolve(join(dir, `${stem}-${n}${ext}`));
    if (await createExclusive(path, text))
      return requested
        ? {
            path,
            note: `${name} already exists in ${dir} and was not written by this run: saved as ${basename(path)} instead`,
          }
        : { path };
  }
  throw new Error(`no free file name for ${name} in ${dir}`);
}
