import type { Env } from "../core/ctx.ts";
import type { ChatMessage } from "../llm/types.ts";
import { withContent } from "./blocks.ts";
import { type MicrocompactConfig, microcompactConfig } from "./microcompact-config.ts";
import { requestsLeft, rewriteTokens, waitIsCheaper } from "./microcompact-cost.ts";
import { DELTA, deltaPointer } from "./microcompact-delta.ts";
import { CLEARED, DUPLICATE, duplicateLine, TRUNCATED } from "./microcompact-forms.ts";
import { agesOf, bestClearing, type Plan, plan } from "./microcompact-plan.ts";
import { messageTokens } from "./tokens.ts";

/**
 * What the loop keeps between turns: the requests it sent recently (their messages, by reference),
 * so a clearing knows which cache entries it keeps. Without it only the previous request is known
 * and a clearing is priced as if it rewrote everything after the system prompt.
 */
export interface MicrocompactState {
  sent: ChatMessage[][];
  /** Tokens pointers and recipes kept off the wire, minus the rewrites clearings spent (writeBudget). */
  credit: number;
  /** Tokens the history is shorter by than without microcompact (pointers, recipes, clearings). */
  freed: number;
}

export function newMicrocompactState(): MicrocompactState {
  return { sent: [], credit: 0, freed: 0 };
}

export interface MicrocompactOptions {
  config?: MicrocompactConfig;
  /** --max-turns: no request goes out past it, so none is expected after it. */
  maxTurns?: number;
  state?: MicrocompactState;
  /** Time since the previous reply ended, and how long the provider's cache outlives its last use. */
  idleMs?: number;
  cacheTtlMs?: number;
}

export interface MicrocompactResult {
  messages: ChatMessage[];
  truncated: number;
  summarized: number;
  /** New results sent as a pointer to an identical earlier one. */
  deduplicated: number;
  /** New results sent as a recipe built from an earlier one's lines. */
  delta: number;
  /** Old turns whose tool calls' long arguments were cleared. */
  callsCleared: number;
  freedChars: number;
  /** Estimated tokens the due rewrites would free (whether or not this turn cleared). */
  pendingTokens: number;
  /** Estimated tokens the provider would write again for them (0 when nothing is due). */
  rewriteTokens: number;
  /** Requests still expected, this one included. */
  requestsLeft: number;
  /** Index of the first message rewritten (where the cached prefix ends), or -1. */
  firstChanged: number;
  /** The provider's cache had expired (idle past its TTL): any clearing was free. */
  coldCache: boolean;
}

/** How many recent requests the state remembers (the lookback never reaches further back). */
const KEEP_SENT = 12;

/** Remembers the previous request (messages[0, count)) unless it is already the last one kept. */
function remember(state: MicrocompactState, messages: readonly ChatMessage[], count: number): void {
  const last = state.sent.at(-1);
  if (last && last.length === count && last.every((m, i) => m === messages[i])) return;
  state.sent.push(messages.slice(0, count));
  if (state.sent.length > KEEP_SENT) state.sent.shift();
}

/** Message counts of the remembered requests that are still a prefix of `messages`. */
function cacheEntries(state: MicrocompactState | undefined, messages: readonly ChatMessage[]) {
  const out: number[] = [];
  for (const sent of state?.sent ?? []) {
    if (sent.length <= messages.length && sent.every((m, i) => m === messages[i])) {
      out.push(sent.length);
    }
  }
  return out;
}

/** An earlier result a new one may point to: a tool result still as the tool returned it. */
function verbatim(m: ChatMessage, minChars: number): boolean {
  if (m.role !== "tool" || typeof m.content !== "string" || m.content.length < minChars)
    return false;
  const c = m.content;
  return (
    !(c.startsWith("[") && (DUPLICATE.test(c) || DELTA.test(c) || CLEARED.test(c))) &&
    !TRUNCATED.test(c)
  );
}

/**
 * New results (after `from`) identical to an earlier verbatim result become a pointer to it; those
 * mostly made of an earlier one's lines become a recipe built from it (lib/history/microcompact-delta.ts).
 */
function dedupNewest(
  out: ChatMessage[],
  from: number,
  minChars: number,
  r: MicrocompactResult,
): number {
  let savedTokens = 0;
  const byLength = new Map<number, number[]>();
  const bases: Array<{ id: string; content: string }> = [];
  for (let i = 0; i < out.length; i++) {
    const m = out[i] as ChatMessage;
    if (!verbatim(m, minChars)) continue;
    const same = byLength.get(m.content.length);
    const earlier = i > from ? same?.find((j) => out[j]?.content === m.content) : undefined;
    const id = earlier === undefined ? undefined : out[earlier]?.tool_call_id;
    const line = id
      ? duplicateLine(m.content, id)
      : i > from
        ? deltaPointer(m.content, bases, minChars)
        : undefined;
    if (line !== undefined) {
      out[i] = withContent(m, line);
      savedTokens += messageTokens(m) - messageTokens(out[i] as ChatMessage);
      if (id) r.deduplicated++;
      else r.delta++;
      r.freedChars += m.content.length - line.length;
      continue;
    }
    if (same) same.push(i);
    else byLength.set(m.content.length, [i]);
    if (m.tool_call_id) bases.push({ id: m.tool_call_id, content: m.content });
  }
  return savedTokens;
}

