import type { ChatMessage } from "../llm/types.ts";
import { messageTokens } from "./tokens.ts";

/**
 * Does a clearing pay for itself? (issue 23; docs/compaction.md "Microcompact pays for itself").
 *
 * A clearing changes the history at its cut point, so every token from the provider's cache hit
 * point on goes out again as a cache write (Anthropic, 1.25×) or as uncached input (OpenAI, 1×)
 * instead of a cache read (0.1×; 0.1–0.5× on OpenAI). It then saves reading the freed tokens on this
 * request and on every later one. So it pays when
 *
 *     freed × requestsLeft × read  ≥  rewritten × (write − read)
 *
 * priced under the strictest cache we know (Anthropic: read 0.1×, write 1.25×, a 20-block lookback
 * from the breakpoint after the last message; its rewrite is never smaller than OpenAI's, and its
 * ratio 11.5 is above OpenAI's 1–9), so one rule holds for every provider, fallbacks included.
 */
export const CACHE_PRICE = { read: 0.1, write: 1.25 } as const;
/**
 * How long a provider's prompt cache outlives its last use. Anthropic's entries live 5 minutes
 * (chatcli asks for no longer TTL; Bedrock's Claude the same); OpenAI keeps a prefix 5–10 minutes
 * idle, up to an hour, so an hour is the bound for every other provider. Past it the provider writes
 * the whole prompt again with or without a clearing: a clearing then rewrites nothing extra.
 */
export function cacheTtlMs(protocol: string | undefined): number {
  return protocol === "anthropic" || protocol === "bedrock" ? 5 * 60_000 : 60 * 60_000;
}

/** Anthropic finds an earlier cache entry only within this many content blocks of a breakpoint. */
export const LOOKBACK_BLOCKS = 20;

export interface RequestsLeftInput {
  /** 0-based turn of the request about to be sent (requests already sent this run). */
  turnIndex: number;
  /** --max-turns: no request is sent once this many were. */
  maxTurns?: number;
  /** The run's own pace: after N requests, about paceFactor × N more are expected. */
  paceFactor: number;
  /** The conservative floor: a run is always expected to last this many requests more. */
  floorTurns: number;
  /** Requests a run makes before its pace counts (many runs are short). */
  warmupTurns?: number;
}

/**
 * Requests still expected, this one included: as many more as the run has already made (scaled by
 * the pace factor; a run that got this far tends to go on about as long again), never fewer than the
 * floor, never past --max-turns.
 */
export function requestsLeft(input: RequestsLeftInput): number {
  const proven = Math.max(0, input.turnIndex - (input.warmupTurns ?? 0));
  const pace = Math.max(input.floorTurns, Math.floor(input.paceFactor * proven));
  if (input.maxTurns === undefined) return pace;
  return Math.max(0, Math.min(pace, input.maxTurns - input.turnIndex));
}

/** Content blocks a message becomes on the Anthropic wire (text, one per tool call, one per result). */
export function blockCount(message: ChatMessage): number {
  if (message.role !== "assistant") return 1 + (message.images?.length ?? 0);
  return (message.content ? 1 : 0) + (message.tool_calls?.length ?? 0) || 1;
}

export interface RewriteInput {
  /** The history as it would go out if the clearing happens. */
  after: readonly ChatMessage[];
  /** First message the clearing changes. */
  cut: number;
  /** Messages the previous request carried (what the cache holds): after[0, sentBefore). */
  sentBefore: number;
  /**
   * Message counts of earlier requests whose cache entry is still a prefix of the history (Anthropic
   * writes one entry at each request's last message).
   */
  entries: readonly number[];
}

/**
 * Tokens the clearing makes the provider write again: from the latest earlier cache entry that ends
 * at or before the cut and lies within the lookback of this request's last breakpoint, to the end of
 * what was cached. No entry in reach: the whole history after the system prompt and tools (which are
 * cached on their own breakpoint).
 */
export function rewriteTokens(input: RewriteInput): number {
  const { after, cut, sentBefore } = input;
  const entries = new Set(input.entries);
  let hit = 0;
  let blocks = 0;
  for (let b = after.length; b > 0; b--) {
    if (b < after.length) blocks += blockCount(after[b] as ChatMessage);
    if (blocks >= LOOKBACK_BLOCKS) break;
    if (b <= cut && entries.has(b)) {
      hit = b;
      break;
    }
  }
  let tokens = 0;
  for (let i = hit; i < sentBefore; i++) tokens += messageTokens(after[i] as ChatMessage);
  return tokens;
}

/**
 * What freeing `freedTokens` at a rewrite of `rewrittenTokens` gains over `requests` requests, in
 * uncached-input tokens (negative: it costs more than it saves).
 */
export function clearingGain(freedTokens: number, rewrittenTokens: number, requests: number) {
  const premium = CACHE_PRICE.write - CACHE_PRICE.read;
  return freedTokens * requests * CACHE_PRICE.read - rewrittenTokens * premium;
}

/** Whether freeing `freedTokens` at a rewrite of `rewrittenTokens` pays back within `requests`. */
export function paysForItself(freedTokens: number, rewrittenTokens: number, requests: number) {
  return clearingGain(freedTokens, rewrittenTokens, requests) >= 0;
}

/**
 * Whether clearing one turn later beats clearing now: it loses one request's saving on what is freed
 * but rewrites `laterRewrite` instead of `rewrite` tokens (the newest round is known before it is
 * sent: when the round above the cut is large and the new one small, waiting is cheaper). Only when
 * a later request is expected at all.
 */
export function waitIsCheaper(
  rewrite: number,
  laterRewrite: number,
  freed: number,
  requests: number,
) {
  if (requests < 2) return false;
  const premium = CACHE_PRICE.write - CACHE_PRICE.read;
  return (rewrite - laterRewrite) * premium > freed * CACHE_PRICE.read;
}
