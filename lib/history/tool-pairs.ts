import type { ChatMessage } from "../llm/types.ts";

/** What repairToolPairs changed. */
export interface PairRepair {
  messages: ChatMessage[];
  /** Error results added for tool calls that had none. */
  added: number;
  /** Results dropped: without their call, or a second result for one call. */
  dropped: number;
}

/** The result given to a tool call whose real result was never recorded. */
export const MISSING_RESULT =
  "error: no result was recorded for this tool call (the run stopped before it finished); it may not have run";

/**
 * The invariant every provider enforces on a history: each native tool call of an assistant message
 * has exactly one `tool` result, right after that message, and each result answers a call of the
 * assistant message just before. A missing result becomes an error result; a result without its
 * call (or a second one) is dropped. Returns the input array itself when nothing was wrong.
 */
export function repairToolPairs(messages: readonly ChatMessage[]): PairRepair {
  const out: ChatMessage[] = [];
  let added = 0;
  let dropped = 0;
  let i = 0;
  while (i < messages.length) {
    const message = messages[i] as ChatMessage;
    i++;
    if (message.role === "tool") {
      dropped++; // a result with no call just before it
      continue;
    }
    out.push(message);
    const calls = message.role === "assistant" ? (message.tool_calls ?? []) : [];
    if (calls.length === 0) continue;
    const open = new Set(calls.map((c) => c.id));
    while (i < messages.length && (messages[i] as ChatMessage).role === "tool") {
      const result = messages[i] as ChatMessage;
      i++;
      if (result.tool_call_id !== undefined && open.delete(result.tool_call_id)) out.push(result);
      else dropped++;
    }
    for (const call of calls) {
      if (!open.delete(call.id)) continue;
      out.push({ role: "tool", tool_call_id: call.id, content: MISSING_RESULT, is_error: true });
      added++;
    }
  }
  if (added === 0 && dropped === 0) return { messages: messages as ChatMessage[], added, dropped };
  return { messages: out, added, dropped };
}

/** The warning text for a repair, or undefined when there was none. */
export function repairMessage(repair: PairRepair, where: string): string | undefined {
  if (repair.added === 0 && repair.dropped === 0) return undefined;
  const parts = [
    repair.added ? `${repair.added} tool call(s) without a result got an error result` : "",
    repair.dropped ? `${repair.dropped} tool result(s) without their call were dropped` : "",
  ].filter(Boolean);
  return `${where}: ${parts.join("; ")} (every tool call needs exactly one result)`;
}