/**
 * What a plan makes the prompt smaller, in the unit the bill and the rewrite are counted in
 * (messageTokens per message, rounded up): the budget must not credit the rounding (a 400-char
 * result sent as a 73-char pointer saves 81 such tokens, not 81.75).
 */
function freedTokens(before: readonly ChatMessage[], p: Plan): number {
  let n = 0;
  for (const { index } of p.due)
    n += messageTokens(before[index] as ChatMessage) - messageTokens(p.after[index] as ChatMessage);
  return n;
}

/**
 * Shrinks old tool results in an agent loop, cache-aware. Before each request:
 * 1. a new result that is byte for byte an earlier result still in the history (the same file read
 *    again, the same test output) goes out as a one-line pointer to it, one made mostly of an earlier
 *    result's lines (the file again after an edit, a wider window) as a recipe built from it — it was
 *    never sent, so the cache loses nothing, and the earlier copy stays verbatim as long as the
 *    pointer would have;
 * 2. every rewrite due is worked out (head + tail after TRUNCATE_TURNS turns, a one-line summary
 *    after SUMMARIZE_TURNS), oldest first, so the cut point is the oldest result not yet in its
 *    final form and everything before it stays byte-identical;
 * 3. they all happen at once only when the clearing pays for itself over the requests still
 *    expected (the run's pace, --max-turns, a floor), frees at least CLEAR_AT_LEAST tokens and (by
 *    default) what it makes the provider write again was saved by pointers first; otherwise the
 *    history goes out untouched, byte for byte.
 * `turnIndex` is the loop's 0-based turn. With `options.state` (one per run) it knows which cache
 * entries a clearing keeps.
 */
export function microcompact(
  messages: readonly ChatMessage[],
  turnIndex: number,
  env: Env,
  options: MicrocompactOptions = {},
): MicrocompactResult {
  const config = options.config ?? microcompactConfig(env);
  const result: MicrocompactResult = {
    messages: messages.slice(),
    truncated: 0,
    summarized: 0,
    deduplicated: 0,
    delta: 0,
    callsCleared: 0,
    freedChars: 0,
    pendingTokens: 0,
    rewriteTokens: 0,
    requestsLeft: 0,
    firstChanged: -1,
    coldCache: false,
  };
  if (!config.enabled) return result;
  let sentBefore = 0;
  for (let i = messages.length - 1; i >= 0 && !sentBefore; i--) {
    if (messages[i]?.role === "assistant") sentBefore = i;
  }
  // the provider's cache expired: it writes the whole prompt again whatever we send, so a clearing
  // now rewrites nothing extra (and writes less than off from here on); what it held is gone
  const cold =
    options.idleMs !== undefined &&
    options.cacheTtlMs !== undefined &&
    options.idleMs >= options.cacheTtlMs;
  result.coldCache = cold;
  if (cold && options.state) {
    options.state.sent.length = 0;
    // off writes its whole, longer prompt again too: we write `freed` tokens less than it here
    options.state.credit += options.state.freed;
  } else if (options.state && sentBefore > 0) remember(options.state, messages, sentBefore);
  const eager = config.clearAtLeast === 0;
  if (!eager && config.dedupMinChars > 0) {
    const saved = dedupNewest(result.messages, sentBefore, config.dedupMinChars, result);
    if (options.state) {
      options.state.credit += saved;
      options.state.freed += saved;
    }
  }
  if (turnIndex < config.truncateTurns) return result;
  const input = { messages: result.messages, ages: agesOf(result.messages), config, eager };
  if (eager) return apply(result, plan(input));
  result.requestsLeft = requestsLeft({ ...config, turnIndex, maxTurns: options.maxTurns });
  const entries = options.state ? cacheEntries(options.state, messages) : [sentBefore];
  // the default (strict): spend only what pointers saved, so writes never exceed no microcompaction's
  const budget = config.writeBudget ? (options.state?.credit ?? 0) : undefined;
  const best = bestClearing({
    ...input,
    sentBefore,
    entries,
    requestsLeft: result.requestsLeft,
    budget,
    cold,
  });
  if (!best) return result;
  result.pendingTokens = best.freedTokens;
  result.rewriteTokens = best.rewriteTokens;
  if (best.freedTokens < config.clearAtLeast || best.gain < 0) return result;
  // Next turn this request is cached too, and a clearing from the same cut rewrites the newest
  // round instead of the one above it: wait when that is cheaper by more than a request's saving.
  const next = plan(input, best.cut, 1);
  const later = rewriteTokens({
    after: next.after,
    cut: best.cut,
    sentBefore: next.after.length,
    entries,
  });
  if (!cold && waitIsCheaper(best.rewriteTokens, later, best.freedTokens, result.requestsLeft))
    return result;
  if (config.writeBudget) {
    if (!options.state || options.state.credit < best.rewriteTokens) return result;
    options.state.credit -= best.rewriteTokens;
  }
  if (options.state) options.state.freed += freedTokens(result.messages, best.plan);
  return apply(result, best.plan);
}

function apply(result: MicrocompactResult, p: Plan): MicrocompactResult {
  const first = p.due[0];
  if (!first) return result;
  for (const { content, calls } of p.due) {
    if (calls) result.callsCleared++;
    else if (content.startsWith("[Old tool result cleared")) result.summarized++;
    else result.truncated++;
  }
  result.freedChars += p.freedChars;
  result.messages = p.after;
  result.firstChanged = first.index;
  return result;
}
