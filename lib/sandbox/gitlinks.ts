/**
 * The submodules (gitlinks, mode 160000) the git index of a work tree records. Their checkouts'
 * `.git` decides what the user's next `git status` runs there — it recurses into populated
 * submodules with *their* config (`core.fsmonitor`) — so the sandbox keeps those read-only too.
 * Reads the index file itself (versions 2–4), without starting git.
 */
import { lstatSync, readFileSync, renameSync, statSync } from "node:fs";
import { basename, join } from "node:path";

const MAX_INDEX_BYTES = 64 * 1024 * 1024;
const GITLINK = 0o160000;

/** Paths (relative, `/`-separated) of the gitlinks in `indexPath`; [] when unreadable. */
export function gitlinkPaths(indexPath: string, hashBytes = 20): string[] {
  let buf: Buffer;
  try {
    if (statSync(indexPath).size > MAX_INDEX_BYTES) return [];
    buf = readFileSync(indexPath);
  } catch {
    return [];
  }
  try {
    return parse(buf, hashBytes);
  } catch {
    return [];
  }
}

function parse(buf: Buffer, hashBytes: number): string[] {
  if (buf.length < 12 || buf.toString("latin1", 0, 4) !== "DIRC") return [];
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return [];
  const count = buf.readUInt32BE(8);
  const out: string[] = [];
  let pos = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const start = pos;
    const mode = buf.readUInt32BE(pos + 24);
    pos += 40 + hashBytes;
    const flags = buf.readUInt16BE(pos);
    pos += 2;
    if (version >= 3 && flags & 0x4000) pos += 2;
    let path: Buffer;
    if (version === 4) {
      let c = buf[pos++] as number;
      let strip = c & 127;
      while (c & 128) {
        c = buf[pos++] as number;
        strip = ((strip + 1) << 7) + (c & 127);
      }
      const end = buf.indexOf(0, pos);
      if (end < 0) return out;
      path = Buffer.concat([previous.subarray(0, previous.length - strip), buf.subarray(pos, end)]);
      pos = end + 1;
    } else {
      const end = buf.indexOf(0, pos);
      if (end < 0) return out;
      path = buf.subarray(pos, end);
      pos = start + ((end - start + 8) & ~7);
    }
    previous = path;
    if ((mode & 0o170000) === GITLINK) out.push(path.toString("utf8"));
  }
  return out;
}

/** The gitlinks of the work tree at `workspace` whose checkout has a `.git` (of any kind) now. */
export function populatedGitlinks(workspace: string): Set<string> {
  const out = new Set<string>();
  for (const rel of gitlinkPaths(join(workspace, ".git", "index"))) {
    if (rel.split("/").some((c) => c === ".." || c === "." || c === "")) continue;
    if (lstatOrUndefined(join(workspace, rel, ".git"))) out.add(rel);
  }
  return out;
}

/**
 * After a command in a writable workspace: a submodule that gained a `.git` during it (the command
 * ran `git init sub && git add sub`, so no mount covered it) would run its config's programs through
 * the user's next `git status`. Its `.git` is renamed aside; returns the messages to show.
 */
export function quarantineNewGitlinks(workspace: string, before: ReadonlySet<string>): string[] {
  const notes: string[] = [];
  for (const rel of populatedGitlinks(workspace)) {
    if (before.has(rel)) continue;
    const dotGit = join(workspace, rel, ".git");
    const aside = `${dotGit}.chatcli-quarantine-${Date.now().toString(36)}`;
    try {
      renameSync(dotGit, aside);
      notes.push(
        `chatcli: ${rel}/.git, a repository this command registered as a submodule, was renamed to ${rel}/${basename(aside)} (its config could run programs through your next git status)`,
      );
    } catch (error) {
      notes.push(`chatcli: ${rel}/.git could not be moved aside (${(error as Error).message})`);
    }
  }
  return notes;
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
