import type { Env } from "../core/ctx.ts";
import { autoCompact, type CompactionGuard, type OverflowReport } from "../history/compact.ts";
import { compactionJson, describePhase, describeResult } from "../history/progress.ts";
import { providerSummarizer } from "../history/summarizer.ts";
import type { ModelRef } from "../llm/models.ts";
import type { ChatMessage, Provider, Usage } from "../llm/types.ts";
import type { Reporter } from "../output/reporter.ts";

export interface RunCompactionOptions {
  ref: ModelRef;
  env: Env;
  provider: Provider;
  reporter: Reporter;
  guard: CompactionGuard;
  signal: AbortSignal;
  /** After a provider context-length error: compact even under the threshold, to a lower target. */
  afterOverflowError?: boolean;
  /** The provider's context-length error (its words and counts), with afterOverflowError. */
  overflow?: OverflowReport;
  keepLast?: number;
  /** Messages about to be summarised away or dropped (queue them for memory extraction). */
  beforeDrop?: (messages: ChatMessage[]) => Promise<void>;
  /** Later user messages that state the task (the agent's task), kept verbatim like the first. */
  isTask?: (message: ChatMessage) => boolean;
  /** Usage of the summariser's calls, added to the run's totals. */
  onUsage?: (usage: Usage) => void;
}

/**
 * Automatic compaction before a request, with live feedback: phases on stderr, `compaction.*` events,
 * and the envelope's `compaction`. Returns the history to send (unchanged when under the threshold).
 */
export async function compactForRequest(
  messages: ChatMessage[],
  options: RunCompactionOptions,
): Promise<ChatMessage[]> {
  const { reporter } = options;
  // one message (a one-shot prompt) is not a history: cutting it is said by one warning, no report
  const quiet = messages.filter((m) => m.role !== "system").length <= 1;
  let started = false;
  const result = await autoCompact(messages, {
    model: { provider: options.ref.provider, model: options.ref.model },
    env: options.env,
    guard: options.guard,
    signal: options.signal,
    keepLast: options.keepLast,
    afterOverflowError: options.afterOverflowError,
    overflow: options.overflow,
    beforeDrop: options.beforeDrop,
    ...(options.isTask ? { isTask: options.isTask } : {}),
    summarize: providerSummarizer(options.provider, options.ref.model, (usage) =>
      options.onUsage?.(usage),
    ),
    onPhase: (phase, info) => {
      if (!started) {
        started = true;
        reporter.event("compaction.started", {
          trigger: options.afterOverflowError ? "context_length_error" : "threshold",
          ...info,
        });
      }
      reporter.event("compaction.phase", { phase, ...info });
      const line = describePhase(phase, info);
      if (line && !quiet) reporter.info(line);
    },
  });
  if (!result) {
    // A request that fits without compacting is progress: the death-spiral guard counts compactions
    // on consecutive requests (an agent run is one user turn, but may legitimately compact many times).
    if (!options.afterOverflowError) options.guard.userTurn();
    return messages;
  }
  reporter.envelope.compaction = compactionJson(result);
  reporter.event("compaction.completed", compactionJson(result));
  if (result.status === "cancelled") return messages;
  if (!quiet) reporter.info(describeResult(result));
  // Level 3 shrinks the largest messages, which can be the prompt just given: never silently.
  const asked = messages.at(-1);
  const sent = result.messages.at(-1);
  if (asked?.role === "user" && sent?.role === "user" && sent.content !== asked.content) {
    reporter.warn(
      "prompt_truncated",
      `the prompt was cut from ${asked.content.length} to ${sent.content.length} characters (head + tail) to fit the model's context window`,
    );
  }
  return result.messages;
}
