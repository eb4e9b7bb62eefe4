import type { Env } from "../core/ctx.ts";
import { autoCompact, type CompactionGuard, type OverflowReport } from "../history/compact.ts";
import { compactionJson } from "../history/progress.ts";
import { providerSummarizer } from "../history/summarizer.ts";
import type { ModelRef } from "../llm/models.ts";
import type { ChatMessage, Provider, Usage } from "../llm/types.ts";
import { type Emit, type EventOf, ev } from "../output/events.ts";

export interface RunCompactionOptions {
  ref: ModelRef;
  env: Env;
  provider: Provider;
  emit: Emit;
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
  const { emit } = options;
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
        emit(
          ev("compaction.started", {
            trigger: options.afterOverflowError ? "context_length_error" : "threshold",
            messages: count(info["messages"]) ?? messages.length,
            tokens: count(info["tokens"]),
            budget_tokens: count(info["budget_tokens"]) ?? 0,
          }),
        );
      }
      emit(phaseEvent(phase, info));
    },
  });
  if (!result) {
    // A request that fits without compacting is progress: the death-spiral guard counts compactions
    // on consecutive requests (an agent run is one user turn, but may legitimately compact many times).
    if (!options.afterOverflowError) options.guard.userTurn();
    return messages;
  }
  emit(ev("compaction.completed", completedPayload(compactionJson(result))));
  if (result.status === "cancelled") return messages;
  // Level 3 shrinks the largest messages, which can be the prompt just given: never silently.
  const asked = messages.at(-1);
  const sent = result.messages.at(-1);
  if (asked?.role === "user" && sent?.role === "user" && sent.content !== asked.content) {
    emit(
      ev("warning", {
        code: "prompt_truncated",
        message: `the prompt was cut from ${asked.content.length} to ${sent.content.length} characters (head + tail) to fit the model's context window`,
      }),
    );
  }
  return result.messages;
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value)
    ? Math.max(0, Math.round(value))
    : null;
}

/** A phase's info as the event's fixed keys (null where the phase says nothing). */
export function phaseEvent(
  phase: string,
  info: Record<string, unknown>,
): EventOf<"compaction.phase"> {
  return ev("compaction.phase", {
    phase,
    messages: count(info["messages"]),
    tokens: count(info["tokens"]),
    budget_tokens: count(info["budget_tokens"]),
    tokens_before: count(info["tokens_before"]),
    tokens_after: count(info["tokens_after"]),
    fits: typeof info["fits"] === "boolean" ? info["fits"] : null,
    chunk: count(info["chunk"]),
    chunks: count(info["chunks"]),
    error: info["error"] === undefined || info["error"] === null ? null : String(info["error"]),
  });
}

/** compactionJson (lib/history) as the event's payload: every key, `format` null unless given. */
export function completedPayload(
  json: ReturnType<typeof compactionJson> & { format?: unknown },
): Omit<EventOf<"compaction.completed">, "type"> {
  const { format, ...rest } = json;
  return {
    ...rest,
    markers: rest.markers.map((m) => ({
      index: m.index,
      kind: m.kind === "truncation" ? "truncation" : "summary",
      summary_of: m.summary_of,
    })),
    format: typeof format === "string" ? format : null,
  };
}
