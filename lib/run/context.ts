/**
 * How a run plugs the loop into the rest of lib: the bootstrap system context, sessions with
 * checkpoints and file snapshots, automatic compaction, memory and pricing. The loop itself knows
 * none of them (it only sees hooks).
 */
import { join } from "node:path";
import { corePrompt, needsTextTools } from "../agent/prompts.ts";
import type { AgentHooks } from "../agent/types.ts";
import { loadAttachments } from "../bootstrap/attachments.ts";
import { buildSystemContext } from "../bootstrap/context.ts";
import { corePromptFor } from "../bootstrap/core-prompt.ts";
import { extractPathHints } from "../bootstrap/rules.ts";
import { memoryModeFor } from "../bootstrap/show.ts";
import type { Env } from "../core/ctx.ts";
import { CompactionGuard } from "../history/compact.ts";
import { autosaveEnabled, openSession, type Session } from "../history/session.ts";
import { sessionDataDir } from "../history/session-file.ts";
import { needsCompaction } from "../history/tokens.ts";
import { costOf } from "../llm/cost.ts";
import { overflowReport } from "../llm/errors.ts";
import type { ModelRef } from "../llm/models.ts";
import type { ChatMessage, Provider, SystemBlock, Usage } from "../llm/types.ts";
import { emptyUsage } from "../llm/types.ts";
import { type BootstrapFileInfo, type Emit, ev } from "../output/events.ts";
import { compactForRequest } from "./compaction.ts";
import type { RunMemory } from "./memory.ts";

/** The loop's mode: ask has no tools (chat's turns too); agent and coder have theirs. */
export type LoopMode = "ask" | "agent" | "coder";

export interface SystemInput {
  env: Env;
  cwd: string;
  now: () => Date;
  mode: LoopMode;
  /** The input, for rule selection (paths it names) and memory retrieval. */
  input: string;
  extraSystem?: string;
  files: readonly string[];
  bare: boolean;
  ref: ModelRef;
  memory?: RunMemory;
  /** Blocks from extensions (skills index, MCP servers), after the tool catalogue. */
  extensionBlocks?: Array<{ id: string; text: string }>;
  /** Skill bodies this input activates: volatile, at the end. */
  extensionContext?: Array<{ id: string; text: string }>;
}

/** The system blocks, stable first (cached), volatile last, and the bootstrap files they came from. */
export async function buildSystemBlocks(w: SystemInput): Promise<{
  blocks: SystemBlock[];
  bootstrapFiles: BootstrapFileInfo[];
  warnings: Array<{ code: string; message: string }>;
}> {
  const attached = loadAttachments([...w.files], w.cwd, { env: w.env });
  const ask = w.mode === "ask";
  const memoryMode = ask ? memoryModeFor(w.env, "ask") : undefined;
  const memory =
    w.bare || !w.memory || memoryMode === "off"
      ? undefined
      : await w.memory.prompt(w.input, ask ? "chat" : "agent", ask ? memoryMode : undefined);
  const hints = [...attached.files.map((f) => f.path), ...extractPathHints(w.input)];
  const context = await buildSystemContext({
    env: w.env,
    cwd: w.cwd,
    now: w.now(),
    mode: w.mode,
    corePrompt:
      w.mode === "ask"
        ? corePromptFor("ask")
        : corePrompt(w.mode, { textTools: needsTextTools(w.ref.provider) }).text,
    memory,
    attachments: attached.files,
    touchedPaths: hints,
    bare: w.bare,
  });
  const blocks = [...context.blocks];
  // extensions' stable text sits in the cached prefix, after the core prompt and tool catalogue
  const volatileAt = blocks.findIndex((b) => !b.cache);
  const extra = (w.extensionBlocks ?? []).map((b) => ({ ...b, cache: true }));
  blocks.splice(volatileAt < 0 ? blocks.length : volatileAt, 0, ...extra);
  for (const b of w.extensionContext ?? []) blocks.push({ ...b, cache: false });
  if (w.extraSystem?.trim()) {
    blocks.push({
      id: "user_system",
      text: `## Additional instructions\n\n${ask ? w.extraSystem : w.extraSystem.trim()}`,
      cache: false,
    });
  }
  const bootstrapFiles: BootstrapFileInfo[] = [
    ...context.files.map(({ name, path, scope, bytes }) => ({ name, path, scope, bytes })),
    ...attached.files.map(({ name, path, bytes }) => ({
      name,
      path,
      scope: "attachment" as const,
      bytes,
    })),
  ];
  return { blocks, bootstrapFiles, warnings: [...attached.warnings, ...context.warnings] };
}

export interface SessionSpec {
  name?: string;
  continueLatest?: boolean;
  /** Write nothing (with a name: read it, do not save). */
  ephemeral?: boolean;
}

