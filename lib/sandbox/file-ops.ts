/**
 * The file-system work of chatcli's own file tools (read_file, write_file, patch_file, multipatch,
 * list_directory, search_files), done through the openat-style walk (walk.ts). The same code runs in
 * the sandboxed file worker (file-worker.ts) — where the mounts also stand — and, when no OS sandbox
 * is in force, in chatcli itself. Every operation takes an absolute path and a guard; none follows a
 * link out of the workspace, none opens a path twice.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import {
  type FileOps,
  type Kind,
  type ListReply,
  type ListRequest,
  openNoFollow,
  READ_FLAGS,
  type ReadReply,
  type ReadRequest,
  readAll,
  type SearchRequest,
  type WriteReply,
  type WriteRequest,
} from "./file-io.ts";
import { listEntry, searchEntry } from "./file-tree.ts";
import { disableRepository } from "./repo-disable.ts";
import { at, type Dir, type Entry, type FileGuard, Refusal, withEntry } from "./walk.ts";

export type {
  FileOps,
  Kind,
  ListReply,
  ListRequest,
  ReadReply,
  ReadRequest,
  SearchRequest,
  WriteReply,
  WriteRequest,
};
export { openNoFollow, READ_FLAGS, readAll };

const EMPTY = new Uint8Array(0);

function kindOf(st: Stats | undefined): Kind {
  if (!st) return "missing";
  return st.isFile() ? "file" : st.isDirectory() ? "dir" : "other";
}

function writeAll(fd: number, data: Uint8Array): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done);
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

export function readEntry(guard: FileGuard, req: ReadRequest): ReadReply {
  return withEntry(req.path, guard, { write: false }, (e) => {
    const kind = kindOf(e.stat);
    const reply = { kind, path: e.path, size: 0, bytes: EMPTY, windowed: false };
    if (kind !== "file" || !e.stat) return reply;
    if (req.statOnly) return { ...reply, size: e.stat.size };
    const fd = openNoFollow(e.dir, e.name, READ_FLAGS);
    if (fd === undefined) return "retry";
    try {
      const st = fstatSync(fd);
      if (!sameFile(st, e.stat)) return "retry";
      const windowed = st.size > req.wholeMax;
      const want = windowed ? req.window : st.size;
      const from = windowed && req.fromEnd ? st.size - want : 0;
      return { ...reply, size: st.size, bytes: readAll(fd, want, from), windowed };
    } finally {
      closeSync(fd);
    }
  });
}

/** Replaces `name` in `dir` by a temp file renamed over it (a hard link elsewhere is broken, not written through). */
function replaceIn(dir: Dir, name: string, data: Uint8Array, mode: number): void {
  const tmp = `.${name}.${Math.random().toString(16).slice(2, 14)}.tmp`;
  const fd = openNoFollow(
    dir,
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
    mode,
  );
  if (fd === undefined) throw new Refusal(`${join(dir.path, name)}: could not create a temp file`);
  try {
    try {
      writeAll(fd, data);
      fchmodSync(fd, mode);
    } finally {
      closeSync(fd);
    }
    renameSync(at(dir, tmp), at(dir, name));
  } catch (error) {
    try {
      unlinkSync(at(dir, tmp));
    } catch {
      // already gone
    }
    throw error;
  }
}

function writeExisting(e: Entry, st: Stats, req: WriteRequest): "retry" | undefined {
  const fd = openNoFollow(e.dir, e.name, READ_FLAGS);
  if (fd === undefined) return "retry";
  let now: Stats;
  let before: Uint8Array | undefined;
  try {
    now = fstatSync(fd);
    if (!sameFile(now, st) || !now.isFile()) return "retry";
    if (req.append && now.nlink > 1) before = readAll(fd, now.size);
  } finally {
    closeSync(fd);
  }
  const mode = now.mode & 0o7777;
  if (req.append && now.nlink <= 1) {
    const w = openNoFollow(e.dir, e.name, constants.O_WRONLY | constants.O_APPEND);
    if (w === undefined) return "retry";
    try {
      if (!sameFile(fstatSync(w), now)) return "retry";
      writeAll(w, req.data);
    } finally {
      closeSync(w);
    }
    return undefined;
  }
  replaceIn(e.dir, e.name, before ? Buffer.concat([before, req.data]) : req.data, mode);
  return undefined;
}

export function writeEntry(guard: FileGuard, req: WriteRequest): WriteReply {
  const opts = { write: true, createParents: !req.existingOnly };
  return withEntry(req.path, guard, opts, (e) => {
    if (e.name === "." || (e.stat && !e.stat.isFile()))
      throw new Refusal(`${e.path} is not a regular file`);
    if (!e.stat) {
      if (req.existingOnly) throw new Refusal(`${e.path} does not exist or is not a regular file`);
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
      const fd = openNoFollow(e.dir, e.name, flags, 0o666);
      if (fd === undefined) return "retry";
      try {
        writeAll(fd, req.data);
      } finally {
        closeSync(fd);
      }
      return { change: "created" as const, path: e.path };
    }
    if (writeExisting(e, e.stat, req) === "retry") return "retry";
    return { change: "modified" as const, path: e.path };
  });
}

/** The file operations done here, in this process (no OS sandbox, or inside the worker). */
export function directFileOps(guard: FileGuard): FileOps {
  return {
    read: async (req) => readEntry(guard, req),
    write: async (req) => writeEntry(guard, req),
    list: async (req) => listEntry(guard, req),
    search: (req, signal) => searchEntry(guard, req, signal),
    disableRepository: async (req) => disableRepository(guard, req),
  };
}
