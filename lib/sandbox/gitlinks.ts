/**
 * The submodules (gitlinks, mode 160000) the git index of a work tree records. Their checkouts'
 * `.git` decides what the user's next `git status` runs there — it recurses into populated
 * submodules with *their* config (`core.fsmonitor`) — so the sandbox keeps those read-only too.
 * Reads the index file itself (versions 2–4), without starting git.
 */
import { readFileSync, statSync } from "node:fs";

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
