// Microcompact replay: agent trajectories replayed request by request as lib/agent/loop.ts sends
// them (microcompact before each request, its result kept), each request priced under two
// prompt-cache models. Trajectories: tests/support/devset.ts (shaped like real SWE-bench runs) and
// tests/support/issue14-set.ts (issue 14's). Used by the microcompact tests and `npm run bench`.
import type { Env } from "../../lib/core/ctx.ts";
import { microcompact, newMicrocompactState } from "../../lib/history/microcompact.ts";
import type { MicrocompactConfig } from "../../lib/history/microcompact-config.ts";
import { applyDelta, DELTA } from "../../lib/history/microcompact-delta.ts";
import { DUPLICATE } from "../../lib/history/microcompact-forms.ts";
import { messageTokens } from "../../lib/history/tokens.ts";
import type { ChatMessage } from "../../lib/llm/types.ts";

/** Anthropic's list prices as multiples of uncached input: cache read 0.1×, cache write 1.25×. */
export const PRICE = { read: 0.1, write: 1.25, uncached: 1 } as const;
/** OpenAI's cached input: 0.1× (gpt-5, gpt-4.1 0.25×) to 0.5× (gpt-4o); both ends are priced. */
export const OPENAI_READ = { low: 0.1, high: 0.5 } as const;
/** An earlier cache entry is found only when at most this many blocks follow it (mock-llm-wire.ts). */
export const LOOKBACK_BLOCKS = 20;

export interface Trajectory {
  /** Tokens of the system prompt + tool definitions (the cached request prefix). */
  prefixTokens: number;
  task: ChatMessage;
  /** Each round: the assistant message with its tool calls, then the results. */
  rounds: ChatMessage[][];
  /** Requests before which the run sat idle past the provider's cache TTL (a slow test suite). */
  coldAt?: readonly number[];
}

/** One request on the wire, as each cache model bills it (tokens). */
export interface RequestBill {
  input: number;
  /** OpenAI-style prefix cache: read from the cache / billed as uncached input. */
  openaiRead: number;
  openaiUncached: number;
  /** The same before the provider's rounding (128-token cache blocks, 1024 at least). */
  openaiUncachedExact: number;
  /** Anthropic breakpoints: read from the cache / written to it. */
  anthropicRead: number;
  anthropicWrite: number;
}

export interface ReplayResult {
  requests: RequestBill[];
  cumulativeInput: number;
  /** Cost in uncached-input tokens: OpenAI at read 0.1× and 0.5×, Anthropic. */
  cost: { openaiLow: number; openaiHigh: number; anthropic: number };
  openaiUncached: number;
  anthropicWrite: number;
  /** Requests whose history changed inside what the previous request carried (a clearing). */
  clearings: number;
  /** New results sent as a pointer to an identical earlier one. */
  deduplicated: number;
  /** New results sent as a recipe built from an earlier one's lines. */
  delta: number;
  /** Every request carried the last 2 turns' results as the tools returned them (or a pointer to an identical copy). */
  lastTwoVerbatim: boolean;
}

/** What replays a history before each request: none, or microcompact with this env (and limits). */
export type ReplayPolicy =
  | "none"
  | Env
  | { env: Env; maxTurns?: number; config?: MicrocompactConfig }
  | { compact: (history: readonly ChatMessage[], turnIndex: number) => ChatMessage[] };

