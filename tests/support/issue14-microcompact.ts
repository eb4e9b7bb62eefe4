// Issue 14's microcompact, as it shipped before issue 23 (kept only to compare with: the bench and
// the dev set's calibration). Every due rewrite (head + tail after 2 turns, a summary line after 4,
// results of at least 1000 chars) happens at once when together they free 8000 tokens.
import { withContent } from "../../lib/history/blocks.ts";
import { summaryLine, truncateOld } from "../../lib/history/microcompact-forms.ts";
import { CHARS_PER_TOKEN } from "../../lib/history/tokens.ts";
import type { ChatMessage } from "../../lib/llm/types.ts";

const CONFIG = {
  truncateTurns: 2,
  summarizeTurns: 4,
  headChars: 2000,
  tailChars: 500,
  minContent: 1000,
};
const CLEAR_AT_LEAST = 8000;
const TRUNCATED =
  /\n\[\.\.\. (\d+) chars omitted from old tool result(?: \((\d+) lines, ([^)]+)\))? \.\.\.\]\n/;
const CLEARED = /^\[Old tool result cleared — \d+ lines, \d+ chars, [^\]]+\]$/;

function dueContent(content: string, age: number): string | undefined {
  if (CLEARED.test(content)) return undefined;
  const truncated = TRUNCATED.test(content);
  if (content.length < CONFIG.minContent && !truncated) return undefined;
  if (age >= CONFIG.summarizeTurns) return summaryLine(content);
  if (age >= CONFIG.truncateTurns && !truncated) {
    const out = truncateOld(content, { ...CONFIG } as never);
    return out === content ? undefined : out;
  }
  return undefined;
}

/** The history issue 14's microcompact sends at loop turn `turnIndex`. */
export function issue14Microcompact(
  messages: readonly ChatMessage[],
  turnIndex: number,
): ChatMessage[] {
  if (turnIndex < CONFIG.truncateTurns) return messages.slice();
  let totalAssistant = 0;
  for (const m of messages) if (m.role === "assistant") totalAssistant++;
  const due: Array<{ index: number; content: string }> = [];
  let freed = 0;
  let turn = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as ChatMessage;
    if (m.role === "assistant") turn++;
    const candidate = m.role === "tool" || (m.role === "user" && m.meta?.agent_feedback === true);
    if (!candidate || typeof m.content !== "string") continue;
    const content = dueContent(m.content, totalAssistant - turn);
    if (content === undefined) continue;
    due.push({ index: i, content });
    freed += m.content.length - content.length;
  }
  const out = messages.slice();
  if (due.length === 0 || Math.floor(freed / CHARS_PER_TOKEN) < CLEAR_AT_LEAST) return out;
  for (const { index, content } of due)
    out[index] = withContent(out[index] as ChatMessage, content);
  return out;
}
