// The dev set (tests/support/devset.ts: GENERATED trajectories shaped like real SWE-bench agent
// runs) replayed through microcompact and priced under both cache models (tests/support/replay.ts).
import { describe, expect, test } from "bun:test";
import { messageTokens } from "../../../lib/history/tokens.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";
import { DEV_SEEDS, HELDOUT_SEEDS, realShapedTrajectory } from "../../support/devset.ts";
import { issue14Microcompact } from "../../support/issue14-microcompact.ts";
import {
  neverAbove as billsNeverAbove,
  clearingCeiling,
  type ReplayPolicy,
  replay,
  replayAll,
  type Trajectory,
} from "../../support/replay.ts";

const dev = DEV_SEEDS.map((seed) => realShapedTrajectory(seed));

/** The issue's short run: ~5k-token tool outputs, prompt sizes 1444, 6379, 11315, … off. */
function fiveK(rounds: number): Trajectory {
  const out: ChatMessage[][] = [];
  for (let t = 0; t < rounds; t++) {
    const body = Array.from({ length: 280 }, (_, n) => `f${t} line ${n} ${"v".repeat(60)}`);
    out.push([
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: `c${t}`, type: "function", name: "read_file", arguments: { file: `f${t}` } },
        ],
      },
      { role: "tool", tool_call_id: `c${t}`, content: body.join("\n").slice(0, 19_680) },
    ]);
  }
  return { prefixTokens: 1200, task: { role: "user", content: "x".repeat(960) }, rounds: out };
}

/** Every prefix of the run (a run stopped after k requests): cumulative bills on ≤ off. */
const neverAbove = (t: Trajectory, policy: ReplayPolicy) =>
  billsNeverAbove(replay(t, policy).requests, replay(t, "none").requests);

describe("microcompact replay on the real-shaped dev set", () => {
  test("calibration: issue 14's microcompact saves on it about what the issue measured on the real runs", () => {
    const s = replayAll(dev, { compact: issue14Microcompact });
    // real runs (issue 23): 21.8% input saved, cost 0.88× OpenAI-style / 0.90× Anthropic, 26/48 untouched
    expect(s.saved).toBeGreaterThan(0.18);
    expect(s.saved).toBeLessThan(0.27);
    expect(s.costRatio.openaiLow).toBeGreaterThan(0.84);
    expect(s.costRatio.anthropic).toBeGreaterThan(0.87);
    expect(s.untouched).toBeGreaterThanOrEqual(24);
  });

  test("the default: no run, stopped after any request, writes or sends uncached more than off; a quarter less input, cheaper than issue 14 and none", () => {
    // a property, not a score: checked on the held-out runs too
    for (const seed of [...DEV_SEEDS, ...HELDOUT_SEEDS])
      expect(neverAbove(realShapedTrajectory(seed), {})).toBe(true);
    for (let n = 1; n <= 40; n += 3) expect(neverAbove(fiveK(n), {})).toBe(true);
    const s = replayAll(dev, {});
    const old = replayAll(dev, { compact: issue14Microcompact });
    expect(s.lastTwoVerbatim).toBe(true);
    expect(s.saved).toBeGreaterThan(0.25);
    expect(s.costRatio.openaiLow).toBeLessThan(0.81);
    expect(s.costRatio.openaiHigh).toBeLessThan(0.76);
    expect(s.costRatio.anthropic).toBeLessThan(0.82);
    expect(s.costRatio.anthropic).toBeLessThan(old.costRatio.anthropic - 0.1);
    expect(s.costlier.anthropic + s.costlier.openaiLow).toBe(0);
    // re-reads after an edit and wider windows go out as recipes: they fund most clearings
    expect(s.delta).toBeGreaterThan(50);
    expect(s.clearings).toBeLessThan(s.requests / 8);
  });

  test("CHATCLI_MICROCOMPACT=cost (no write budget): more input saved, but some runs write more than off", () => {
    const cost = { CHATCLI_MICROCOMPACT: "cost" };
    const s = replayAll(dev, cost);
    expect(s.lastTwoVerbatim).toBe(true);
    expect(s.saved).toBeGreaterThan(0.3);
    expect(s.costRatio.openaiLow).toBeLessThanOrEqual(0.8);
    expect(s.costRatio.anthropic).toBeLessThan(0.82);
    expect(s.everAbove).toBeGreaterThan(5);
  });

  test("the issue's 7-request run (5k-token outputs): the same requests as off, so no more uncached input or cache writes", () => {
    const t = fiveK(6);
    const on = replay(t, {});
    const off = replay(t, "none");
    const issue = [1444, 6379, 11315, 16250, 21185, 26120, 31056];
    for (const [i, r] of off.requests.entries())
      expect(Math.abs(r.input - (issue[i] as number))).toBeLessThan(60);
    expect(on.requests).toEqual(off.requests);
    expect(on.openaiUncached).toBeLessThanOrEqual(off.openaiUncached);
    expect(on.anthropicWrite).toBeLessThanOrEqual(off.anthropicWrite);
    // issue 14's rule cleared twice and wrote ~40% more
    expect(replay(t, { compact: issue14Microcompact }).anthropicWrite).toBeGreaterThan(
      1.3 * off.anthropicWrite,
    );
  });
});

