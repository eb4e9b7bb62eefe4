import { mkdir, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { Ctx } from "../core/ctx.ts";
import { ChatcliError, UsageError } from "../core/errors.ts";
import { readJsonFile, readTextIfExists, toGoJson, withLock, writeFileAtomic } from "../core/fs.ts";
import { localParts } from "../core/local-time.ts";
import { configuredSecrets, redact, redactDeep } from "../core/redact.ts";
import { envBool } from "../core/settings.ts";
import type { ChatMessage } from "../llm/types.ts";
import {
  type CheckpointRecord,
  CheckpointStore,
  checkpointLabel,
  MAX_CHECKPOINTS,
  type SessionState,
} from "./checkpoints.ts";
import { parseJsonStrict } from "./formats.ts";
import {
  deriveTitle,
  parseSessionDoc,
  type SessionDoc,
  sessionDataDir,
  sessionFilePath,
  sessionJson,
  validateSessionName,
} from "./session-file.ts";
import { latestSessionForWorkspace } from "./session-list.ts";
import { fileHash, fileStamp, mergeHistories } from "./session-merge.ts";
import { repairMessage, repairToolPairs } from "./tool-pairs.ts";

export type SessionCtx = Pick<Ctx, "env" | "cwd" | "now"> & {
  /** `env` plus the values of ignored settings (an untrusted `.env`): redacted from the file too. */
  redactEnv?: Ctx["env"];
};

/** Something opening or saving a session had to say: a warning of the run's envelope. */
export interface SessionWarning {
  code: "session_quarantined" | "no_earlier_session" | "history_repaired";
  message: string;
}

export interface OpenSessionOptions {
  /** Create or continue this named session. */
  name?: string;
  /** `-c`: the latest session of this workspace (a new one when there is none). */
  continueLatest?: boolean;
  /** Write nothing to disk (checkpoints live in memory). */
  ephemeral?: boolean;
  /** Workspace root the session belongs to (default: cwd). */
  workspace?: string;
  /**
   * An existing file that does not parse is an error (exit 2 with the JSON error's position) and is
   * left where it is: for commands that only read or rewrite an existing session (compact, rewind, show).
   */
  strict?: boolean;
}

/**
 * One conversation: the unified history of chat, agent and coder, its file and its checkpoints.
 * Lifecycle in a run: `openSession` → per LLM request `checkpoint(userInput)` (before appending that
 * turn's messages) → tools call `snapshotFile(path)` before writing a file → `append(...)` → `save()`
 * (also on SIGINT/SIGTERM). Ephemeral sessions keep checkpoints in memory and write nothing.
 */
export class Session {
  messages: ChatMessage[];
  title: string;
  /** Warnings from opening and saving (a quarantined file, a missing `-c` session, a repair). */
  readonly warnings: SessionWarning[] = [];
  readonly store: CheckpointStore;
  private extra: Record<string, unknown>;
  private readonly pending = new Set<string>();
  private readonly secrets: string[];
  /** The file's version when last read or written, and the history it held then. */
  private stamp: string | undefined;
  private base: ChatMessage[] = [];

  constructor(
    private readonly ctx: SessionCtx,
    /** The session id (envelope `session_id`); null only for an unnamed ephemeral session. */
    readonly name: string | null,
    readonly ephemeral: boolean,
    readonly workspace: string,
    readonly isNew: boolean,
    doc: { title: string; messages: ChatMessage[]; extra: Record<string, unknown> },
  ) {
    this.messages = doc.messages;
    this.extra = doc.extra;
    this.secrets = configuredSecrets(ctx.redactEnv ?? ctx.env);
    // A file without a title (ChatCLI's legacy arrays) keeps the one `sessions list` showed, taken
    // from its first question, even after compaction or a rewind replaces that message.
    this.title = doc.title || this.derivedTitle();
    const persistent = !ephemeral && name !== null;
    this.store = new CheckpointStore(
      persistent ? sessionDataDir(ctx.env, name) : null,
      this.secrets,
    );
  }

  /** `~/.chatcli/sessions/<name>.json`, or null when ephemeral. */
  get path(): string | null {
    return this.ephemeral || this.name === null ? null : sessionFilePath(this.ctx.env, this.name);
  }

  append(...messages: ChatMessage[]): void {
    this.messages.push(...messages);
  }

  /** Replaces the whole history (after compaction or a rewind). */
  replaceMessages(messages: ChatMessage[]): void {
    this.messages = messages;
  }

  /**
   * Replaces the conversation after a turn whose request left the system messages out (the system
   * prompt is rebuilt each turn): the session's own system messages — the Go REPL's
   * `[ACTIVE MODE: /agent]` prompts among them — stay in front instead of being dropped from the file.
   */
  replaceTurns(messages: ChatMessage[]): void {
    if (messages.some((m) => m.role === "system")) {
      this.messages = messages;
      return;
    }
    this.messages = [...this.messages.filter((m) => m.role === "system"), ...messages];
  }

  /** Writes the session (v2, redacted, atomic, 0600, under a lock) and chatcli's state beside it. */
  async save(): Promise<void> {
    const path = this.path;
    if (path === null) return;
    // ChatCLI creates the sessions dir 0700 (files 0600); an existing dir keeps its mode.
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await withLock(path, async () => {
      if ((await fileStamp(path)) !== this.stamp) await this.adoptConcurrentTurns();
      // never write a history a provider would reject: each tool call has exactly one result
      const repair = repairToolPairs(this.messages);
      const note = repairMessage(repair, `session ${JSON.stringify(this.name)} (saving)`);
      if (note) this.warnings.push({ code: "history_repaired", message: note });
      this.messages = repair.messages;
      const doc = sessionJson({
        title: this.title || this.derivedTitle(),
        messages: this.messages,
        extra: this.extra,
      });
      this.title = doc["title"] as string;
      await writeFileAtomic(path, toGoJson(redactDeep(doc, this.secrets)));
      this.markSynced(await fileStamp(path));
    });
    await this.store.update((state) => this.syncState(state));
  }

  /** Records the on-disk version this history corresponds to (see save). */
  markSynced(stamp: string | undefined): void {
    this.stamp = stamp;
    this.base = this.messages.slice();
  }

  /** Another process saved this session since we read it: keep its turns before ours. */
  private async adoptConcurrentTurns(): Promise<void> {
    const disk = await loadSessionDoc(this.ctx, this.name as string, this.warnings);
    if (!disk) return;
    const merged = mergeHistories(this.base, this.messages, disk.messages, this.secrets);
    if (merged) this.messages = merged;
  }

  private async syncState(state: SessionState): Promise<void> {
    state.workspace = this.workspace;
    state.updated_at = this.ctx.now().toISOString();
    for (const file of this.pending) state.tracked[file] = await fileHash(file);
    this.pending.clear();
  }

  /** The title from the first user message, redacted before it is cut (a cut secret no longer matches). */
  private derivedTitle(): string {
    const first = this.messages.find(
      (m) => m.role === "user" && !m.meta?.is_summary && m.content?.trim(),
    );
    return first
      ? deriveTitle([{ ...first, content: redact(first.content ?? "", this.secrets) }])
      : "";
  }

  /** Takes a checkpoint of the current history (call before each LLM request). */
  async checkpoint(label?: string): Promise<CheckpointRecord> {
    const lastUser = this.messages.findLast((m) => m.role === "user" && !m.meta?.is_summary);
    const hashes = await this.store.putMessages(this.messages);
    const title = this.title || this.derivedTitle();
    return this.store.update(async (state) => {
      await this.syncState(state);
      const record: CheckpointRecord = {
        id: state.next_id++,
        created_at: this.ctx.now().toISOString(),
        label: checkpointLabel(redact(label ?? lastUser?.content ?? "", this.secrets)),
        message_count: this.messages.length,
        title,
        messages: hashes,
        files: [],
      };
      state.checkpoints.push(record);
      if (state.checkpoints.length > MAX_CHECKPOINTS) {
        state.checkpoints = state.checkpoints.slice(-MAX_CHECKPOINTS);
        await this.store.collectGarbage(state);
      }
      return record;
    });
  }

  /**
   * Records a file's current state in the latest checkpoint before a tool modifies it (the first
   * snapshot per checkpoint wins). Relative paths resolve against the cwd.
   */
  /**
   * Removes checkpoint `id` when it is the newest and holds no file snapshot: a turn that failed or
   * was cancelled left the conversation as that checkpoint found it, so it would only be noise.
   */
  async dropCheckpointIfUnused(id: number): Promise<void> {
    await this.store.update((state) => {
      const last = state.checkpoints.at(-1);
      if (last?.id === id && last.files.length === 0) state.checkpoints.pop();
    });
  }

  async snapshotFile(path: string): Promise<void> {
    const abs = resolve(this.ctx.cwd, path);
    let state = await this.store.read();
    if (state.checkpoints.length === 0) {
      await this.checkpoint();
      state = await this.store.read();
    }
    const latest = state.checkpoints.at(-1);
    if (latest?.files.some((f) => f.path === abs)) return;
    // a directory is snapshotted file by file (the first snapshot of a file per checkpoint wins)
    const snaps = await this.store.snapshotTree(abs);
    await this.store.update((s) => {
      const cp = s.checkpoints.at(-1);
      if (!cp) return;
      const have = new Set(cp.files.map((f) => f.path));
      for (const snap of snaps) if (!have.has(snap.path)) cp.files.push(snap);
    });
    for (const snap of snaps)
      if (!snap.unrestorable && !snap.directory) this.pending.add(snap.path);
  }

  /** Checkpoints, oldest first. */
  async listCheckpoints(): Promise<CheckpointRecord[]> {
    return (await this.store.read()).checkpoints;
  }
}

/**
 * Whether a one-shot run given neither `--session` nor `-c` saves its conversation as `autosave-…`:
 * yes, except when `CI` is set (persistent runners would fill up) or CHATCLI_SESSION_AUTOSAVE says
 * otherwise (`true` saves in CI too, `false` never).
 */
export function autosaveEnabled(env: Ctx["env"]): boolean {
  return envBool(env, "CHATCLI_SESSION_AUTOSAVE", !env["CI"]);
}

function autosaveName(now: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  const t = localParts(now);
  return `autosave-${t.year}${p(t.month)}${p(t.day)}-${p(t.hours)}${p(t.minutes)}${p(t.seconds)}`;
}

/**
 * The first free `base`, `base-2`, … — reserved by creating its data folder (atomic), so runs that
 * start in the same second (CI matrix jobs, `xargs -P`) never share and overwrite one session.
 */
async function freeName(ctx: SessionCtx, base: string): Promise<string> {
  for (let i = 1; ; i++) {
    const name = i === 1 ? base : `${base}-${i}`;
    const taken = await stat(sessionFilePath(ctx.env, name)).then(
      () => true,
      () => false,
    );
    if (taken) continue;
    const dir = sessionDataDir(ctx.env, name);
    try {
      // private like every session dir chatcli makes (~/.chatcli and sessions/ included): 0700
      await mkdir(dirname(dir), { recursive: true, mode: 0o700 });
      await mkdir(dir, { mode: 0o700 });
      return name;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
      return name; // cannot reserve (read-only home): saving reports the problem, as before
    }
  }
}

/**
 * Loads a session file; undefined when it does not exist. A file that does not parse is moved aside
 * with a notice, or with `strict` reported as a usage error (with its position) and left untouched.
 */
export async function loadSessionDoc(
  ctx: SessionCtx,
  name: string,
  warnings: SessionWarning[] = [],
  strict = false,
) {
  const path = sessionFilePath(ctx.env, name);
  if (strict) {
    const text = await readTextIfExists(path);
    if (text === undefined || text.trim() === "") return undefined;
    let value: unknown;
    try {
      value = parseJsonStrict(text);
    } catch (error) {
      throw new UsageError(`session ${JSON.stringify(name)}: ${(error as Error).message}`, {
        reason: "bad_input",
        hint: `fix or remove ${path}`,
      });
    }
    return sessionDocOrThrow(path, value);
  }
  const read = await readJsonFile(path);
  if (read.kind === "missing") return undefined;
  if (read.kind === "corrupt") {
    warnings.push({
      code: "session_quarantined",
      message: `session file ${path} did not parse (${read.message}); moved to ${read.quarantinedTo}`,
    });
    return undefined;
  }
  return sessionDocOrThrow(path, read.value);
}

function sessionDocOrThrow(path: string, value: unknown): SessionDoc {
  const doc = parseSessionDoc(value);
  if (!doc) {
    throw new ChatcliError("bad_input", `${path} is not a ChatCLI session file`, {
      hint: "choose another session name",
    });
  }
  return doc;
}

/** Opens (or creates) a session: `--session NAME`, `-c/--continue`, `--ephemeral`, or a new autosave. */
export async function openSession(
  ctx: SessionCtx,
  options: OpenSessionOptions = {},
): Promise<Session> {
  const workspace = resolve(ctx.cwd, options.workspace ?? ".");
  const warnings: SessionWarning[] = [];
  let name = options.name;
  if (name !== undefined) validateSessionName(name);
  else if (options.continueLatest) {
    name = await latestSessionForWorkspace(ctx, workspace);
    if (name === undefined)
      warnings.push({
        code: "no_earlier_session",
        message: "-c: no earlier session for this workspace; starting a new one",
      });
  }
  // Stamp before reading: a write in between is then seen as concurrent at save, never missed.
  const stamp = name === undefined ? undefined : await fileStamp(sessionFilePath(ctx.env, name));
  const doc =
    name === undefined ? undefined : await loadSessionDoc(ctx, name, warnings, options.strict);
  if (name === undefined && !options.ephemeral) name = await freeName(ctx, autosaveName(ctx.now()));
  if (doc) {
    // a broken pair (a crash between a call and its result, another tool's file) is repaired here
    const repair = repairToolPairs(doc.messages);
    const note = repairMessage(repair, `session ${JSON.stringify(name)}`);
    if (note) warnings.push({ code: "history_repaired", message: note });
    doc.messages = repair.messages;
  }
  const session = new Session(
    ctx,
    name ?? null,
    options.ephemeral ?? false,
    workspace,
    doc === undefined,
    doc ?? { title: "", messages: [], extra: {} },
  );
  session.warnings.push(...warnings);
  session.markSynced(doc === undefined ? undefined : stamp);
  return session;
}
