import type { ChatMessage } from "../llm/types.ts";

/**
 * Where a fact's text came from (issue 11 §3): when most of its words appear in a tool result (a
 * fetched page, a command's output, a file) and not in what the user wrote, the fact carries
 * `source: "tool:<name>"` — Go's Fact struct has that field, so the mark survives Go rewriting the file.
 */
export interface TextOrigin {
  /** `tool:web_fetch`, `tool:run_command`, … */
  label: string;
  text: string;
}

function words(text: string, min: number): string[] {
  return (
    text
      .toLowerCase()
      .normalize("NFKC")
      .match(/[\p{L}\p{N}_]+/gu) ?? []
  ).filter((w) => w.length >= min);
}

function coverage(tokens: string[], text: string): number {
  if (!tokens.length) return 0;
  const have = new Set(words(text, 1));
  return tokens.filter((t) => have.has(t)).length / tokens.length;
}

/** The label of the tool output `content` was taken from, if it was (not from the user's words). */
export function originOf(
  content: string,
  origins: readonly TextOrigin[],
  userText: string,
): string | undefined {
  let tokens = words(content, 4);
  if (tokens.length < 3) tokens = words(content, 3);
  if (tokens.length < 2) return undefined;
  if (coverage(tokens, userText) >= 0.5) return undefined;
  let best: { label: string; c: number } | undefined;
  for (const o of origins) {
    const c = coverage(tokens, o.text);
    if (c >= 0.6 && (!best || c > best.c)) best = { label: o.label, c };
  }
  return best?.label;
}

/** Tool results of a conversation, labelled by the tool that produced them; and the user's text. */
export function conversationOrigins(messages: readonly ChatMessage[]): {
  origins: TextOrigin[];
  userText: string;
} {
  const names = new Map<string, string>();
  for (const m of messages) for (const c of m.tool_calls ?? []) names.set(c.id, c.name);
  const origins: TextOrigin[] = [];
  const user: string[] = [];
  for (const m of messages) {
    if (m.role === "tool")
      origins.push({
        label: `tool:${names.get(m.tool_call_id ?? "") ?? "unknown"}`,
        text: m.content,
      });
    else if (m.role === "user") user.push(m.content);
  }
  return { origins, userText: user.join("\n") };
}