test("the clearing ceiling: free clearing of all but the last two turns, by hand on the short run; no policy far above it", () => {
  // 4 rounds of one ~4.9k-token result: request k carries k rounds, the results of max(0, k − 2)
  // of them at 20 tokens
  const t = fiveK(4);
  const result = replay(t, "none").requests.map((r) => r.input);
  const each = (result[1] as number) - (result[0] as number);
  const base = result[0] as number;
  const tool = messageTokens(t.rounds[0]?.[1] as ChatMessage);
  let full = 0;
  let bound = 0;
  for (let k = 0; k <= 4; k++) {
    full += base + k * each;
    bound += base + Math.min(k, 2) * each + Math.max(0, k - 2) * (each - tool + 20);
  }
  expect(clearingCeiling([t])).toBeCloseTo(1 - bound / full, 9);
  expect(clearingCeiling([])).toBe(0);
  // recipes and pointers can shrink the last two turns too, so a policy may pass it by a little
  const ceiling = clearingCeiling(dev);
  for (const policy of [{}, { CHATCLI_MICROCOMPACT: "cost" }])
    expect(replayAll(dev, policy).saved).toBeLessThan(ceiling + 0.05);
});

test("bench sections: the replay tables and level 1 report every row", async () => {
  const { microcompactSection } = await import("../../../scripts/bench-microcompact.ts");
  const { benchLevel1 } = await import("../../../scripts/bench-level1.ts");
  const table = microcompactSection(3);
  // 3 sets × 4 policies, then the short run's off + 3 policies
  expect(table.filter((l) => /^\| (dev|held-out|issue 14's set)/.test(l))).toHaveLength(12);
  const short = table.slice(table.findIndex((l) => l.startsWith("The issue's short run")));
  expect(short.filter((l) => /^\| (off|issue 14|defaults|CHATCLI)/.test(l))).toHaveLength(4);
  const [row] = await benchLevel1(undefined, "/nonexistent", [0.2]);
  expect(row?.messages).toBeGreaterThan(10);
  expect(row?.inProcessMbPerSecond).toBeGreaterThan(0);
  expect(row?.cliMs).toBeNaN();
});

test("a request after the provider's cache expired clears for free: more input saved, still never above off", () => {
  // every 6th request comes after an idle spell past the TTL (a slow test suite, a coffee break)
  const runs = dev.map((t) => ({
    ...t,
    coldAt: Array.from({ length: t.rounds.length + 1 }, (_, i) => i).filter((i) => i % 6 === 5),
  }));
  const warm = replayAll(runs, { CHATCLI_MICROCOMPACT: "strict" });
  for (const t of runs) expect(neverAbove(t, {})).toBe(true);
  const s = replayAll(runs, {});
  expect(s.saved).toBeGreaterThan(replayAll(dev, {}).saved + 0.03);
  expect(s.everAbove).toBe(0);
  expect(warm.saved).toBe(s.saved);
});
