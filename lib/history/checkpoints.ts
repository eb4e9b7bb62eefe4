import { createHash } from "node:crypto";
import { lstat, mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { readJsonFile, toGoJson, withLock, writeFileAtomic } from "../core/fs.ts";
import { redactDeep } from "../core/redact.ts";
import type { ChatMessage } from "../llm/types.ts";

/** At most this many checkpoints per session; the oldest are dropped. */
export const MAX_CHECKPOINTS = 20;

/** A file's state just before a tool first modified it after a checkpoint. */
export interface FileSnapshot {
  path: string;
  existed: boolean;
  /** Content hash (an object in the store); null when the file did not exist. */
  hash: string | null;
  mode?: number;
  /**
   * Directories missing when the snapshot was taken (deepest first), created for the file since:
   * a rewind that deletes the file removes them again when they are empty.
   */
  created_dirs?: string[];
  /** Why this path could not be snapshotted (a symbolic link, a huge tree): rewind says so. */
  unrestorable?: string;
  /** An empty directory of a snapshotted tree (rewind recreates it; hash is null). */
  directory?: true;
}

/** A directory a tool is about to change is snapshotted file by file up to these limits. */
export const MAX_TREE_FILES = 5000;
export const MAX_TREE_BYTES = 100 * 1024 * 1024;

/** One checkpoint: ids are stable (never reused), messages are content hashes. */
export interface CheckpointRecord {
  id: number;
  created_at: string;
  label: string;
  message_count: number;
  title: string;
  messages: string[];
  files: FileSnapshot[];
}

/** `<session>.chatcli/state.json`: chatcli's own file, versioned. */
export interface SessionState {
  version: 1;
  workspace: string | null;
  updated_at: string | null;
  next_id: number;
  checkpoints: CheckpointRecord[];
  /** The content hash (null: absent) each snapshotted file had when chatcli last left it. */
  tracked: Record<string, string | null>;
  /** Files attached to the conversation (`/context attach`), absolute paths, in order. */
  attachments?: string[];
}

export function emptyState(): SessionState {
  return {
    version: 1,
    workspace: null,
    updated_at: null,
    next_id: 1,
    checkpoints: [],
    tracked: {},
  };
}

/** Short content hash (128 bits of SHA-256, hex). */
export function contentHash(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex").slice(0, 32);
}

/** Checkpoint label: the turn's user message on one line, > 60 bytes → 57 + `...`; `(start)` when empty. */
export function checkpointLabel(text: string | undefined): string {
  const line = (text ?? "").replace(/[\r\n]+/g, " ").trim();
  if (!line) return "(start)";
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

/**
 * Content-addressed storage for checkpoints: messages and file snapshots are objects named by their
 * hash, shared between checkpoints. `dir` null keeps everything in memory (ephemeral sessions).
 */
export class CheckpointStore {
  private memoryState: SessionState = emptyState();
  private readonly memoryObjects = new Map<string, Uint8Array | string>();
  private readonly encoded = new WeakMap<ChatMessage, { hash: string; json: string }>();
  private readonly known = new Set<string>();
  private knownLoaded = false;
  private readonly fans = new Set<string>();

  constructor(
    readonly dir: string | null,
    private readonly secrets: readonly string[] = [],
  ) {}

  private get statePath(): string {
    return join(this.dir as string, "state.json");
  }

  private objectPath(hash: string): string {
    return join(this.dir as string, "objects", hash.slice(0, 2), hash);
  }

  /** Reads the state (missing or corrupt → empty; a corrupt file is quarantined). */
  async read(): Promise<SessionState> {
    if (this.dir === null) return structuredClone(this.memoryState);
    const read = await readJsonFile<SessionState>(this.statePath);
    if (read.kind !== "ok" || typeof read.value !== "object" || read.value === null) {
      return emptyState();
    }
    const state = { ...emptyState(), ...read.value };
    this.knownLoaded = true;
    for (const cp of state.checkpoints) {
      for (const h of cp.messages) this.known.add(h);
      for (const f of cp.files) if (f.hash) this.known.add(f.hash);
    }
    return state;
  }

  /** Locked read-modify-write of the state. */
  async update<T>(fn: (state: SessionState) => Promise<T> | T): Promise<T> {
    if (this.dir === null) {
      const state = structuredClone(this.memoryState);
      const out = await fn(state);
      this.memoryState = state;
      return out;
    }
    // Conversations are private: the folder is 0700 like the sessions dir (ChatCLI §5.3).
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    return withLock(this.statePath, async () => {
      const state = await this.read();
      const out = await fn(state);
      await writeFileAtomic(this.statePath, toGoJson(redactDeep(state, this.secrets)));
      return out;
    });
  }

  private async put(hash: string, data: string | Uint8Array): Promise<void> {
    if (!this.knownLoaded && this.dir !== null) await this.read();
    if (this.known.has(hash)) return;
    if (this.dir === null) this.memoryObjects.set(hash, data);
    else {
      const path = this.objectPath(hash);
      const fan = dirname(path);
      if (!this.fans.has(fan)) {
        await mkdir(fan, { recursive: true, mode: 0o700 });
        this.fans.add(fan);
      }
      // Content-addressed: an atomic write keeps a crash or a full disk from leaving a truncated object.
      await writeFileAtomic(path, data);
    }
    this.known.add(hash);
  }

  /** Stores messages (redacted), returning their hashes; unchanged messages are not rewritten. */
  async putMessages(messages: readonly ChatMessage[]): Promise<string[]> {
    const entries = messages.map((message) => {
      let entry = this.encoded.get(message);
      if (!entry) {
        const json = JSON.stringify(redactDeep(message, this.secrets));
        entry = { hash: contentHash(json), json };
        this.encoded.set(message, entry);
      }
      return entry;
    });
    if (!this.knownLoaded && this.dir !== null) await this.read();
    const fresh = [
      ...new Map(entries.filter((e) => !this.known.has(e.hash)).map((e) => [e.hash, e])).values(),
    ];
    for (let i = 0; i < fresh.length; i += 64) {
      await Promise.all(fresh.slice(i, i + 64).map((e) => this.put(e.hash, e.json)));
    }
    return entries.map((e) => e.hash);
  }

  /** Reads one object; throws when it is missing (a broken checkpoint must fail loudly). */
  async getObject(hash: string): Promise<Uint8Array> {
    if (this.dir === null) {
      const data = this.memoryObjects.get(hash);
      if (data === undefined) throw new Error(`checkpoint object ${hash} is missing`);
      return typeof data === "string" ? new TextEncoder().encode(data) : data;
    }
    try {
      return new Uint8Array(await readFile(this.objectPath(hash)));
    } catch {
      throw new Error(`checkpoint object ${hash} is missing from ${this.dir}`);
    }
  }

  /** The messages of a checkpoint, as stored. */
  async loadMessages(record: CheckpointRecord): Promise<ChatMessage[]> {
    const decoder = new TextDecoder();
    const out: ChatMessage[] = [];
    for (const hash of record.messages) {
      out.push(JSON.parse(decoder.decode(await this.getObject(hash))) as ChatMessage);
    }
    return out;
  }

  /** Stores a file's current bytes; returns its snapshot (existed false when absent). */
  async snapshot(path: string): Promise<FileSnapshot> {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(path);
    } catch {
      const missing: string[] = [];
      for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
        if (
          await stat(dir).then(
            () => true,
            () => false,
          )
        )
          break;
        missing.push(dir);
      }
      return {
        path,
        existed: false,
        hash: null,
        ...(missing.length ? { created_dirs: missing } : {}),
      };
    }
    if (!info.isFile()) throw new Error(`cannot snapshot ${path}: not a regular file`);
    const bytes = new Uint8Array(await readFile(path));
    const hash = contentHash(bytes);
    await this.put(hash, bytes);
    return { path, existed: true, hash, mode: info.mode & 0o777 };
  }

  /**
   * Snapshots a path that may be a directory (`rm -rf build`, `mv src lib`): every regular file in
   * it, so rewind can bring the tree back. A symbolic link inside, or a tree over MAX_TREE_FILES /
   * MAX_TREE_BYTES, is recorded as not restorable (and rewind says so) instead of failing the tool.
   */
  async snapshotTree(path: string): Promise<FileSnapshot[]> {
    const info = await lstat(path).catch(() => undefined);
    if (!info?.isDirectory()) {
      if (info && !info.isFile() && !info.isSymbolicLink())
        return [{ path, existed: true, hash: null, unrestorable: "not a regular file" }];
      if (info?.isSymbolicLink()) {
        const target = await stat(path).catch(() => undefined);
        if (!target?.isFile())
          return [{ path, existed: true, hash: null, unrestorable: "a symbolic link" }];
      }
      return [await this.snapshot(path)];
    }
    const entries = await readdir(path, { recursive: true, withFileTypes: true });
    const files: string[] = [];
    const links: string[] = [];
    const dirs: string[] = [];
    const parents = new Set<string>();
    for (const entry of entries) {
      const full = join(entry.parentPath, entry.name);
      parents.add(entry.parentPath);
      if (entry.isFile()) files.push(full);
      else if (entry.isSymbolicLink()) links.push(full);
      else if (entry.isDirectory()) dirs.push(full);
    }
    const empty = [path, ...dirs].filter((d) => !parents.has(d));
    let bytes = 0;
    if (files.length <= MAX_TREE_FILES)
      for (const file of files) bytes += (await stat(file).catch(() => undefined))?.size ?? 0;
    if (files.length > MAX_TREE_FILES || bytes > MAX_TREE_BYTES) {
      const size = files.length > MAX_TREE_FILES ? `${files.length} files` : `${bytes} bytes`;
      return [
        {
          path,
          existed: true,
          hash: null,
          unrestorable: `a directory of ${size} (snapshots stop at ${MAX_TREE_FILES} files, ${MAX_TREE_BYTES / 1024 / 1024} MiB)`,
        },
      ];
    }
    const out: FileSnapshot[] = [];
    for (const file of files.sort()) {
      // a file that vanished or became unreadable meanwhile is noted, never a failure
      out.push(
        await this.snapshot(file).catch((error: unknown) => ({
          path: file,
          existed: true,
          hash: null,
          unrestorable: (error as Error).message,
        })),
      );
    }
    for (const link of links.sort())
      out.push({ path: link, existed: true, hash: null, unrestorable: "a symbolic link" });
    for (const dir of empty.sort())
      out.push({ path: dir, existed: true, hash: null, directory: true });
    return out;
  }

  /** Deletes objects no checkpoint refers to any more. */
  async collectGarbage(state: SessionState): Promise<void> {
    const live = new Set<string>();
    for (const cp of state.checkpoints) {
      for (const h of cp.messages) live.add(h);
      for (const f of cp.files) if (f.hash) live.add(f.hash);
    }
    if (this.dir === null) {
      for (const hash of this.memoryObjects.keys())
        if (!live.has(hash)) this.memoryObjects.delete(hash);
    } else {
      const root = join(this.dir, "objects");
      await mkdir(root, { recursive: true, mode: 0o700 });
      for (const fan of await readdir(root)) {
        for (const name of await readdir(join(root, fan)).catch(() => [] as string[])) {
          if (!live.has(name)) await rm(join(root, fan, name), { force: true });
        }
      }
    }
    for (const hash of [...this.known]) if (!live.has(hash)) this.known.delete(hash);
  }
}
