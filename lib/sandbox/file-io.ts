/**
 * The requests and replies of chatcli's file operations (file-ops.ts, file-tree.ts, the worker's
 * wire) and the two low-level reads both walks share: open without following a link, read it all.
 */
import { constants, openSync, readSync } from "node:fs";
import type { DisableReply, DisableRequest } from "./repo-disable.ts";
import type { WorkerSearchResult } from "./search-worker.ts";
import { at, type Dir } from "./walk.ts";

export type Kind = "file" | "dir" | "missing" | "other";

export interface ReadRequest {
  path: string;
  /** Files up to this size are read whole; bigger ones only a window of `window` bytes. */
  wholeMax: number;
  window: number;
  /** The window is the end of the file (tail). */
  fromEnd?: boolean;
  /** Only what is there (kind, size), no bytes. */
  statOnly?: boolean;
}

export interface ReadReply {
  kind: Kind;
  /** Where the walk ended (links expanded). */
  path: string;
  size: number;
  bytes: Uint8Array;
  windowed: boolean;
}

export interface WriteRequest {
  path: string;
  data: Uint8Array;
  append?: boolean;
  /** patch_file / multipatch: the file must exist (it is replaced, never created). */
  existingOnly?: boolean;
}

export interface WriteReply {
  change: "created" | "modified";
  path: string;
}

export interface ListRequest {
  path: string;
  maxDepth: number;
  hidden: boolean;
  maxEntries: number;
  /** Directory names listed but never entered (.git, node_modules …). */
  skip: string[];
}

export interface ListReply {
  path: string;
  lines: string[];
  truncated: boolean;
}

export interface SearchRequest {
  path: string;
  hidden: boolean;
  globs: string[];
  skip: string[];
  maxFileBytes: number;
  source: string;
  flags: string;
  context: number;
  maxResults: number;
  perFileMs: number;
}

/** What the file tools ask of the file system; in chatcli (direct) or in the sandboxed worker. */
export interface FileOps {
  read(req: ReadRequest): Promise<ReadReply>;
  write(req: WriteRequest): Promise<WriteReply>;
  list(req: ListRequest): Promise<ListReply>;
  search(req: SearchRequest, signal: AbortSignal): Promise<WorkerSearchResult>;
  /** Renames a new nested repository's `.git` out of git's way (repo-disable.ts). */
  disableRepository(req: DisableRequest): Promise<DisableReply>;
}

export const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** Opens `name` in `dir` without following a link; undefined when it became one (or vanished). */
export function openNoFollow(
  dir: Dir,
  name: string,
  flags: number,
  mode?: number,
): number | undefined {
  try {
    return openSync(at(dir, name), flags | constants.O_NOFOLLOW, mode);
  } catch (error) {
    const code = errnoOf(error);
    if (code === "ELOOP" || code === "ENOENT" || code === "ENOTDIR" || code === "EMLINK")
      return undefined;
    throw error;
  }
}

export function readAll(fd: number, size: number, at = 0): Uint8Array {
  const buf = Buffer.alloc(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, buf, got, size - got, at + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}
