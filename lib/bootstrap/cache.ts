import { readFileSync, statSync } from "node:fs";
import { type Located, locateConfined, readConfined } from "../core/confined.ts";

/** What one read through the cache gave. */
export type CachedRead =
  | { kind: "ok"; content: string; bytes: number; mtimeMs: number; truncated: boolean }
  | { kind: "missing" }
  | { kind: "unreadable"; message: string }
  /** `confine` was given and the file (or a parent directory) is a link leading out of it. */
  | { kind: "outside"; target: string };

interface Entry {
  content: string;
  bytes: number;
  mtimeMs: number;
  size: number;
  truncated: boolean;
  maxBytes: number;
}

/**
 * The in-process mtime+size cache of bootstrap and rule files. Create one per run (or per REPL
 * session) and pass it to every build: later builds only `stat` and re-read what changed.
 */
export class BootstrapCache {
  private readonly entries = new Map<string, Entry>();
  /** Number of reads served from the cache (for tests and `--verbose`). */
  hits = 0;
  /** Number of reads that went to disk. */
  misses = 0;

  /**
   * Reads a text file, capped at `maxBytes` (cut on a UTF-8 boundary), through the cache. With
   * `confine` (the workspace root, for a file the checkout ships) a link leading out of it is not
   * read (lib/core/confined.ts).
   */
  read(path: string, maxBytes: number, confine?: string): CachedRead {
    let mtimeMs: number;
    let size: number;
    let real = path;
    let where: Located | undefined;
    if (confine !== undefined) {
      where = locateConfined(path, confine);
      if (where.kind === "missing") {
        this.entries.delete(path);
        return { kind: "missing" };
      }
      if (where.kind === "outside") {
        this.entries.delete(path);
        return where;
      }
      real = where.real;
    }
    try {
      const info = statSync(real);
      if (info.isDirectory()) return { kind: "unreadable", message: `${path} is a directory` };
      mtimeMs = info.mtimeMs;
      size = info.size;
    } catch (error) {
      this.entries.delete(path);
      const code = (error as { code?: string }).code;
      if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
      return { kind: "unreadable", message: errorMessage(error) };
    }
    const cached = this.entries.get(path);
    if (
      cached &&
      cached.mtimeMs === mtimeMs &&
      cached.size === size &&
      cached.maxBytes === maxBytes
    ) {
      this.hits++;
      return { kind: "ok", ...pick(cached) };
    }
    this.misses++;
    let raw: Buffer;
    if (confine !== undefined) {
      // located above: each realpath is ~10 µs, five per workspace file before (issue 23)
      const read = readConfined(path, confine, undefined, where);
      if (read.kind !== "ok") {
        this.entries.delete(path);
        return read;
      }
      raw = read.raw;
    } else {
      try {
        raw = readFileSync(path);
      } catch (error) {
        this.entries.delete(path);
        return { kind: "unreadable", message: errorMessage(error) };
      }
    }
    const truncated = raw.length > maxBytes;
    const content = truncated ? decodeCut(raw, maxBytes) : raw.toString("utf8");
    const entry: Entry = { content, bytes: raw.length, mtimeMs, size, truncated, maxBytes };
    this.entries.set(path, entry);
    return { kind: "ok", ...pick(entry) };
  }

  /**
   * Whether any file read so far changed on disk since (mtime or size differ, or it vanished).
   * Files created after the last build are not seen here; the next build picks them up.
   */
  isStale(): boolean {
    for (const [path, entry] of this.entries) {
      try {
        const info = statSync(path);
        if (info.mtimeMs !== entry.mtimeMs || info.size !== entry.size) return true;
      } catch {
        if (entry.content !== "") return true;
      }
    }
    return false;
  }

  /** Forgets everything: the next build re-reads every file. */
  invalidate(): void {
    this.entries.clear();
  }

  /** Number of files held. */
  get size(): number {
    return this.entries.size;
  }
}

function pick(entry: Entry) {
  return {
    content: entry.content,
    bytes: entry.bytes,
    mtimeMs: entry.mtimeMs,
    truncated: entry.truncated,
  };
}

/** Decodes the first `max` bytes, stepping back so a multi-byte UTF-8 character is never split. */
function decodeCut(raw: Buffer, max: number): string {
  let end = max;
  while (end > 0 && ((raw[end] ?? 0) & 0xc0) === 0x80) end--;
  return raw.subarray(0, end).toString("utf8");
}

function errorMessage(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return e.code ? `${e.code}: ${e.message ?? ""}`.trim() : String(e.message ?? error);
}
