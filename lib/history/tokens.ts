import type { Env } from "../core/ctx.ts";
import { contextWindow, type ModelId } from "../llm/context-window.ts";
import type { ChatMessage } from "../llm/types.ts";

/** Characters per estimated token (ChatCLI's rule of thumb, used for every budget). */
export const CHARS_PER_TOKEN = 4;
/** Per-message framing overhead in tokens (role, separators) added to the chars/4 estimate. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

const weights = new WeakMap<ChatMessage, number>();

/** Size of one message in characters (content + tool-call names/arguments + images + extra system parts). */
export function messageWeight(message: ChatMessage): number {
  const cached = weights.get(message);
  if (cached !== undefined) return cached;
  const content = typeof message.content === "string" ? message.content.length : 0;
  let weight = content;
  for (const call of message.tool_calls ?? []) {
    weight += (call.name?.length ?? 0) + argumentsLength(call.arguments, call.raw);
  }
  for (const image of message.images ?? []) weight += imageTokens(image) * CHARS_PER_TOKEN;
  if (message.system_parts?.length) {
    let parts = 0;
    for (const part of message.system_parts) parts += part.text?.length ?? 0;
    weight += Math.max(0, parts - content);
  }
  weights.set(message, weight);
  return weight;
}

/** JSON length of a tool call's arguments object, by object (a trimmed copy of a message shares it). */
const argumentLengths = new WeakMap<object, number>();

function argumentsLength(args: unknown, raw: string | undefined): number {
  if (args === undefined || args === null) return raw?.length ?? 0;
  const cached = typeof args === "object" ? argumentLengths.get(args) : undefined;
  if (cached !== undefined) return cached;
  try {
    const length = JSON.stringify(args)?.length ?? 0;
    if (typeof args === "object") argumentLengths.set(args, length);
    return length;
  } catch {
    return raw?.length ?? 0;
  }
}

function imageTokens(image: { data?: string }): number {
  // Dimensions are unknown here: the reference's fallback is bytes/2048, at least 85.
  const bytes = image.data ? Math.floor((image.data.length * 3) / 4) : 0;
  return Math.max(85, Math.ceil(bytes / 2048));
}

/** Estimated tokens of one message: chars/4 plus a small framing overhead. */
export function messageTokens(message: ChatMessage): number {
  return Math.ceil(messageWeight(message) / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS;
}

/** Estimated tokens of a whole history. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += messageTokens(message);
  return total;
}

/** Total size in characters (what the throughput benchmark measures). */
export function historyChars(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += messageWeight(message);
  return total;
}

/** CHATCLI_MAX_PAYLOAD-style sizes: bare number = MB; GB/MB/KB/G/M/K/B suffixes. undefined when invalid. */
export function parsePayloadSize(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? "").toUpperCase();
  const scale: Record<string, number> = {
    "": 1024 * 1024,
    GB: 1024 ** 3,
    G: 1024 ** 3,
    MB: 1024 ** 2,
    M: 1024 ** 2,
    KB: 1024,
    K: 1024,
    B: 1,
  };
  const factor = scale[unit];
  if (factor === undefined) return undefined;
  const bytes = Math.floor(n * factor);
  return bytes > 0 ? bytes : undefined;
}

/** Sizes as ChatCLI prints them: `1.2 MB`, `3.4 KB`, `12 B`. */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} B`;
}

/** A token budget: `ratio` of the window, capped by 0.7 × CHATCLI_MAX_PAYLOAD when that is set. */
export function budgetFor(model: ModelId, env: Env, ratio: number): number {
  let budget = Math.floor(contextWindow(model, env) * ratio);
  const payload = parsePayloadSize(env["CHATCLI_MAX_PAYLOAD"]);
  if (payload !== undefined) {
    budget = Math.min(budget, Math.floor((0.7 * payload) / CHARS_PER_TOKEN));
  }
  return budget;
}

/** CHATCLI_COMPACT_THRESHOLD (default 0.8): the fraction of the window that triggers compaction. */
export function compactThreshold(env: Env): number {
  const value = Number.parseFloat(env["CHATCLI_COMPACT_THRESHOLD"] ?? "");
  return Number.isFinite(value) && value > 0 && value <= 1 ? value : 0.8;
}

/** Whether the history passes the threshold of the model's window. */
export function needsCompaction(
  messages: readonly ChatMessage[],
  model: ModelId,
  env: Env,
): boolean {
  return estimateTokens(messages) > budgetFor(model, env, compactThreshold(env));
}
