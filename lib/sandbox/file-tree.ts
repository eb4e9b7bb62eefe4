/**
 * The directory walks of list_directory and search_files (see file-ops.ts): one open directory at a
 * time, each entry opened relative to it with O_NOFOLLOW, so a link is listed but never entered and
 * a file swapped for a link is skipped, not read.
 */
import { closeSync, fstatSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import {
  type ListReply,
  type ListRequest,
  openNoFollow,
  READ_FLAGS,
  readAll,
  type SearchRequest,
} from "./file-io.ts";
import { searchWithWorker, type WorkerSearchResult } from "./search-worker.ts";
import {
  at,
  DIR_FLAGS,
  type Dir,
  type Entry,
  type FileGuard,
  linkedRefused,
  Refusal,
  readRefused,
  resolveEntry,
  withEntry,
} from "./walk.ts";

/** The directory an entry names, open (the entry's own descriptor when it is the directory itself). */
function openEntryDir(e: Entry): { dir: Dir; close: () => void } | undefined {
  if (e.name === ".") return { dir: e.dir, close: () => {} };
  const fd = openNoFollow(e.dir, e.name, DIR_FLAGS);
  if (fd === undefined) return undefined;
  return { dir: { fd, path: e.path }, close: () => closeSync(fd) };
}

function entriesOf(dir: Dir) {
  try {
    return readdirSync(at(dir, "."), { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Whether a link in `dir` leads to a protected path (it is listed, but marked). */
function linkRefused(guard: FileGuard, dir: Dir, name: string): boolean {
  try {
    return readRefused(guard, realpathSync(at(dir, name)));
  } catch {
    return false;
  }
}

export function listEntry(guard: FileGuard, req: ListRequest): ListReply {
  return withEntry(req.path, guard, { write: false }, (e) => {
    if (!e.stat?.isDirectory()) throw new Refusal(`${e.path} is not a directory`);
    const root = openEntryDir(e);
    if (!root) return "retry";
    const lines: string[] = [];
    let truncated = false;
    const skip = new Set(req.skip);
    const walk = (dir: Dir, depth: number): void => {
      const entries = entriesOf(dir)
        .filter((d) => req.hidden || !d.name.startsWith("."))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const d of entries) {
        if (lines.length >= req.maxEntries) {
          truncated = true;
          return;
        }
        const isDir = d.isDirectory();
        lines.push(`${"  ".repeat(depth)}${d.name}${isDir ? "/" : ""}`);
        const child = join(dir.path, d.name);
        if (readRefused(guard, child) || (d.isSymbolicLink() && linkRefused(guard, dir, d.name))) {
          lines[lines.length - 1] += " (protected, not listed)";
          continue;
        }
        if (!isDir || depth + 1 >= req.maxDepth || skip.has(d.name)) continue;
        const fd = openNoFollow(dir, d.name, DIR_FLAGS);
        if (fd === undefined) continue;
        try {
          walk({ fd, path: child }, depth + 1);
        } finally {
          closeSync(fd);
        }
        if (truncated) return;
      }
    };
    try {
      walk(root.dir, 0);
    } finally {
      root.close();
    }
    return { path: e.path, lines, truncated };
  });
}

/** The regular files under `root` a search reads (relative, sorted); links are not followed. */
function searchableFiles(guard: FileGuard, root: Dir, req: SearchRequest): string[] {
  const skip = new Set(req.skip);
  const globs = req.globs.map((g) => new Bun.Glob(g));
  const out: string[] = [];
  const walk = (dir: Dir, rel: string): void => {
    for (const d of entriesOf(dir)) {
      if ((!req.hidden && d.name.startsWith(".")) || skip.has(d.name)) continue;
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (readRefused(guard, join(dir.path, d.name))) continue;
      if (d.isDirectory()) {
        const fd = openNoFollow(dir, d.name, DIR_FLAGS);
        if (fd === undefined) continue;
        try {
          walk({ fd, path: join(dir.path, d.name) }, r);
        } finally {
          closeSync(fd);
        }
      } else if (d.isFile()) {
        if (globs.length && !globs.some((g) => g.match(r) || g.match(d.name))) continue;
        out.push(r);
      }
    }
  };
  walk(root, "");
  return out.sort();
}

/** Reads `rel` under `root` with no link followed on the way; undefined for anything but a small file. */
function readBeneath(
  guard: FileGuard,
  root: Dir,
  rel: string,
  max: number,
): Uint8Array | undefined {
  const parts = rel.split("/");
  const name = parts.pop() as string;
  const opened: number[] = [];
  let dir = root;
  try {
    for (const part of parts) {
      const fd = openNoFollow(dir, part, DIR_FLAGS);
      if (fd === undefined) return undefined;
      opened.push(fd);
      dir = { fd, path: join(dir.path, part) };
    }
    const fd = openNoFollow(dir, name, READ_FLAGS);
    if (fd === undefined) return undefined;
    try {
      const st = fstatSync(fd);
      if (!st.isFile() || st.size > max || linkedRefused(guard, st)) return undefined;
      return readAll(fd, st.size);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  } finally {
    for (const fd of opened) closeSync(fd);
  }
}

export async function searchEntry(
  guard: FileGuard,
  req: SearchRequest,
  signal: AbortSignal,
): Promise<WorkerSearchResult> {
  const e = resolveEntry(req.path, guard, { write: false });
  try {
    if (!e.stat?.isDirectory()) throw new Refusal(`${e.path} is not a directory`);
    const root = openEntryDir(e);
    if (!root) throw new Refusal(`${e.path} changed while it was searched; try again`);
    try {
      const files = searchableFiles(guard, root.dir, req);
      async function* texts() {
        for (const rel of files) {
          const buf = readBeneath(guard, root?.dir as Dir, rel, req.maxFileBytes);
          if (!buf || buf.subarray(0, 8000).includes(0)) continue;
          yield { rel, text: Buffer.from(buf).toString("utf8") };
        }
      }
      return await searchWithWorker(texts(), { ...req, signal });
    } finally {
      root.close();
    }
  } finally {
    e.close();
  }
}
