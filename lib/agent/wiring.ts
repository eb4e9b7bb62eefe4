/**
 * How the agent loop plugs into the rest of lib: the bootstrap system context, sessions with
 * checkpoints and file snapshots, automatic compaction, memory and pricing. runAgentCli calls these;
 * the loop itself knows none of them (it only sees hooks).
 */
import { join } from "node:path";
import { loadAttachments } from "../bootstrap/attachments.ts";
import { buildSystemContext } from "../bootstrap/context.ts";
import { extractPathHints } from "../bootstrap/rules.ts";
import { detectWorkspaceRoot as detectRoot } from "../bootstrap/workspace.ts";
import type { Env } from "../core/ctx.ts";
import { CompactionGuard } from "../history/compact.ts";
import {
  autosaveEnabled,
  openSession,
  type Session,
  type SessionWarning,
} from "../history/session.ts";
import { sessionDataDir } from "../history/session-file.ts";
import { costOf } from "../llm/cost.ts";
import { overflowReport } from "../llm/errors.ts";
import type { ModelRef } from "../llm/models.ts";
import type { ChatMessage, Provider, SystemBlock, Usage } from "../llm/types.ts";
import { emptyUsage } from "../llm/types.ts";
import type { BootstrapFileInfo } from "../output/envelope.ts";
import type { Reporter } from "../output/reporter.ts";
import { compactForRequest } from "../run/compaction.ts";
import type { RunMemory } from "../run/memory.ts";
import { corePrompt, needsTextTools } from "./prompts.ts";
import type { AgentHooks, MemoryBackend } from "./types.ts";

export interface WiringContext {
  env: Env;
  cwd: string;
  now: () => Date;
  workspaceRoot: string;
  mode: "agent" | "coder";
  /** false: no checkpoint per request (the REPL takes one per user turn). */
  checkpointPerRequest?: boolean;
  /** The task, for rule selection (paths it names) and checkpoint labels. */
  task: string;
  /** `-s/--system` text, appended as its own block. */
  extraSystem?: string;
  /** `-f/--file` paths and globs, attached to the cached system context. */
  files: string[];
  /** `--bare`: no bootstrap files, no memory. */
  bare: boolean;
  memoryMode: "off" | "read" | "write";
  sessionName?: string;
  continueLatest?: boolean;
  ephemeral: boolean;
  /** Set by loadSessionHistory. */
  session?: Session;
  /** Set before agentHooks: used by automatic compaction's summariser. */
  ref?: ModelRef;
  provider?: Provider;
  noAutoCompact?: boolean;
  /** The run's memory (prompt digest, tool backend, extraction); absent when off. */
  memory?: RunMemory;
}

/** Workspace root: the nearest directory holding `.git` or `.agent`, else the cwd. */
export function detectWorkspaceRoot(cwd: string): string {
  return detectRoot(cwd);
}

