import type { Env } from "../core/ctx.ts";
import type { ChatMessage } from "../llm/types.ts";

export interface MicrocompactConfig {
  truncateTurns: number;
  summarizeTurns: number;
  headChars: number;
  tailChars: number;
  minContent: number;
}

function positive(env: Env, name: string, fallback: number): number {
  const n = Number(env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** CHATCLI_MICROCOMPACT_* knobs (positive integers), ChatCLI's defaults otherwise. */
export function microcompactConfig(env: Env): MicrocompactConfig {
  return {
    truncateTurns: positive(env, "CHATCLI_MICROCOMPACT_TRUNCATE_TURNS", 2),
    summarizeTurns: positive(env, "CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS", 4),
    headChars: positive(env, "CHATCLI_MICROCOMPACT_HEAD_CHARS", 2000),
    tailChars: positive(env, "CHATCLI_MICROCOMPACT_TAIL_CHARS", 500),
    minContent: positive(env, "CHATCLI_MICROCOMPACT_MIN_CONTENT", 3000),
  };
}

function contentType(text: string): string {
  const start = text.trimStart();
  const head = text.slice(0, 200);
  if (start.startsWith("{") || start.startsWith("[")) return "JSON";
  if (head.includes("package ")) return "Go source";
  if (head.includes("import ")) return "source code";
  if (head.includes("def ")) return "Python source";
  if (head.includes("function ")) return "JavaScript source";
  if (start.startsWith("diff ") || start.startsWith("--- ")) return "diff";
  if (start.startsWith("commit ")) return "git log";
  return "text";
}

function truncate(text: string, cfg: MicrocompactConfig): string {
  if (text.length <= cfg.headChars + cfg.tailChars + 100) return text;
  let head = text.slice(0, cfg.headChars);
  const nl = head.lastIndexOf("\n");
  if (nl > cfg.headChars / 2) head = head.slice(0, nl);
  let tail = text.slice(text.length - cfg.tailChars);
  const tnl = tail.indexOf("\n");
  if (tnl >= 0 && tnl < cfg.tailChars / 2) tail = tail.slice(tnl + 1);
  const omitted = text.length - head.length - tail.length;
  return `${head}\n[... ${omitted} chars omitted from old tool result ...]\n${tail}`;
}

/**
 * Shrinks old tool results in place (reference §6.10): results older than truncateTurns assistant
 * turns keep head+tail, older than summarizeTurns become a one-line note. Returns counts and chars freed.
 */
export function microcompact(
  messages: ChatMessage[],
  turnIndex: number,
  cfg: MicrocompactConfig,
): { truncated: number; summarized: number; freed: number } {
  const stats = { truncated: 0, summarized: 0, freed: 0 };
  if (turnIndex < cfg.truncateTurns) return stats;
  const total = messages.filter((m) => m.role === "assistant").length;
  let seen = 0;
  for (const message of messages) {
    if (message.role === "assistant") seen++;
    const candidate =
      message.role === "tool" || (message.role === "user" && message.meta?.agent_feedback);
    if (!candidate || message.content.length < cfg.minContent) continue;
    const age = total - seen;
    const before = message.content.length;
    if (age >= cfg.summarizeTurns) {
      const lines = message.content.split("\n").length;
      message.content = `[Old tool result cleared — ${lines} lines, ${before} chars, ${contentType(message.content)}]`;
      stats.summarized++;
    } else if (age >= cfg.truncateTurns) {
      const next = truncate(message.content, cfg);
      if (next === message.content) continue;
      message.content = next;
      stats.truncated++;
    } else continue;
    stats.freed += before - message.content.length;
  }
  return stats;
}
