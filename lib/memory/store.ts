import { existsSync } from "node:fs";
import { join } from "node:path";
import { detectWorkspaceRoot } from "../bootstrap/workspace.ts";
import type { Env } from "../core/ctx.ts";
import {
  quarantine,
  readJsonFile,
  readTextIfExists,
  toGoJson,
  withLock,
  writeFileAtomic,
} from "../core/fs.ts";
import { configuredSecrets } from "../core/redact.ts";
import { type MemoryConfig, memoryConfig } from "./config.ts";
import {
  addFact,
  enforceCap,
  type Fact,
  type FactState,
  factToJson,
  isBuried,
  normalizeParsedFact,
  pruneTombstones,
  rankedFacts,
  renderMarkdown,
} from "./facts.ts";
import { formatGoTime, parseGoTime } from "./gotime.ts";
import { detectCategory, extractTags } from "./text.ts";

/** `now` as a Date or a clock function. */
export type Clock = Date | (() => Date);

/** What every memory operation needs: env, clock, workspace, and where one-line warnings go. */
export interface MemoryOptions {
  env: Env;
  now?: Clock;
  /** The session workspace (source_project, `(from: …)` annotations). Defaults to the one detected from `cwd`. */
  workspace?: string;
  cwd?: string;
  /** One-line warnings; `code` names the structured ones (`memory_pruned`) for `--json` envelopes. */
  warn?: (line: string, code?: string) => void;
  /** A run that only reads memory (`--memory read`, CI): nothing is written, not even access counts. */
  readOnly?: boolean;
  /** `env` plus the values of settings that were ignored (an untrusted `.env`): redacted too. */
  redactEnv?: Env;
}

/** An opened memory store (cheap: no IO until used). */
export interface Memory {
  cfg: MemoryConfig;
  env: Env;
  now: () => Date;
  workspace: string;
  warn: (line: string, code?: string) => void;
  readOnly: boolean;
}

/** Opens the store under `memoryDir(env)` (CHATCLI_HOME moves it). */
export function openMemory(options: MemoryOptions): Memory {
  const clock = options.now;
  return {
    cfg: memoryConfig(options.env, configuredSecrets(options.redactEnv ?? options.env)),
    env: options.env,
    now: typeof clock === "function" ? clock : clock ? () => clock : () => new Date(),
    workspace: options.workspace ?? (options.cwd ? detectWorkspaceRoot(options.cwd) : ""),
    warn: options.warn ?? (() => {}),
    readOnly: options.readOnly === true,
  };
}

/** Absolute path of a file in the memory dir. */
export function memPath(mem: Memory, name: string): string {
  return join(mem.cfg.dir, name);
}

/**
 * Reads a JSON file of the store. A file that does not parse — or parses to the wrong `shape` (Go
 * could not decode it either) — is quarantined with a one-line warning and treated as missing.
 */