/** The system blocks, stable first (cached), volatile last, and the bootstrap files they came from. */
export async function buildSystemBlocks(w: WiringContext): Promise<{
  blocks: SystemBlock[];
  bootstrapFiles: BootstrapFileInfo[];
  warnings: Array<{ code: string; message: string }>;
}> {
  const attached = loadAttachments(w.files, w.cwd, { env: w.env });
  const memory = w.bare || !w.memory ? undefined : await w.memory.prompt(w.task, "agent");
  const context = await buildSystemContext({
    env: w.env,
    cwd: w.cwd,
    now: w.now(),
    mode: w.mode,
    corePrompt: corePrompt(w.mode, { textTools: !w.ref || needsTextTools(w.ref.provider) }).text,
    memory,
    attachments: attached.files,
    touchedPaths: [...attached.files.map((f) => f.path), ...extractPathHints(w.task)],
    bare: w.bare,
  });
  const blocks = [...context.blocks];
  if (w.extraSystem?.trim()) {
    blocks.push({
      id: "user_system",
      text: `## Additional instructions\n\n${w.extraSystem.trim()}`,
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

/** The memory store behind the `memory` tool (none with --memory off or --bare). */
export async function openMemory(w: WiringContext): Promise<MemoryBackend | undefined> {
  return w.bare || w.memoryMode === "off" ? undefined : w.memory?.backend();
}

/** Opens the run's session (`--session NAME`, a new autosave one, or in-memory with --ephemeral). */
export async function loadSessionHistory(
  w: WiringContext,
): Promise<{ sessionId: string | null; history: ChatMessage[]; warnings: SessionWarning[] }> {
  const session = await openSession(
    { env: w.env, cwd: w.cwd, now: w.now },
    {
      name: w.sessionName,
      continueLatest: w.continueLatest,
      // no --session, no -c: an autosave session, except in CI (CHATCLI_SESSION_AUTOSAVE decides)
      ephemeral:
        w.ephemeral ||
        (w.sessionName === undefined && !w.continueLatest && !autosaveEnabled(w.env)),
      workspace: w.workspaceRoot,
    },
  );
  w.session = session;
  // A Go ChatCLI session's system messages (its own /agent or /coder prompt) stay in the file but
  // are not sent: this run's system prompt is chatcli's, as for ask and chat.
  const history = session.messages.filter((m) => m.role !== "system");
  return { sessionId: session.name, history, warnings: session.warnings };
}

/** Saves the run's messages into its session (no-op when ephemeral). */
export async function saveSessionHistory(w: WiringContext, messages: ChatMessage[]): Promise<void> {
  if (!w.session) return;
  w.session.replaceTurns(messages);
  await w.session.save();
}

/**
 * Per-request hooks: a checkpoint of the conversation before each request, automatic compaction when
 * the history passes the threshold, and a snapshot of each file a tool is about to change.
 */
export function agentHooks(w: WiringContext, reporter: Reporter): AgentHooks {
  const guard = new CompactionGuard();
  // Messages of earlier runs were extracted to memory at the end of their run; this run's messages
  // that compaction drops mid-run are queued for the extraction at the end of this one.
  const messageKey = (m: ChatMessage) => `${m.role}\u0000${m.content}\u0000${m.tool_call_id ?? ""}`;
  const earlier = new Set((w.session?.messages ?? []).map(messageKey));
  const beforeDrop = async (dropped: ChatMessage[]) => {
    await w.memory?.queueDropped(dropped.filter((m) => !earlier.has(messageKey(m))));
  };
  let count = 0;
  let last: number | null = null;
  const compact = async (
    messages: ChatMessage[],
    signal: AbortSignal,
    afterOverflowError: boolean,
    error?: unknown,
  ) => {
    if (w.noAutoCompact || !w.ref || !w.provider) return undefined;
    return compactForRequest(messages, {
      ref: w.ref,
      env: w.env,
      provider: w.provider,
      reporter,
      guard,
      signal,
      keepLast: 8,
      beforeDrop,
      // This run's task is kept verbatim even when the session had an earlier one.
      isTask: (m) => m.role === "user" && m.content === w.task,
      afterOverflowError,
      overflow: overflowReport(error),
    });
  };
  return {
    async beforeRequest(messages, turn, signal) {
      const session = w.session;
      if (session) session.replaceTurns(messages);
      if (session && w.checkpointPerRequest !== false) {
        const record = await session.checkpoint(turn === 1 ? w.task : `${w.task} (turn ${turn})`);
        count++;
        last = record.id;
        reporter.envelope.checkpoints = { count, last };
        reporter.event("checkpoint.created", { id: record.id, turn, messages: messages.length });
      }
      return (await compact(messages, signal, false)) ?? messages;
    },
    async onContextOverflow(messages, signal, error) {
      const smaller = await compact(messages, signal, true, error);
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
export function scratchDirFor(w: WiringContext): string | undefined {
  const name = w.session?.name;
  if (!name || w.ephemeral) return undefined;
  return join(sessionDataDir(w.env, name), "scratch");
}