/** Whether a run keeps its session on disk: a name, -c, or autosave outside CI; never ephemeral. */
export function keepsSession(env: Env, spec: SessionSpec): boolean {
  return (
    spec.ephemeral !== true &&
    (spec.name !== undefined || spec.continueLatest === true || autosaveEnabled(env))
  );
}

/** Opens the run's session (`--session NAME`, `-c`, a new autosave one, or in memory). */
export function openRunSession(
  ctx: { env: Env; cwd: string; now: () => Date; redactEnv?: Env },
  workspace: string,
  spec: SessionSpec,
): Promise<Session> {
  return openSession(ctx, {
    name: spec.name,
    continueLatest: spec.continueLatest,
    ephemeral: !keepsSession(ctx.env, spec),
    workspace,
  });
}

export interface HookInput {
  env: Env;
  ref: ModelRef;
  provider: Provider;
  emit: Emit;
  session?: Session;
  /** The user's input of this turn (kept verbatim by compaction; the checkpoint's label). */
  task: string;
  noAutoCompact?: boolean;
  /** Take a checkpoint before each request (agent); the REPL and ask take theirs per turn. */
  checkpointPerRequest: boolean;
  /** Messages kept verbatim at the end by compaction (agent 8; ask the default). */
  keepLast?: number;
  memory?: RunMemory;
  /**
   * Fires PreCompact / PostCompact hooks around an automatic compaction; `trigger` as in Go: `auto`
   * (the threshold), `recovery` (after the provider's context-length error).
   */
  fire?: (type: "PreCompact" | "PostCompact", trigger: "auto" | "recovery") => Promise<void>;
}

/**
 * Per-request hooks: a checkpoint of the conversation before each request, automatic compaction when
 * the history passes the threshold, and a snapshot of each file a tool is about to change.
 */
export function loopHooks(w: HookInput): AgentHooks {
  const guard = new CompactionGuard();
  // Messages of earlier runs were extracted to memory at the end of their run; this run's messages
  // that compaction drops mid-run are queued for the extraction at the end of this one.
  const messageKey = (m: ChatMessage) => `${m.role}\u0000${m.content}\u0000${m.tool_call_id ?? ""}`;
  const earlier = new Set((w.session?.messages ?? []).map(messageKey));
  const beforeDrop = async (dropped: ChatMessage[]) => {
    await w.memory?.queueDropped(dropped.filter((m) => !earlier.has(messageKey(m))));
  };
  const compact = async (
    messages: ChatMessage[],
    signal: AbortSignal,
    afterOverflowError: boolean,
    charge: (usage: Usage) => void,
    error?: unknown,
  ) => {
    if (w.noAutoCompact) return undefined;
    const model = { provider: w.ref.provider, model: w.ref.model };
    const due = afterOverflowError || needsCompaction(messages, model, w.env);
    const trigger = afterOverflowError ? "recovery" : "auto";
    if (due) await w.fire?.("PreCompact", trigger);
    const result = await compactForRequest(messages, {
      ref: w.ref,
      env: w.env,
      provider: w.provider,
      emit: w.emit,
      guard,
      signal,
      ...(w.keepLast !== undefined ? { keepLast: w.keepLast } : {}),
      beforeDrop,
      // This run's task is kept verbatim even when the session had an earlier one.
      ...(w.checkpointPerRequest
        ? { isTask: (m: ChatMessage) => m.role === "user" && m.content === w.task }
        : {}),
      afterOverflowError,
      overflow: overflowReport(error),
      onUsage: charge,
    });
    if (due && result !== messages) await w.fire?.("PostCompact", trigger);
    return result;
  };
  return {
    async beforeRequest(messages, turn, signal, charge) {
      const session = w.session;
      if (session) session.replaceTurns(messages);
      if (session && w.checkpointPerRequest) {
        const record = await session.checkpoint(turn === 1 ? w.task : `${w.task} (turn ${turn})`);
        w.emit(ev("checkpoint.created", { id: record.id, turn, messages: messages.length }));
      }
      return (await compact(messages, signal, false, charge)) ?? messages;
    },
    async onContextOverflow(messages, signal, error, charge) {
      const smaller = await compact(messages, signal, true, charge, error);
      return smaller === messages ? undefined : smaller;
    },
    async beforeFileChange(absPath) {
      await w.session?.snapshotFile(absPath);
    },
  };
}

/** USD cost of one request's usage; undefined when the model has no price (the envelope says so). */
export function costFunction(ref: ModelRef): ((usage: Usage) => number | null) | undefined {
  if (costOf(ref, emptyUsage()) === null) return undefined;
  return (usage) => costOf(ref, usage);
}

/** Where web_fetch saves large bodies: the session's folder, else the OS temp dir. */
export function scratchDirFor(env: Env, session: Session | undefined): string | undefined {
  const name = session?.name;
  if (!name || session.ephemeral) return undefined;
  return join(sessionDataDir(env, name), "scratch");
}
