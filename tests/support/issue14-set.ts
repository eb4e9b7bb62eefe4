// The generated trajectories of issue 14's replay (kept to compare with the real-shaped dev set of
// issue 23, tests/support/devset.ts): 10–60 turns, tool outputs mostly 1–20k chars (35% under 1 KB,
// 45% 1–5 KB, 20% 5–20 KB) and 0–2 of 50–300 KB per run; no repeated reads, no short runs. GENERATED.
import type { ChatMessage } from "../../lib/llm/types.ts";
import type { Trajectory } from "./replay.ts";

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
