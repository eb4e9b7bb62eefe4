/**
 * Reading a file the workspace ships (AGENTS.md, rules, skills, `.chatcli/config.json`, `./.env`…)
 * without following a link out of the workspace. chatcli reads these on its own, on the host, and
 * sends them to the provider or prints them: a checkout whose `AGENTS.md` is a link to
 * `~/.ssh/id_rsa` must not get the key into the system prompt. A link that stays inside the
 * workspace is fine; one that leaves it (itself, or through a linked parent directory) is not read,
 * and the caller warns `link_outside_workspace`.
 *
 * The check is on the file actually opened, not only on the path: the path is resolved (realpath),
 * checked, opened with O_NOFOLLOW, and the descriptor's own path (`/proc/self/fd/N`, Linux) must
 * still be inside — a link swapped in between the check and the open changes nothing. Without
 * /proc (macOS) the descriptor is compared (device, inode) with the checked path.
 *
 * Files the user named (-f, CHATCLI_DOTENV, --mcp-config) and global files (~/.chatcli) are the
 * user's own: their readers do not come here.
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import { relative, resolve, sep } from "node:path";
import type { Warning } from "./warning.ts";

export type ConfinedRead =
  | { kind: "ok"; raw: Buffer; mtimeMs: number; size: number; real: string }
  | { kind: "missing" }
  | { kind: "outside"; target: string }
  | { kind: "unreadable"; message: string };

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Whether `path` is `root` or below it (both absolute and resolved). */
export function isWithin(path: string, root: string): boolean {
  if (path === root) return true;
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep);
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function messageOf(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return e.code ? `${e.code}: ${e.message ?? ""}`.trim() : String(e.message ?? error);
}

/** Where a path leads (locateConfined); `rootReal` is the root's real path it was checked against. */
export type Located =
  | { kind: "inside"; real: string; rootReal: string }
  | { kind: "missing" }
  | { kind: "outside"; target: string };

/**
 * Where `path` leads, checked against `root`: its real path when that is inside, `outside` with the
 * real target when a link (of the file or of a parent directory) leaves the workspace.
 */
export function locateConfined(path: string, root: string): Located {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    const code = errnoOf(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    // ELOOP, EACCES…: the open below reports it
    return { kind: "inside", real: resolve(path), rootReal: realOr(root) };
  }
  const rootReal = realOr(root);
  return isWithin(real, rootReal)
    ? { kind: "inside", real, rootReal }
    : { kind: "outside", target: real };
}

/** Where the descriptor really is: its /proc link, or undefined where there is no /proc. */
function fdPath(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Reads `path` (a regular file, at most `maxBytes` bytes when given) if it and every link on the
 * way stay inside `root`. `located`: what locateConfined said of it just before (lib/bootstrap's
 * cache locates a file to stat it first), not asked again — the check that holds is the one on
 * the opened descriptor, against the same real root.
 */
export function readConfined(
  path: string,
  root: string,
  maxBytes?: number,
  located?: Located,
): ConfinedRead {
  const where = located ?? locateConfined(path, root);
  if (where.kind !== "inside") return where;
  let fd: number;
  try {
    fd = openSync(where.real, FLAGS);
  } catch (error) {
    const code = errnoOf(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    // ELOOP: the real path became a link since realpath looked — swapped, not read
    if (code === "ELOOP") return { kind: "outside", target: where.real };
    return { kind: "unreadable", message: messageOf(error) };
  }
  try {
    const info = fstatSync(fd);
    const opened = fdPath(fd);
    const rootReal = where.rootReal;
    if (opened !== undefined ? !isWithin(opened, rootReal) : !sameFile(info, where.real))
      return { kind: "outside", target: opened ?? where.real };
    if (info.isDirectory()) return { kind: "unreadable", message: `${path} is a directory` };
    if (!info.isFile()) return { kind: "unreadable", message: `${path} is not a regular file` };
    const want = maxBytes === undefined ? info.size : Math.min(info.size, maxBytes + 1);
    const buf = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      const n = readSync(fd, buf, got, want - got, got);
      if (n === 0) break;
      got += n;
    }
    return {
      kind: "ok",
      raw: buf.subarray(0, got),
      mtimeMs: info.mtimeMs,
      size: info.size,
      real: opened ?? where.real,
    };
  } catch (error) {
    return { kind: "unreadable", message: messageOf(error) };
  } finally {
    closeSync(fd);
  }
}

function sameFile(info: { dev: number; ino: number }, path: string): boolean {
  try {
    const now = statSync(path);
    return now.dev === info.dev && now.ino === info.ino;
  } catch {
    return false;
  }
}

/**
 * The text of a workspace file, or undefined when it is missing or leads outside (then with a
 * `link_outside_workspace` warning in `warnings`). Errors other than "missing" are thrown as the
 * plain reader would.
 */
export function readWorkspaceText(
  path: string,
  root: string,
  warnings: Warning[],
): string | undefined {
  const read = readConfined(path, root);
  if (read.kind === "ok") return read.raw.toString("utf8");
  if (read.kind === "missing") return undefined;
  if (read.kind === "outside") {
    warnings.push(outsideWarning(path, read.target));
    return undefined;
  }
  const error = new Error(`cannot read ${path} (${read.message})`) as NodeJS.ErrnoException;
  error.path = path;
  throw error;
}

/** The warning for a workspace file that is a link (or under a linked directory) leading outside. */
export function outsideWarning(path: string, target: string): Warning {
  return {
    code: "link_outside_workspace",
    message: `${path} leads outside the workspace (to ${target}); not read — a file the checkout ships is read only inside it`,
  };
}
