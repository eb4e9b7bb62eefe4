import type { ChatMessage } from "../../../lib/llm/types.ts";

/** Small builders for hand-made histories. */
export const sys = (content: string): ChatMessage => ({ role: "system", content });
export const user = (content: string): ChatMessage => ({ role: "user", content });
export const asst = (content: string): ChatMessage => ({ role: "assistant", content });
export const call = (id: string, name: string, args: Record<string, unknown>): ChatMessage => ({
  role: "assistant",
  content: "",
  tool_calls: [{ id, type: "function", name, arguments: args }],
});
export const result = (id: string, content: string): ChatMessage => ({
  role: "tool",
  content,
  tool_call_id: id,
});

/** n alternating user/assistant pairs with `size`-char bodies, tagged with their index. */
export function chatter(n: number, size = 100, from = 0): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = from; i < from + n; i++) {
    const body = `#${i} ${"x".repeat(size)}`;
    out.push(i % 2 === 0 ? user(`question ${body}`) : asst(`answer ${body}`));
  }
  return out;
}
