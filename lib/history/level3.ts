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
): ChatMessage[] {
  const systemEnd = leadingSystemCount(messages);
  const keepRecent = Math.min(keep, messages.length - systemEnd);
  const start = snapCut(messages, messages.length - keepRecent, systemEnd);
  let out: ChatMessage[] = messages.slice();
  if (start > systemEnd) {
    const middle = messages.slice(systemEnd, start);
    const systems = middle.filter((m) => m.role === "system");
    const dropped = middle.length - systems.length;
    if (dropped > 0) {
      out = [
        ...messages.slice(0, systemEnd),
        ...systems,
        truncationMessage(dropped),
        ...messages.slice(start),
      ];
    }
  }
  return shrinkToBudget(out, budgetTokens);
}

/** Repeatedly cuts the largest non-system message (head + tail) until under budget or no progress. */
export function shrinkToBudget(messages: ChatMessage[], budgetTokens: number): ChatMessage[] {
  const out = messages.slice();
  let total = estimateTokens(out);
  while (total > budgetTokens) {
    let largest = -1;
    let size = SHRINK_FLOOR;
    for (let i = 0; i < out.length; i++) {
      const m = out[i] as ChatMessage;
      if (m.role === "system" || typeof m.content !== "string") continue;
      if (m.content.length > size) {
        size = m.content.length;
        largest = i;
      }
    }
    if (largest < 0) break;
    const message = out[largest] as ChatMessage;
    const excess = (total - budgetTokens) * CHARS_PER_TOKEN;
    const target = Math.max(SHRINK_FLOOR, message.content.length - excess - 96);
    const shrunk = withContent(message, truncatePreservingStructure(message.content, target));
    const next = total - messageTokens(message) + messageTokens(shrunk);
    if (next >= total) break;
    out[largest] = shrunk;
    total = next;
  }
  return out;
}
