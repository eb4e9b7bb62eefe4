import type { Env } from "../core/ctx.ts";
import type { ChatMessage } from "../llm/types.ts";
import { withContent } from "./blocks.ts";
import { CHARS_PER_TOKEN } from "./tokens.ts";

/**
 * Microcompact knobs (seed 001 §6, reference §6.10; docs/compaction.md). A result becomes *eligible*
 * for head + tail after TRUNCATE_TURNS turns and for a summary line after SUMMARIZE_TURNS, when it is
 * at least MIN_CONTENT chars. Eligible results are rewritten only when a clearing happens: when all
 * rewrites due would free at least CLEAR_AT_LEAST tokens, they all happen at once, so the request
 * prefix (the prompt cache) changes once per clearing instead of every turn. CLEAR_AT_LEAST=0 is the
 * seed's eager behaviour (rewrite as soon as a result is eligible).
 */
export interface MicrocompactConfig {
  truncateTurns: number;
  summarizeTurns: number;
  headChars: number;
  tailChars: number;
  minContent: number;
  /** Estimated tokens one clearing must free, else nothing changes this turn (0 = eager). */
  clearAtLeast: number;
}

/** The defaults shipped (docs/compaction.md justifies them); the seed's MIN_CONTENT was 3000. */
export const MICROCOMPACT_DEFAULTS: MicrocompactConfig = {
  truncateTurns: 2,
  summarizeTurns: 4,
  headChars: 2000,
  tailChars: 500,
  minContent: 1000,
  clearAtLeast: 8000,
};

function positive(env: Env, name: string, fallback: number): number {
  const n = Number.parseInt(env[name] ?? "", 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

function nonNegative(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim() ?? "";
  const n = /^\d+$/.test(raw) ? Number.parseInt(raw, 10) : Number.NaN;
  return Number.isFinite(n) ? n : fallback;
}

/** Reads the CHATCLI_MICROCOMPACT_* variables. */
export function microcompactConfig(env: Env): MicrocompactConfig {
  const d = MICROCOMPACT_DEFAULTS;
  return {
    truncateTurns: positive(env, "CHATCLI_MICROCOMPACT_TRUNCATE_TURNS", d.truncateTurns),
    summarizeTurns: positive(env, "CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS", d.summarizeTurns),
    headChars: positive(env, "CHATCLI_MICROCOMPACT_HEAD_CHARS", d.headChars),
    tailChars: positive(env, "CHATCLI_MICROCOMPACT_TAIL_CHARS", d.tailChars),
    minContent: positive(env, "CHATCLI_MICROCOMPACT_MIN_CONTENT", d.minContent),
    clearAtLeast: nonNegative(env, "CHATCLI_MICROCOMPACT_CLEAR_AT_LEAST", d.clearAtLeast),
  };
}

export interface MicrocompactResult {
  messages: ChatMessage[];
  truncated: number;
  summarized: number;
  freedChars: number;
  /** Estimated tokens the due rewrites would free (whether or not this turn cleared). */
  pendingTokens: number;
  /** Index of the first message rewritten (where the cached prefix ends), or -1. */
  firstChanged: number;
}

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
const TRUNCATED =
  /\n\[\.\.\. (\d+) chars omitted from old tool result(?: \((\d+) lines, ([^)]+)\))? \.\.\.\]\n/;
const CLEARED = /^\[Old tool result cleared — \d+ lines, \d+ chars, [^\]]+\]$/;

function truncateOld(content: string, config: MicrocompactConfig): string {
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
function summaryLine(content: string): string {
  const t = TRUNCATED.exec(content);
  if (t?.[2] !== undefined) {
    const chars = content.length - t[0].length + Number(t[1]);
    return `[Old tool result cleared — ${t[2]} lines, ${chars} chars, ${t[3]}]`;
  }
  return `[Old tool result cleared — ${lineCount(content)} lines, ${content.length} chars, ${contentType(content)}]`;
}

/** The content an eligible result is due for at `age`, or undefined when it stays as it is. */
function dueContent(content: string, age: number, config: MicrocompactConfig): string | undefined {
  if (CLEARED.test(content)) return undefined;
  const truncated = TRUNCATED.test(content);
  // A result truncated on an earlier clearing is under MIN_CONTENT now, but still becomes a summary.
  if (content.length < config.minContent && !truncated) return undefined;
  if (age >= config.summarizeTurns) return summaryLine(content);
  if (age >= config.truncateTurns && !truncated) {
    const out = truncateOld(content, config);
    return out === content ? undefined : out;
  }
  return undefined;
}

/**
 * Shrinks old tool results in an agent loop, cache-aware (like Anthropic's context editing): each
 * turn it works out every rewrite due (head + tail after TRUNCATE_TURNS assistant turns, a one-line
 * summary after SUMMARIZE_TURNS); only when together they free CLEAR_AT_LEAST tokens are they all
 * applied, at once. Otherwise the history is returned untouched, byte for byte, and results already
 * rewritten never change again except to go from head + tail to their summary line on a later
 * clearing. `turnIndex` is the loop's 0-based turn. Pure: the state is in the messages themselves.
 */
export function microcompact(
  messages: readonly ChatMessage[],
  turnIndex: number,
  env: Env,
  config: MicrocompactConfig = microcompactConfig(env),
): MicrocompactResult {
  const result: MicrocompactResult = {
    messages: messages.slice(),
    truncated: 0,
    summarized: 0,
    freedChars: 0,
    pendingTokens: 0,
    firstChanged: -1,
  };
  if (turnIndex < config.truncateTurns) return result;
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
    const content = dueContent(m.content, totalAssistant - turn, config);
    if (content === undefined) continue;
    due.push({ index: i, content });
    freed += m.content.length - content.length;
  }
  result.pendingTokens = Math.floor(freed / CHARS_PER_TOKEN);
  if (due.length === 0 || result.pendingTokens < config.clearAtLeast) return result;
  for (const { index, content } of due) {
    const m = messages[index] as ChatMessage;
    if (content.startsWith("[Old tool result cleared")) result.summarized++;
    else result.truncated++;
    result.freedChars += m.content.length - content.length;
    result.messages[index] = withContent(m, content);
  }
  result.firstChanged = due[0]?.index ?? -1;
  return result;
}
