import type { ChatMessage } from "../llm/types.ts";
import type { MicrocompactConfig } from "./microcompact-config.ts";
import { DELTA } from "./microcompact-delta.ts";

// The forms an old tool result takes under microcompact (reference §6.10): head + tail, the one-line
// summary, and the pointer to an identical earlier result. Every form is a pure function of the
// original, so a result rewritten once is byte-stable from then on (the prompt cache keeps it).

/** What a tool result looks like, for its one-line summary. */
export function contentType(content: string): string {
  const start = content.trimStart();
  const head = content.slice(0, 200);
  if (start.startsWith("{") || start.startsWith("[")) return "JSON";
  if (head.includes("package ")) return "Go source";
  if (head.includes("import ")) return "source code";
  if (head.includes("def ")) return "Python source";
  if (head.includes("function ")) return "JavaScript source";
  if (start.startsWith("diff ") || start.startsWith("--- ")) return "diff";
  if (start.startsWith("commit ")) return "git log";
  return "text";
}

function lineCount(content: string): number {
  let n = 1;
  for (let i = content.indexOf("\n"); i >= 0; i = content.indexOf("\n", i + 1)) n++;
  return n;
}

/** The marker truncateOld leaves in a result (with the original's size, for its summary line later). */
export const TRUNCATED =
  /\n\[\.\.\. (\d+) chars omitted from old tool result(?: \((\d+) lines, ([^)]+)\))? \.\.\.\]\n/;
export const CLEARED = /^\[Old tool result cleared — \d+ lines, \d+ chars, [^\]]+\]$/;

export function truncateOld(content: string, config: MicrocompactConfig): string {
  if (content.length <= config.headChars + config.tailChars + 100) return content;
  let head = content.slice(0, config.headChars);
  const headNl = head.lastIndexOf("\n");
  if (headNl > config.headChars / 2) head = head.slice(0, headNl);
  let tail = content.slice(content.length - config.tailChars);
  const tailNl = tail.indexOf("\n");
  if (tailNl >= 0 && tailNl < config.tailChars / 2) tail = tail.slice(tailNl + 1);
  const omitted = content.length - head.length - tail.length;
  return `${head}\n[... ${omitted} chars omitted from old tool result (${lineCount(content)} lines, ${contentType(content)}) ...]\n${tail}`;
}

/** The one-line summary of a result (of the original, when it was truncated first). */
export function summaryLine(content: string): string {
  const d = DELTA.exec(content);
  if (d) return `[Old tool result cleared — ${d[2]} lines, ${d[3]} chars, text]`;
  const t = TRUNCATED.exec(content);
  if (t?.[2] !== undefined) {
    const chars = content.length - t[0].length + Number(t[1]);
    return `[Old tool result cleared — ${t[2]} lines, ${chars} chars, ${t[3]}]`;
  }
  return `[Old tool result cleared — ${lineCount(content)} lines, ${content.length} chars, ${contentType(content)}]`;
}

/** The content an eligible result is due for at `age`, or undefined when it stays as it is. */
export function dueContent(
  content: string,
  age: number,
  config: MicrocompactConfig,
  minContent = config.minContent,
): string | undefined {
  if (CLEARED.test(content) || DUPLICATE.test(content)) return undefined;
  const truncated = TRUNCATED.test(content);
  // A result truncated on an earlier clearing is under MIN_CONTENT now, but still becomes a summary.
  if (content.length < minContent && !truncated) return undefined;
  if (age >= config.summarizeTurns) {
    const line = summaryLine(content);
    return line.length < content.length ? line : undefined;
  }
  if (age >= config.truncateTurns && !truncated && !DELTA.test(content)) {
    const out = truncateOld(content, config);
    return out === content ? undefined : out;
  }
  return undefined;
}

/** The pointer a result gets when it is byte for byte an earlier result still in the history. */
export function duplicateLine(content: string, earlierId: string): string {
  return `[Same output as tool call ${earlierId} above (unchanged): ${lineCount(content)} lines, ${content.length} chars]`;
}

export const DUPLICATE =
  /^\[Same output as tool call (\S+) above \(unchanged\): \d+ lines, \d+ chars\]$/;

/** Old tool-call arguments: string values at least this long (an edit's text, a file written whole) go. */
export const ARGUMENT_MIN_CHARS = 300;
const CLEARED_ARGUMENT = /^\[cleared — \d+ chars\]$/;

function clearValue(value: unknown): unknown {
  if (typeof value === "string")
    return value.length >= ARGUMENT_MIN_CHARS && !CLEARED_ARGUMENT.test(value)
      ? `[cleared — ${value.length} chars]`
      : value;
  if (Array.isArray(value)) return value.map(clearValue);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clearValue(v)]));
  return value;
}

/**
 * An old assistant turn with its tool calls' long string arguments replaced by `[cleared — N chars]`
 * (what the call did is in its result; Anthropic's context editing clears tool inputs likewise), or
 * undefined when nothing is that long. Turns that carry reasoning or a Gemini thought signature stay
 * as they are: the APIs want those back unchanged. Pure: the same turn always clears the same way.
 */
export function clearedCalls(message: ChatMessage): ChatMessage | undefined {
  const calls = message.tool_calls;
  if (message.role !== "assistant" || !calls?.length) return undefined;
  if (calls.some((c) => c.thought_signature !== undefined || c.thinking?.length)) return undefined;
  let changed = false;
  const out = calls.map((c) => {
    const args = clearValue(c.arguments) as Record<string, unknown>;
    if (JSON.stringify(args) === JSON.stringify(c.arguments)) return c;
    changed = true;
    const { raw: _raw, ...rest } = c;
    return { ...rest, arguments: args };
  });
  return changed ? { ...message, tool_calls: out } : undefined;
}
