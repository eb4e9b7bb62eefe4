import { asText } from "../core/as-text.ts";
import type { ChatMessage } from "../llm/types.ts";
import { leadingSystemCount, snapCut, truncatePreservingStructure, withContent } from "./blocks.ts";
import { truncationMessage } from "./level2.ts";
import { CHARS_PER_TOKEN, estimateTokens, messageTokens } from "./tokens.ts";

/** Smallest content level 3 shrinks a message to. */
export const SHRINK_FLOOR = 400;

/**
 * Level 3, no LLM: drop the middle (system messages stay, in order) and put a truncation marker in its
 * place, keep the recent tail whole (snapped to tool blocks), then shrink the largest messages until the
 * history fits `budgetTokens` or nothing more can be shrunk.
 */
export function truncateHistory(
  messages: readonly ChatMessage[],
  keep: number,
  budgetTokens: number,
  pinned: ReadonlySet<ChatMessage> = new Set(),
): ChatMessage[] {
  const systemEnd = leadingSystemCount(messages);
  const keepRecent = Math.min(keep, messages.length - systemEnd);
  const start = snapCut(messages, messages.length - keepRecent, systemEnd);
  let out: ChatMessage[] = messages.slice();
  if (start > systemEnd) {
    const middle = messages.slice(systemEnd, start);
    const systems = middle.filter((m) => m.role === "system");
    // The task messages stay (after every system message, as level 2 places them).
    const tasks = middle.filter((m) => m.role !== "system" && pinned.has(m));
    const dropped = middle.length - systems.length - tasks.length;
    if (dropped > 0) {
      out = [
        ...messages.slice(0, systemEnd),
        ...systems,
        ...tasks,
        truncationMessage(dropped),
        ...messages.slice(start),
      ];
    }
  }
  return shrinkToBudget(out, budgetTokens, pinned);
}

interface Shrinkable {
  index: number;
  size: number;
  /** Set when the biggest text is a string argument of a tool call rather than the content. */
  arg?: { call: number; key: string };
}

function biggestText(message: ChatMessage, index: number): Shrinkable {
  let best: Shrinkable = {
    index,
    size: typeof message.content === "string" ? message.content.length : 0,
  };
  for (const [call, tc] of (message.tool_calls ?? []).entries()) {
    for (const [key, value] of Object.entries(tc.arguments ?? {})) {
      if (typeof value === "string" && value.length > best.size) {
        best = { index, size: value.length, arg: { call, key } };
      }
    }
  }
  return best;
}

function shrunkCopy(message: ChatMessage, pick: Shrinkable, target: number): ChatMessage {
  if (!pick.arg) return withContent(message, truncatePreservingStructure(message.content, target));
  const { call, key } = pick.arg;
  const calls = (message.tool_calls ?? []).map((tc, i) => {
    if (i !== call) return tc;
    const value = asText(tc.arguments[key]);
    const { raw: _raw, ...rest } = tc;
    return {
      ...rest,
      arguments: { ...tc.arguments, [key]: truncatePreservingStructure(value, target) },
    };
  });
  return { ...message, tool_calls: calls };
}

/**
 * Repeatedly cuts the largest non-system text (a message's content, or a big string argument of a
 * tool call such as a file written) to head + tail, until under budget or no progress.
 */
export function shrinkToBudget(
  messages: ChatMessage[],
  budgetTokens: number,
  pinned: ReadonlySet<ChatMessage> = new Set(),
): ChatMessage[] {
  const out = messages.slice();
  let total = estimateTokens(out);
  // The task is shrunk last: only when nothing else is left to shrink.
  let spareTask = pinned.size > 0;
  while (total > budgetTokens) {
    let pick: Shrinkable | undefined;
    for (let i = 0; i < out.length; i++) {
      const m = out[i] as ChatMessage;
      if (m.role === "system" || (spareTask && pinned.has(m))) continue;
      const candidate = biggestText(m, i);
      if (candidate.size > SHRINK_FLOOR && (!pick || candidate.size > pick.size)) pick = candidate;
    }
    if (!pick && spareTask) {
      spareTask = false;
      continue;
    }
    if (!pick) break;
    const message = out[pick.index] as ChatMessage;
    const excess = (total - budgetTokens) * CHARS_PER_TOKEN;
    const target = Math.max(SHRINK_FLOOR, pick.size - excess - 96);
    const shrunk = shrunkCopy(message, pick, target);
    const next = total - messageTokens(message) + messageTokens(shrunk);
    if (next >= total) break;
    out[pick.index] = shrunk;
    total = next;
  }
  return out;
}
