import type { MemoryBackend } from "../agent/types.ts";
import type { Ctx, Env } from "../core/ctx.ts";
import type { ChatMessage } from "../llm/types.ts";
import { scheduleCompactionIfDue } from "../memory/compact.ts";
import { memoryModeOf } from "../memory/config.ts";
import { extractAfterRun } from "../memory/extract.ts";
import { otherToolNotice } from "../memory/foreign.ts";
import { extractionChain } from "../memory/llm-chain.ts";
import { memoryForPrompt } from "../memory/prompt.ts";
import { openMemory } from "../memory/store.ts";
import { runMemoryTool } from "../memory/tool.ts";
import { recordReplSession } from "../memory/tracking.ts";
import { spawnSelfCompaction } from "../run/memory.ts";
import type { UsageMeter } from "./live-meter.ts";
import { MemoryWorker } from "./memory-worker.ts";

/** What the REPL needs from lib/memory: prompt text, the /memory command, the tool backend, the worker. */
export interface ReplMemory {
  forPrompt(
    input: string,
    history: readonly ChatMessage[],
  ): Promise<{ stable?: string; volatile?: string } | undefined>;
  command(args: string, signal: AbortSignal): Promise<string>;
  backend?: MemoryBackend;
  nudge(history: readonly ChatMessage[]): void;
  /** An opened conversation's messages are not extracted again. */
  baseline(history: readonly ChatMessage[]): void;
  /** Starts the worker's 3-minute ticker over the live history (long sessions between turns). */
  startTicker(history: () => readonly ChatMessage[]): void;
  drainNotices(): string[];
  stop(): Promise<void>;
}

const COMPACTION_POLL_MS = 10 * 60_000;

/** lib/memory for the REPL: full-mode retrieval each turn, /memory via the real command, a background worker. */
export function createReplMemory(input: {
  ctx: Ctx;
  env: Env;
  workspace: string;
  model?: string;
  configModel?: string;
  /** Counts the extraction requests for `/cost`. */
  meter?: UsageMeter;
  /** `/memory <args>`: the real `chatcli memory` command, run in-process (commands/ owns it). */
  command: (args: string, signal: AbortSignal) => Promise<string>;
}): ReplMemory {
  const { ctx, env, workspace } = input;
  const options = { env, cwd: ctx.cwd, workspace, now: ctx.now };
  // usage_stats.json counts REPL sessions and their average length, shared with the Go ChatCLI.
  const started = ctx.now().getTime();
  const sessionStart = recordReplSession(openMemory(options)).catch(() => {});
  const worker = new MemoryWorker({
    now: ctx.now,
    async extract(segment, signal) {
      const llm = await extractionChain(env, {
        fetch: ctx.fetch,
        model: input.model,
        configModel: input.configModel,
        onRequest: (ref, usage) => {
          input.meter?.request("memory");
          if (usage) input.meter?.add(ref, usage, "memory");
        },
      });
      const result = await extractAfterRun({
        ...options,
        messages: segment,
        llm,
        timeoutMs: 60_000,
        feature: "chat",
        signal,
      });
      if (result.queued)
        throw new Error("extraction failed; the segment is queued in memory/pending");
      if (result.factsWritten > 0) return `memory: +${result.factsWritten} fact(s)`;
      return result.dropped ? `memory: extraction reply dropped (${result.dropped})` : undefined;
    },
  });
  // Cron-style compaction for long sessions: checked after turns (at most every 10 minutes here,
  // every 6 h on disk); when due it runs detached, like after a one-shot run.
  let lastCheck = Number.NEGATIVE_INFINITY;
  let scheduling: Promise<unknown> = Promise.resolve();
  const maybeCompact = () => {
    const now = ctx.now().getTime();
    if (now - lastCheck < COMPACTION_POLL_MS || memoryModeOf(env) === "off") return;
    lastCheck = now;
    scheduling = spawnSelfCompaction(ctx, env)
      .then((spawn) => scheduleCompactionIfDue(openMemory(options), spawn))
      .catch(() => false);
  };
  // the held other-tool facts are told once per session (lib/memory/foreign.ts)
  const notices: string[] = [];
  let heldTold = false;
  const backendCall = async (cmd: string, args: Record<string, unknown>, source?: string) => {
    const outcome = await runMemoryTool(options, { cmd, args }, { source });
    if (outcome.isError) throw new Error(outcome.text);
    return outcome.text;
  };
  return {
    async forPrompt(turnInput, history) {
      const recent = history
        .slice(-4)
        .map((m) => m.content)
        .join("\n");
      const result = await memoryForPrompt({
        ...options,
        mode: memoryModeOf(env) === "off" ? "off" : "full",
        query: `${recent}\n${turnInput}`,
        surface: "chat",
      });
      if (result.heldOtherTool && !heldTold) {
        heldTold = true;
        notices.push(otherToolNotice(result.heldOtherTool));
      }
      return { stable: result.stable, volatile: result.volatile };
    },
    command: async (args, signal) => {
      await sessionStart;
      return input.command(args, signal);
    },
    backend: {
      remember: (content, category, source) =>
        backendCall("remember", { content, category }, source),
      profile: (fields) => backendCall("profile", { fields }),
      forget: (match) => backendCall("forget", { match }),
      recall: (query) => backendCall("recall", { query: query ?? "" }),
    },
    nudge: (history) => {
      worker.nudge(history);
      maybeCompact();
    },
    baseline: (history) => worker.baseline(history.length),
    startTicker: (history) => worker.startTicker(history),
    drainNotices: () => [...notices.splice(0), ...worker.drainNotices()],
    stop: async () => {
      await worker.stop();
      await scheduling;
      await sessionStart;
      const seconds = (ctx.now().getTime() - started) / 1000;
      await recordReplSession(openMemory(options), seconds).catch(() => {});
    },
  };
}
