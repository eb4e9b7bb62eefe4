import type { Env } from "../core/ctx.ts";
import type { ChatMessage } from "../llm/types.ts";
import { withContent } from "./blocks.ts";

/** Microcompact knobs (seed 001 §6, reference §6.10); env overrides accept positive integers. */
export interface MicrocompactConfig {
  truncateTurns: number;
  summarizeTurns: number;
  headChars: number;
  tailChars: number;
  minContent: number;
}

function positive(env: Env, name: string, fallback: number): number {
  const n = Number.parseInt(env[name] ?? "", 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Reads the CHATCLI_MICROCOMPACT_* variables. */
export function microcompactConfig(env: Env): MicrocompactConfig {
  return {
    truncateTurns: positive(env, "CHATCLI_MICROCOMPACT_TRUNCATE_TURNS", 2),
    summarizeTurns: positive(env, "CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS", 4),
    headChars: positive(env, "CHATCLI_MICROCOMPACT_HEAD_CHARS", 2000),
    tailChars: positive(env, "CHATCLI_MICROCOMPACT_TAIL_CHARS", 500),
    minContent: positive(env, "CHATCLI_MICROCOMPACT_MIN_CONTENT", 3000),
  };
}

export interface MicrocompactResult {
  messages: ChatMessage[];
  truncated: number;
  summarized: number;
  freedChars: number;
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

/** The marker truncateOld leaves in a result. */
const TRUNCATED = /\n\[\.\.\. \d+ chars omitted from old tool result \.\.\.\]\n/;

function truncateOld(content: string, config: MicrocompactConfig): string {
  if (content.length <= config.headChars + config.tailChars + 100) return content;
  let head = content.slice(0, config.headChars);
  const headNl = head.lastIndexOf("\n");
  if (headNl > config.headChars / 2) head = head.slice(0, headNl);
  let tail = content.slice(content.length - config.tailChars);
  const tailNl = tail.indexOf("\n");
  if (tailNl >= 0 && tailNl < config.tailChars / 2) tail = tail.slice(tailNl + 1);
  const omitted = content.length - head.length - tail.length;
  return `${head}\n[... ${omitted} chars omitted from old tool result ...]\n${tail}`;
}

/**
 * Shrinks old tool results in an agent loop: older than `truncateTurns` assistant turns → head + tail,
 * older than `summarizeTurns` → a one-line summary. `turnIndex` is the loop's 0-based turn.
 */
export function microcompact(
  messages: readonly ChatMessage[],
  turnIndex: number,
  env: Env,
): MicrocompactResult {
  const config = microcompactConfig(env);
  const result: MicrocompactResult = {
    messages: messages.slice(),
    truncated: 0,
    summarized: 0,
    freedChars: 0,
  };
  if (turnIndex < config.truncateTurns) return result;
  let totalAssistant = 0;
  for (const m of messages) if (m.role === "assistant") totalAssistant++;
  let turn = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as ChatMessage;
    if (m.role === "assistant") turn++;
    const candidate = m.role === "tool" || (m.role === "user" && m.meta?.agent_feedback === true);
    if (!candidate || typeof m.content !== "string") continue;
    // A result truncated on an earlier turn is under MIN_CONTENT now, but still becomes a summary later.
    if (m.content.length < config.minContent && !TRUNCATED.test(m.content)) continue;
    const age = totalAssistant - turn;
    let content = m.content;
    if (age >= config.summarizeTurns) {
      content = `[Old tool result cleared — ${lineCount(m.content)} lines, ${m.content.length} chars, ${contentType(m.content)}]`;
      result.summarized++;
    } else if (age >= config.truncateTurns) {
      content = truncateOld(m.content, config);
      if (content !== m.content) result.truncated++;
    }
    if (content !== m.content) {
      result.freedChars += m.content.length - content.length;
      result.messages[i] = withContent(m, content);
    }
  }
  return result;
}