function lcp(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

function blocksOf(m: ChatMessage): number {
  return m.role === "assistant" ? (m.content ? 1 : 0) + (m.tool_calls?.length ?? 0) : 1;
}

/** The same assistant turn, its tool calls' arguments as the model sent them. */
function sameTurn(sent: ChatMessage, original: ChatMessage): boolean {
  return (
    sent.role === "assistant" &&
    sent.content === original.content &&
    JSON.stringify(sent.tool_calls) === JSON.stringify(original.tool_calls)
  );
}

/** Whether the history carries `original` as returned, or a pointer to an identical earlier copy. */
function carried(history: readonly ChatMessage[], original: ChatMessage): boolean {
  const sent = history.find((m) => m.role === "tool" && m.tool_call_id === original.tool_call_id);
  if (!sent) return false;
  if (sent.content === original.content) return true;
  const id = DUPLICATE.exec(sent.content)?.[1];
  if (id) return history.some((m) => m.tool_call_id === id && m.content === original.content);
  // a recipe: what it rebuilds from its base (still in the history) is the result as returned
  const base = DELTA.exec(sent.content)?.[1];
  const from = history.find((m) => m.role === "tool" && m.tool_call_id === base);
  return from !== undefined && applyDelta(sent.content, from.content) === original.content;
}

/**
 * Replays one trajectory and prices each request under
 * - OpenAI-style prefix caching: the longest prefix shared with any earlier request is read
 *   (≥ 1024 tokens, in 128-token steps), the rest is uncached input;
 * - Anthropic breakpoints as chatcli places them (after the system/tools prefix and after the last
 *   message): the longest earlier entry that is still a prefix and has at most 19 blocks after it
 *   (the 20-block lookback, as tests/support/mock-llm-wire.ts) is read, the rest is written.
 */
export function replay(trajectory: Trajectory, policy: ReplayPolicy): ReplayResult {
  type Compact = (history: readonly ChatMessage[], turnIndex: number) => ChatMessage[];
  const custom =
    policy !== "none" && "compact" in policy && typeof policy.compact === "function"
      ? (policy.compact as Compact)
      : undefined;
  const full =
    policy === "none" || custom ? undefined : "env" in policy ? policy : { env: policy as Env };
  const env = full?.env as Env | undefined;
  const options = {
    maxTurns: full?.maxTurns as number | undefined,
    config: full?.config as MicrocompactConfig | undefined,
  };
  const state = newMicrocompactState();
  const ids = new Map<string, number>();
  const keyOf = (m: ChatMessage) => {
    // the calls too: an old turn whose long arguments were cleared is another message to the cache
    const calls = m.tool_calls ? JSON.stringify(m.tool_calls) : "";
    const k = `${m.role}\u0000${m.tool_call_id ?? ""}\u0000${m.content}\u0000${calls}`;
    let id = ids.get(k);
    if (id === undefined) {
      id = ids.size;
      ids.set(k, id);
    }
    return id;
  };
  const out: ReplayResult = {
    requests: [],
    cumulativeInput: 0,
    cost: { openaiLow: 0, openaiHigh: 0, anthropic: 0 },
    openaiUncached: 0,
    anthropicWrite: 0,
    clearings: 0,
    deduplicated: 0,
    delta: 0,
    lastTwoVerbatim: true,
  };
  const earlier: Array<{ keys: number[]; cum: number[] }> = [];
  const entries: Array<{ req: number; count: number }> = [];
  let history: ChatMessage[] = [trajectory.task];
  for (let t = 0; t <= trajectory.rounds.length; t++) {
    const cold = trajectory.coldAt?.includes(t) ?? false;
    if (cold) {
      // the provider's cache expired: nothing earlier is read, with or without microcompaction
      earlier.length = 0;
      entries.length = 0;
    }
    if (env) {
      const idle = cold ? { idleMs: 1, cacheTtlMs: 1 } : {};
      const mc = microcompact(history, t, env, { ...options, state, ...idle });
      out.deduplicated += mc.deduplicated;
      out.delta += mc.delta;
      history = mc.messages;
    } else if (custom) history = custom(history, t);
    for (const round of trajectory.rounds.slice(Math.max(0, t - 2), t)) {
      for (const m of round) {
        if (m.role === "tool" && !carried(history, m)) out.lastTwoVerbatim = false;
        if (m.role === "assistant" && !history.some((h) => sameTurn(h, m)))
          out.lastTwoVerbatim = false;
      }
    }
    const keys = history.map(keyOf);
    const previous = earlier.at(-1);
    if (previous && lcp(previous.keys, keys) < previous.keys.length) out.clearings++;
    const cum = [trajectory.prefixTokens];
    const blocks = [0];
    for (const m of history) {
      cum.push((cum.at(-1) as number) + messageTokens(m));
      blocks.push((blocks.at(-1) as number) + blocksOf(m));
    }
    const total = cum.at(-1) as number;

    let shared = 0;
    for (const e of earlier) shared = Math.max(shared, e.cum[lcp(e.keys, keys)] as number);
    const openaiRead = shared >= 1024 ? Math.floor(shared / 128) * 128 : 0;

    let anthropicRead = earlier.length > 0 ? trajectory.prefixTokens : 0;
    for (const e of entries) {
      const from = earlier[e.req] as { keys: number[] };
      if (e.count > keys.length) continue;
      if ((blocks.at(-1) as number) - (blocks[e.count] as number) >= LOOKBACK_BLOCKS) continue;
      if (lcp(from.keys, keys) >= e.count)
        anthropicRead = Math.max(anthropicRead, cum[e.count] as number);
    }
    const bill: RequestBill = {
      input: total,
      openaiRead,
      openaiUncached: total - openaiRead,
      openaiUncachedExact: total - shared,
      anthropicRead,
      anthropicWrite: total - anthropicRead,
    };
    out.requests.push(bill);
    out.cumulativeInput += total;
    out.openaiUncached += bill.openaiUncached;
    out.anthropicWrite += bill.anthropicWrite;
    out.cost.openaiLow += openaiRead * OPENAI_READ.low + bill.openaiUncached;
    out.cost.openaiHigh += openaiRead * OPENAI_READ.high + bill.openaiUncached;
    out.cost.anthropic += anthropicRead * PRICE.read + bill.anthropicWrite * PRICE.write;
    entries.push({ req: earlier.length, count: keys.length });
    earlier.push({ keys, cum });
    if (t < trajectory.rounds.length) history.push(...(trajectory.rounds[t] as ChatMessage[]));
  }
  return out;
}

export interface ReplaySummary {
  trajectories: number;
  requests: number;
  none: { input: number; openaiLow: number; openaiHigh: number; anthropic: number };
  micro: { input: number; openaiLow: number; openaiHigh: number; anthropic: number };
  clearings: number;
  deduplicated: number;
  delta: number;
  /** 1 − micro / none for cumulative input; micro / none for each cost. */
  saved: number;
  costRatio: { openaiLow: number; openaiHigh: number; anthropic: number };
  /** Trajectories that saved nothing (no clearing, no pointer). */
  untouched: number;
  /** Trajectories that cost more than none, per cache model. */
  costlier: { openaiLow: number; openaiHigh: number; anthropic: number };
  /** Trajectories with more uncached input (OpenAI) / more cache writes (Anthropic) than none. */
  moreUncached: number;
  moreWrites: number;
  /**
   * Trajectories whose cumulative cache writes or uncached input (before the provider's 128-token
   * rounding) exceed none's after some request: a run stopped there paid more of either.
   */
  everAbove: number;
  /** Summed over all requests: uncached input (OpenAI model) and cache writes (Anthropic). */
  uncached: { none: number; micro: number };
  writes: { none: number; micro: number };
  lastTwoVerbatim: boolean;
}

/**
 * Whether `on`, stopped after any request, has written to the cache and sent uncached no more than
 * `off` (uncached before the provider rounds the cached part down to 128-token blocks: a prompt of
 * another length lands elsewhere in its block, up to 127 tokens either way per request).
 */
export function neverAbove(on: readonly RequestBill[], off: readonly RequestBill[]): boolean {
  let w = 0;
  let u = 0;
  for (const [i, r] of on.entries()) {
    w += r.anthropicWrite - (off[i]?.anthropicWrite as number);
    u += r.openaiUncachedExact - (off[i]?.openaiUncachedExact as number);
    if (w > 0 || u > 0) return false;
  }
  return true;
}

/** Replays each trajectory with and without microcompaction and sums the bills. */
export function replayAll(
  trajectories: readonly Trajectory[],
  policy: ReplayPolicy,
): ReplaySummary {
  const s: ReplaySummary = {
    trajectories: trajectories.length,
    requests: 0,
    none: { input: 0, openaiLow: 0, openaiHigh: 0, anthropic: 0 },
    micro: { input: 0, openaiLow: 0, openaiHigh: 0, anthropic: 0 },
    clearings: 0,
    deduplicated: 0,
    delta: 0,
    saved: 0,
    costRatio: { openaiLow: 0, openaiHigh: 0, anthropic: 0 },
    untouched: 0,
    costlier: { openaiLow: 0, openaiHigh: 0, anthropic: 0 },
    moreUncached: 0,
    moreWrites: 0,
    everAbove: 0,
    uncached: { none: 0, micro: 0 },
    writes: { none: 0, micro: 0 },
    lastTwoVerbatim: true,
  };
  for (const trajectory of trajectories) {
    const a = replay(trajectory, "none");
    const b = replay(trajectory, policy);
    s.requests += a.requests.length;
    s.none.input += a.cumulativeInput;
    s.micro.input += b.cumulativeInput;
    for (const k of ["openaiLow", "openaiHigh", "anthropic"] as const) {
      s.none[k] += a.cost[k];
      s.micro[k] += b.cost[k];
      if (b.cost[k] > a.cost[k] + 1e-9) s.costlier[k]++;
    }
    s.clearings += b.clearings;
    s.deduplicated += b.deduplicated;
    s.delta += b.delta;
    if (b.clearings === 0 && b.deduplicated === 0 && b.delta === 0) s.untouched++;
    if (b.openaiUncached > a.openaiUncached) s.moreUncached++;
    if (b.anthropicWrite > a.anthropicWrite) s.moreWrites++;
    s.uncached.none += a.openaiUncached;
    s.uncached.micro += b.openaiUncached;
    s.writes.none += a.anthropicWrite;
    s.writes.micro += b.anthropicWrite;
    s.lastTwoVerbatim &&= b.lastTwoVerbatim;
    if (!neverAbove(b.requests, a.requests)) s.everAbove++;
  }
  s.saved = 1 - s.micro.input / s.none.input;
  for (const k of ["openaiLow", "openaiHigh", "anthropic"] as const) {
    s.costRatio[k] = s.micro[k] / s.none[k];
  }
  return s;
}

/**
 * What no rule can beat while the last two turns stay verbatim: every result older than them
 * replaced by a 20-token line at every request, at no rewrite cost (1 − that input ÷ the input off).
 * Pointers and recipes can still shrink the last two turns' results, so a policy may pass it by a
 * little; a goal above it is out of reach for these runs.
 */
export function clearingCeiling(trajectories: readonly Trajectory[]): number {
  let full = 0;
  let bound = 0;
  for (const t of trajectories) {
    for (let k = 0; k <= t.rounds.length; k++) {
      let a = t.prefixTokens + messageTokens(t.task);
      let b = a;
      for (const [i, round] of t.rounds.slice(0, k).entries()) {
        for (const m of round) {
          const x = messageTokens(m);
          a += x;
          b += m.role === "tool" && i < k - 2 ? Math.min(x, 20) : x;
        }
      }
      full += a;
      bound += b;
    }
  }
  return full === 0 ? 0 : 1 - bound / full;
}
