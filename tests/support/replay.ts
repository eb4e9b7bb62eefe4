// Microcompact replay: generated agent trajectories shaped like real runs (many tool outputs of
// 1–20k chars, a few huge ones), replayed request by request through microcompact, priced under two
// prompt-cache models. Used by tests/unit/history/microcompact-replay.test.ts and `npm run bench`.
import type { Env } from "../../lib/core/ctx.ts";
import { microcompact } from "../../lib/history/microcompact.ts";
import { messageTokens } from "../../lib/history/tokens.ts";
import type { ChatMessage } from "../../lib/llm/types.ts";

/** Price multipliers of the issue (list cache prices): cached read 0.1×, cache write 1.25×. */
export const PRICE = { read: 0.1, write: 1.25, uncached: 1 } as const;
/** Anthropic looks back this many blocks from a breakpoint for an earlier cache entry. */
export const LOOKBACK_BLOCKS = 20;

export interface Trajectory {
  /** Tokens of the system prompt + tool definitions (the cached request prefix). */
  prefixTokens: number;
  task: ChatMessage;
  /** Each round: the assistant message with its tool calls, then the results. */
  rounds: ChatMessage[][];
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LINES = [
  (n: number) => `  ${n}\tconst value${n} = compute(input, ${n % 17});`,
  (n: number) => `src/module_${n % 40}.py:${n}: def handler_${n}(request, context=None):`,
  (n: number) =>
    `[2026-03-0${(n % 9) + 1} 10:${String(n % 60).padStart(2, "0")}:00] INFO worker ${n % 8} processed batch ${n}`,
  (n: number) => `tests/test_${n % 30}.py::test_case_${n} PASSED`,
  (n: number) => `    return self._cache.get(key_${n}) or self._load(key_${n})`,
];

function body(rand: () => number, chars: number, salt: number): string {
  const parts: string[] = [];
  let size = 0;
  const style = Math.floor(rand() * LINES.length);
  for (let n = 0; size < chars; n++) {
    const make = LINES[(style + (rand() < 0.2 ? 1 : 0)) % LINES.length] as (n: number) => string;
    const line = rand() < 0.01 ? `error: step ${salt}.${n} failed` : make(n + salt);
    parts.push(line);
    size += line.length + 1;
  }
  return parts.join("\n").slice(0, chars);
}

function resultSize(rand: () => number): number {
  // Most outputs are short (a listing, a grep, "file written"), many 1–5k, some 5–20k (log-uniform).
  const r = rand();
  if (r < 0.35) return 50 + Math.floor(rand() * 950);
  if (r < 0.8) return Math.floor(1000 * 5 ** rand());
  return Math.floor(5000 * 4 ** rand());
}

/** One trajectory; `seed` makes it reproducible. */
export function generateTrajectory(seed: number): Trajectory {
  const rand = mulberry32(seed);
  const turns = 10 + Math.floor(rand() * 51);
  const hugeAt = new Set<number>();
  const huge = Math.floor(rand() * 3);
  for (let i = 0; i < huge; i++) hugeAt.add(Math.floor(rand() * turns));
  const rounds: ChatMessage[][] = [];
  for (let t = 0; t < turns; t++) {
    const calls = rand() < 0.15 ? 2 : 1;
    const ids = Array.from({ length: calls }, (_, c) => `call_${seed}_${t}_${c}`);
    const assistant: ChatMessage = {
      role: "assistant",
      content: `Step ${t}: ${"checking the next part of the code path. ".repeat(4 + Math.floor(rand() * 30))}`,
      tool_calls: ids.map((id, c) => ({
        id,
        type: "function",
        name: ["read_file", "search_files", "run_command", "list_directory"][(t + c) % 4] as string,
        arguments: { path: `src/module_${(t * 7 + c) % 40}.py`, query: `handler_${t}` },
      })),
    };
    const results = ids.map(
      (id, c): ChatMessage => ({
        role: "tool",
        tool_call_id: id,
        content: body(
          rand,
          hugeAt.has(t) && c === 0 ? 50_000 + Math.floor(rand() * 250_000) : resultSize(rand),
          seed * 1000 + t,
        ),
      }),
    );
    rounds.push([assistant, ...results]);
  }
  return {
    prefixTokens: 1500 + Math.floor(rand() * 3000),
    task: {
      role: "user",
      content: `Fix issue #${seed}: ${"the handler returns stale values after a reload. ".repeat(8 + Math.floor(rand() * 50))}`,
    },
    rounds,
  };
}

export interface CacheCost {
  /** Tokens read from the cache. */
  read: number;
  /** Tokens written to the cache (Anthropic) — 0 on OpenAI, where misses are plain input. */
  write: number;
  /** Tokens neither read nor written. */
  uncached: number;
  /** read × 0.1 + write × 1.25 + uncached × 1, in input-token units. */
  cost: number;
}

export interface ReplayResult {
  requests: number;
  cumulativeInput: number;
  openai: CacheCost;
  anthropic: CacheCost;
  /** Requests whose prefix changed inside the history (a clearing). */
  clearings: number;
  /** Every request carried the tool results of the last 2 turns byte for byte. */
  lastTwoVerbatim: boolean;
}

interface Req {
  keys: number[];
  /** Anthropic content blocks before each message boundary: blocks[i] = blocks of messages [0, i). */
  blocks: number[];
  /** cumulative tokens after the prefix and each message: sizes[0] = prefix. */
  cum: number[];
}

function lcp(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * Replays one trajectory: before each request the loop runs microcompact (unless `env` is "none")
 * and keeps what it returns, as lib/agent/loop.ts does. Prices each request under
 * - OpenAI-style prefix caching: the longest prefix shared with any earlier request is read
 *   (≥ 1024 tokens, in 128-token steps), the rest is uncached input;
 * - Anthropic breakpoints as chatcli places them (after the system/tools prefix and after the last
 *   message): the longest earlier entry that is still a prefix and lies within 20 blocks of a
 *   breakpoint is read, everything after it is written.
 */
export function replay(trajectory: Trajectory, env: Env | "none"): ReplayResult {
  const ids = new Map<string, number>();
  const keyOf = (m: ChatMessage) => {
    const k = `${m.role}\u0000${m.tool_call_id ?? ""}\u0000${m.content}`;
    let id = ids.get(k);
    if (id === undefined) {
      id = ids.size;
      ids.set(k, id);
    }
    return id;
  };
  const out: ReplayResult = {
    requests: 0,
    cumulativeInput: 0,
    openai: { read: 0, write: 0, uncached: 0, cost: 0 },
    anthropic: { read: 0, write: 0, uncached: 0, cost: 0 },
    clearings: 0,
    lastTwoVerbatim: true,
  };
  const earlier: Req[] = [];
  // Anthropic cache entries: (request index, message count) written at a breakpoint.
  const entries: Array<{ req: number; count: number }> = [];
  let history: ChatMessage[] = [trajectory.task];
  for (let t = 0; t <= trajectory.rounds.length; t++) {
    if (env !== "none") {
      const mc = microcompact(history, t, env);
      if (mc.firstChanged >= 0) out.clearings++;
      history = mc.messages;
    }
    // the last two rounds' results must be as the tools returned them
    for (const round of trajectory.rounds.slice(Math.max(0, t - 2), t)) {
      for (const m of round) {
        if (m.role === "tool" && !history.includes(m)) out.lastTwoVerbatim = false;
      }
    }
    const keys = history.map(keyOf);
    const cum = [trajectory.prefixTokens];
    const blocks = [0];
    for (const m of history) {
      cum.push((cum.at(-1) as number) + messageTokens(m));
      const n = m.role === "assistant" ? (m.content ? 1 : 0) + (m.tool_calls?.length ?? 0) : 1;
      blocks.push((blocks.at(-1) as number) + n);
    }
    const total = cum.at(-1) as number;
    const req: Req = { keys, cum, blocks };
    out.requests++;
    out.cumulativeInput += total;

    let shared = 0;
    for (const e of earlier) shared = Math.max(shared, e.cum[lcp(e.keys, keys)] as number);
    const cached = shared >= 1024 ? Math.floor(shared / 128) * 128 : 0;
    out.openai.read += cached;
    out.openai.uncached += total - cached;

    let hit = earlier.length > 0 ? trajectory.prefixTokens : 0;
    for (const e of entries) {
      const from = earlier[e.req] as Req;
      if (e.count > keys.length) continue;
      if ((blocks.at(-1) as number) - (blocks[e.count] as number) > LOOKBACK_BLOCKS) continue;
      if (lcp(from.keys, keys) >= e.count) hit = Math.max(hit, cum[e.count] as number);
    }
    out.anthropic.read += hit;
    out.anthropic.write += total - hit;
    entries.push({ req: earlier.length, count: keys.length });
    earlier.push(req);
    if (t < trajectory.rounds.length) history.push(...(trajectory.rounds[t] as ChatMessage[]));
  }
  out.openai.cost = out.openai.read * PRICE.read + out.openai.uncached * PRICE.uncached;
  out.anthropic.cost = out.anthropic.read * PRICE.read + out.anthropic.write * PRICE.write;
  return out;
}

export interface ReplaySummary {
  trajectories: number;
  requests: number;
  none: { input: number; openai: number; anthropic: number };
  micro: { input: number; openai: number; anthropic: number; clearings: number };
  /** 1 − micro / none, for cumulative input and each cache model's cost. */
  saved: { input: number; openai: number; anthropic: number };
  lastTwoVerbatim: boolean;
  /** Trajectories where microcompaction cost more than none, per cache model. */
  costlier: { openai: number; anthropic: number };
}

/** Replays `count` generated trajectories with and without microcompaction. */
export function replayMany(count: number, env: Env, firstSeed = 1): ReplaySummary {
  const s: ReplaySummary = {
    trajectories: count,
    requests: 0,
    none: { input: 0, openai: 0, anthropic: 0 },
    micro: { input: 0, openai: 0, anthropic: 0, clearings: 0 },
    saved: { input: 0, openai: 0, anthropic: 0 },
    lastTwoVerbatim: true,
    costlier: { openai: 0, anthropic: 0 },
  };
  for (let seed = firstSeed; seed < firstSeed + count; seed++) {
    const trajectory = generateTrajectory(seed);
    const a = replay(trajectory, "none");
    const b = replay(trajectory, env);
    s.requests += a.requests;
    s.none.input += a.cumulativeInput;
    s.none.openai += a.openai.cost;
    s.none.anthropic += a.anthropic.cost;
    s.micro.input += b.cumulativeInput;
    s.micro.openai += b.openai.cost;
    s.micro.anthropic += b.anthropic.cost;
    s.micro.clearings += b.clearings;
    s.lastTwoVerbatim &&= b.lastTwoVerbatim;
    if (b.openai.cost > a.openai.cost) s.costlier.openai++;
    if (b.anthropic.cost > a.anthropic.cost) s.costlier.anthropic++;
  }
  s.saved = {
    input: 1 - s.micro.input / s.none.input,
    openai: 1 - s.micro.openai / s.none.openai,
    anthropic: 1 - s.micro.anthropic / s.none.anthropic,
  };
  return s;
}
