import type { ChatMessage, ToolCall } from "../llm/types.ts";

/**
 * The calls with ids no earlier message of the run used. A server that sends no ids gets ones the
 * adapters make up per reply (`call_0`, `gemini_call_1`), so every turn would name its calls alike:
 * a result, a pointer to "tool call call_0 above" and microcompaction's bookkeeping are all looked
 * up by id, and the model could not tell two results apart. A repeated id gets a `_tN` suffix (the
 * turn), and `_2`, `_3` … after that if still taken; a provider's own ids are unique and kept.
 */
export function uniqueCallIds(
  calls: readonly ToolCall[],
  history: readonly ChatMessage[],
  turn: number,
): ToolCall[] {
  const used = new Set<string>();
  for (const m of history) {
    for (const c of m.tool_calls ?? []) used.add(c.id);
    if (m.tool_call_id) used.add(m.tool_call_id);
  }
  return calls.map((call) => {
    if (!used.has(call.id)) {
      used.add(call.id);
      return call;
    }
    let id = `${call.id}_t${turn}`;
    for (let n = 2; used.has(id); n++) id = `${call.id}_t${turn}_${n}`;
    used.add(id);
    return { ...call, id };
  });
}
