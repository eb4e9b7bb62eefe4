import type { Env } from "../core/ctx.ts";
import { compactHistory } from "../history/compact.ts";
import { describePhase } from "../history/progress.ts";
import { providerSummarizer } from "../history/summarizer.ts";
import { budgetFor } from "../history/tokens.ts";
import { contextWindow } from "../llm/context-window.ts";
import type { ModelRef } from "../llm/models.ts";
import type { ChatMessage, Provider, Usage } from "../llm/types.ts";

export interface CompactInput {
  ref: ModelRef;
  env: Env;
  provider: Provider;
  instruction: string | undefined;
  signal: AbortSignal;
  /** Each live status line (`📦 Compacting history…`, `🧠 Summarizing…`). */
  onPhase: (line: string) => void;
  /** Usage of the summarizing request. */
  onUsage: (usage: Usage) => void;
}

/**
 * `/compact [instruction]` over lib/history's pipeline: half the window, always level 2 (an explicit
 * request to make it smaller), the last 10 messages (4 with an instruction) kept verbatim — half the
 * conversation when it is shorter, so there is always an older half to summarise.
 */
export function compactConversation(messages: ChatMessage[], input: CompactInput) {
  const { ref, env, instruction } = input;
  const model = { provider: ref.provider, model: ref.model };
  const turns = messages.filter((m) => m.role !== "system").length;
  return compactHistory(messages, {
    budgetTokens: budgetFor(model, env, 0.5),
    keepLast: instruction ? 4 : Math.min(10, Math.max(2, Math.floor(turns / 2))),
    instruction,
    // A user who types /compact wants it smaller: level 2 runs even when trimming was enough.
    forceSummary: true,
    summarize: providerSummarizer(input.provider, ref.model, input.onUsage),
    summarizerWindowTokens: contextWindow(model, env),
    signal: input.signal,
    onPhase: (phase, info) => {
      const line = describePhase(phase, info);
      if (line) input.onPhase(line);
    },
  });
}

/** Guided `/compact` keeps the last 4 messages: the Go tool's words when too few are left to summarise. */
export function guidedTooFew(messages: readonly ChatMessage[]): string | undefined {
  let systemEnd = 0;
  while (messages[systemEnd]?.role === "system") systemEnd++;
  const recentStart = messages.length - 4;
  if (recentStart <= systemEnd) return "Not enough messages to compact with instruction.";
  if (recentStart - systemEnd < 2) return "Not enough middle messages to compact.";
  return undefined;
}