export async function readStoreJson(
  mem: Memory,
  name: string,
  shape?: "array" | "object",
): Promise<unknown> {
  const path = memPath(mem, name);
  try {
    // read synchronously: no thread pool (nor node:fs/promises) for a `memory facts` (issue 23); a
    // store of 10k facts blocks the event loop ~3 ms, when a prompt is being built, not streamed
    const read = await readJsonFile(path, { sync: true });
    if (read.kind === "corrupt") {
      mem.warn(`memory: ${name} did not parse (${read.message}); moved to ${read.quarantinedTo}`);
    }
    if (read.kind !== "ok") return undefined;
    const v = read.value;
    const fits =
      v === null ||
      shape === undefined ||
      (shape === "array" ? Array.isArray(v) : typeof v === "object" && !Array.isArray(v));
    if (fits) return v;
    const to = await quarantine(path);
    mem.warn(`memory: ${name} is not a JSON ${shape}; moved to ${to}`);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
  return undefined;
}

/** Writes one store file atomically (0600); JSON in Go's two-space layout. */
export async function writeStoreJson(mem: Memory, name: string, value: unknown): Promise<void> {
  await writeFileAtomic(memPath(mem, name), toGoJson(value));
}

/** Runs `fn` under the lock of a store file (read-merge-write cycles of cooperating processes). */
export function lockStore<T>(mem: Memory, name: string, fn: () => Promise<T>): Promise<T> {
  // Longer than the 30 s staleness window, so a lock left by a killed process is always recovered.
  return withLock(memPath(mem, name), fn, { timeoutMs: 45_000 });
}

const INDEX = "memory_index.json";
const TOMBSTONES = "memory_tombstones.json";

async function readTombstones(mem: Memory): Promise<Map<string, string>> {
  const raw = await readStoreJson(mem, TOMBSTONES, "object");
  const out = new Map<string, string>();
  if (raw && typeof raw === "object" && !Array.isArray(raw)) {
    for (const [id, at] of Object.entries(raw)) if (typeof at === "string") out.set(id, at);
  }
  return out;
}

/** Loads the facts (migrating a legacy MEMORY.md first); no lock, tombstones honoured. */
export async function loadFacts(mem: Memory): Promise<FactState> {
  await migrateLegacy(mem);
  return readState(mem);
}

async function readState(mem: Memory): Promise<FactState> {
  const tombstones = await readTombstones(mem);
  const raw = await readStoreJson(mem, INDEX, "array");
  const facts = new Map<string, Fact>();
  if (Array.isArray(raw)) {
    for (const item of raw) {
      const fact = normalizeParsedFact(item); // `raw` was parsed here: changed in place
      if (!fact || (tombstones.size > 0 && isBuried(fact, tombstones))) continue;
      const prev = facts.get(fact.id);
      facts.set(fact.id, prev ? mergeFact(prev, fact) : fact);
    }
  }
  return { facts, tombstones };
}

/** For a fact seen twice: later last_accessed, higher access_count, higher confidence. */
export function mergeFact(a: Fact, b: Fact): Fact {
  const later = (parseGoTime(a.last_accessed) ?? 0) >= (parseGoTime(b.last_accessed) ?? 0) ? a : b;
  return {
    ...a,
    ...b,
    last_accessed: later.last_accessed,
    access_count: Math.max(a.access_count, b.access_count),
    confidence: Math.max(a.confidence ?? 0, b.confidence ?? 0),
  };
}

async function writeState(mem: Memory, state: FactState, markdown: boolean): Promise<void> {
  const now = mem.now();
  enforceCap(state, now, mem.cfg.maxFacts);
  const archived = state.archived ?? [];
  if (archived.length > 0) {
    // As Go's compaction: into the archive first; if that fails nothing is removed.
    await appendArchive(mem, archived);
    state.archived = [];
    state.pruned = (state.pruned ?? 0) + archived.length;
    mem.warn(
      `memory: ${archived.length} fact(s) over the cap of ${mem.cfg.maxFacts} (CHATCLI_MEMORY_MAX_FACTS) moved to memory_archive.json`,
      "memory_pruned",
    );
  }
  pruneTombstones(state, now.getTime());
  const tomb: Record<string, string> = {};
  for (const id of [...state.tombstones.keys()].sort())
    tomb[id] = state.tombstones.get(id) as string;
  // Like Go, the tombstones file is written when a deletion changed it, not on every index write.
  const onDisk = await readTombstones(mem);
  const same =
    onDisk.size === state.tombstones.size &&
    [...state.tombstones].every(([id, at]) => onDisk.get(id) === at);
  if (!same) await writeStoreJson(mem, TOMBSTONES, tomb);
  const ranked = rankedFacts(state.facts.values(), now.getTime());
  await writeStoreJson(mem, INDEX, ranked.map(factToJson));
  if (markdown) await writeMarkdown(mem, state);
}

/** Regenerates MEMORY.md from the facts (never the source of truth). */
export async function writeMarkdown(mem: Memory, state: FactState): Promise<void> {
  const md = renderMarkdown(state.facts.values(), mem.now().getTime(), mem.cfg.maxSize);
  await writeFileAtomic(memPath(mem, "MEMORY.md"), md);
}

/**
 * Read-modify-write of the fact index under its lock: re-reads disk (other processes' facts and
 * tombstones), applies `fn`, writes index + tombstones atomically, and MEMORY.md when asked.
 */
export async function mutateFacts<T>(
  mem: Memory,
  fn: (state: FactState) => T | Promise<T>,
  options: { markdown?: (result: T) => boolean } = {},
): Promise<T> {
  if (mem.readOnly) throw new Error("memory is read-only in this run (--memory read)");
  await migrateLegacy(mem);
  return lockStore(mem, INDEX, async () => {
    const state = await readState(mem);
    const result = await fn(state);
    await writeState(mem, state, options.markdown?.(result) ?? false);
    return result;
  });
}

/** Appends facts to `memory_archive.json` (append-only array; unknown entries kept). */
export async function appendArchive(mem: Memory, facts: readonly Fact[]): Promise<void> {
  if (facts.length === 0) return;
  await lockStore(mem, "memory_archive.json", async () => {
    const raw = await readStoreJson(mem, "memory_archive.json", "array");
    const list = Array.isArray(raw) ? raw : [];
    await writeStoreJson(mem, "memory_archive.json", [...list, ...facts.map(factToJson)]);
  });
}

/** §2.9: a MEMORY.md without memory_index.json becomes facts; the original is kept as MEMORY.md.bak. */
export async function migrateLegacy(mem: Memory): Promise<number> {
  const mdPath = memPath(mem, "MEMORY.md");
  if (mem.readOnly) return 0;
  if (existsSync(memPath(mem, INDEX)) || !existsSync(mdPath)) return 0;
  return lockStore(mem, INDEX, async () => {
    if (existsSync(memPath(mem, INDEX))) return 0;
    const original = await readTextIfExists(mdPath);
    if (original === undefined) return 0;
    const state: FactState = { facts: new Map(), tombstones: new Map() };
    const now = mem.now();
    let category: string = "general";
    for (const raw of original.split("\n")) {
      const line = raw.trim();
      if (!line) continue;
      if (line.startsWith("# ") || line.startsWith("## ")) {
        category = detectCategory(line);
        continue;
      }
      if (line.startsWith("---") || line.startsWith("===")) continue;
      let content = line;
      for (const p of ["- ", "* ", "+ "]) if (content.startsWith(p)) content = content.slice(2);
      content = content.replace(/^[0-9.) ]+/, "").trim();
      if (Buffer.byteLength(content) < 5) continue;
      addFact(
        state,
        { content, category, tags: extractTags(content), provenance: "extraction" },
        now,
        mem.cfg.maxFacts,
      );
    }
    if (original.trim() === "") {
      await writeFileAtomic(mdPath, "");
      return 0;
    }
    const { readFile, writeFile } = await import("node:fs/promises");
    await writeFile(memPath(mem, "MEMORY.md.bak"), await readFile(mdPath), { mode: 0o600 });
    await writeState(mem, state, true);
    mem.warn(
      `memory: migrated ${state.facts.size} fact(s) from MEMORY.md (original kept as MEMORY.md.bak)`,
    );
    return state.facts.size;
  });
}

/** Current time as Go writes it. */
export function nowIso(mem: Memory): string {
  return formatGoTime(mem.now());
}
