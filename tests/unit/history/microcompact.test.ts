import { describe, expect, test } from "bun:test";
import {
  contentType,
  MICROCOMPACT_DEFAULTS,
  microcompact,
  microcompactConfig,
} from "../../../lib/history/microcompact.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";
import { generateTrajectory, replay, replayMany } from "../../support/replay.ts";
import { asst, call, result, user } from "./build.ts";

function loop(turns: number, size = 6000): ChatMessage[] {
  const out: ChatMessage[] = [user("task")];
  for (let t = 0; t < turns; t++) {
    out.push(call(`c${t}`, "read_file", { file: `f${t}` }));
    out.push(result(`c${t}`, `${`line ${t}\n`.repeat(size / 7)}`));
  }
  out.push(asst("done"));
  return out;
}

/** The seed's eager behaviour: every eligible result is rewritten at once, every turn. */
const EAGER = {
  CHATCLI_MICROCOMPACT_CLEAR_AT_LEAST: "0",
  CHATCLI_MICROCOMPACT_MIN_CONTENT: "3000",
};

describe("microcompact, eager (CLEAR_AT_LEAST=0, the seed's values)", () => {
  test("skipped before TRUNCATE_TURNS", () => {
    const history = loop(6);
    const res = microcompact(history, 1, EAGER);
    expect(res.messages).toEqual(history);
    expect(res.truncated + res.summarized).toBe(0);
  });

  test("old results: head+tail after 2 turns, one-line summary after 4", () => {
    const history = loop(6);
    // 7 assistant messages in total; result of call t has turn t+1, age = 6 - t.
    const res = microcompact(history, 5, EAGER);
    const contents = res.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(contents[0]).toMatch(/^\[Old tool result cleared — \d+ lines, \d+ chars, text\]$/);
    expect(contents[2]).toStartWith("[Old tool result cleared");
    expect(contents[3]).toMatch(/chars omitted from old tool result \(\d+ lines, text\) \.\.\.\]/);
    expect(contents[4]).toContain("chars omitted from old tool result");
    expect(contents[5]).toBe(history[12]?.content as string);
    expect(res.summarized).toBe(3);
    expect(res.truncated).toBe(2);
    expect(res.freedChars).toBeGreaterThan(0);
    expect(res.firstChanged).toBe(2);
    expect(res.messages.every((m, i) => m.tool_call_id === history[i]?.tool_call_id)).toBe(true);
  });

  test("env knobs and the min-content floor", () => {
    const history = loop(6, 1000);
    expect(microcompact(history, 5, EAGER).summarized).toBe(0);
    const res = microcompact(history, 5, {
      ...EAGER,
      CHATCLI_MICROCOMPACT_MIN_CONTENT: "500",
      CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS: "10",
      CHATCLI_MICROCOMPACT_HEAD_CHARS: "100",
      CHATCLI_MICROCOMPACT_TAIL_CHARS: "50",
    });
    expect(res.summarized).toBe(0);
    expect(res.truncated).toBe(5);
    expect(res.messages[2]?.content.length).toBeLessThan(350);
  });

  test("content types", () => {
    expect(contentType('{"a":1}')).toBe("JSON");
    expect(contentType("package main\n")).toBe("Go source");
    expect(contentType("diff --git a b")).toBe("diff");
    expect(contentType("commit abc")).toBe("git log");
    expect(contentType("hello")).toBe("text");
  });
});

describe("microcompact, cache-aware (the defaults)", () => {
  test("defaults: the seed's knobs except MIN_CONTENT 1000, clearing at 8000 tokens", () => {
    expect(microcompactConfig({})).toEqual(MICROCOMPACT_DEFAULTS);
    expect(MICROCOMPACT_DEFAULTS).toMatchObject({
      truncateTurns: 2,
      summarizeTurns: 4,
      headChars: 2000,
      tailChars: 500,
      minContent: 1000,
      clearAtLeast: 8000,
    });
    expect(microcompactConfig({ CHATCLI_MICROCOMPACT_CLEAR_AT_LEAST: "0" }).clearAtLeast).toBe(0);
    expect(microcompactConfig({ CHATCLI_MICROCOMPACT_CLEAR_AT_LEAST: "-1" }).clearAtLeast).toBe(
      8000,
    );
  });

  test("eligible but under the threshold: nothing changes, byte for byte", () => {
    const history = loop(6, 6000); // ~4 results due, ~5k tokens: below 8000
    const res = microcompact(history, 5, {});
    expect(res.pendingTokens).toBeGreaterThan(0);
    expect(res.pendingTokens).toBeLessThan(8000);
    expect(res.firstChanged).toBe(-1);
    expect(res.truncated + res.summarized).toBe(0);
    for (const [i, m] of res.messages.entries()) expect(m).toBe(history[i] as ChatMessage);
  });

  test("at the threshold every due rewrite happens at once; afterwards the prefix is stable", () => {
    let history = loop(3, 12_000);
    const first = microcompact(history, 2, {});
    expect(first.pendingTokens).toBeGreaterThan(4000); // 2 results due for head + tail
    expect(first.truncated + first.summarized).toBe(0);
    history = loop(8, 20_000);
    const clearing = microcompact(history, 7, {});
    expect(clearing.pendingTokens).toBeGreaterThanOrEqual(8000);
    expect(clearing.summarized).toBe(5);
    expect(clearing.truncated).toBe(2);
    expect(clearing.firstChanged).toBe(2);
    // the last two turns (the final "done" counts as one) stay verbatim
    expect(clearing.messages.slice(-3)).toEqual(history.slice(-3));
    // next turn: one more result becomes due for head + tail, far under the threshold → unchanged
    const next = [
      ...clearing.messages.slice(0, -1),
      call("c8", "read_file", { file: "f8" }),
      result("c8", "x".repeat(20_000)),
      asst("done"),
    ];
    const after = microcompact(next, 8, {});
    expect(after.firstChanged).toBe(-1);
    for (const [i, m] of after.messages.entries()) expect(m).toBe(next[i] as ChatMessage);
  });

  test("a truncated result later becomes the summary line of the original", () => {
    const original = `${"row\n".repeat(4999)}end`;
    const history: ChatMessage[] = [user("task")];
    for (let t = 0; t < 7; t++) {
      history.push(call(`c${t}`, "run_command", {}), result(`c${t}`, original));
    }
    history.push(asst("done"));
    const eager = { CHATCLI_MICROCOMPACT_CLEAR_AT_LEAST: "0" };
    const truncated = microcompact(history, 7, eager).messages[12]?.content as string;
    expect(truncated).toContain("chars omitted from old tool result (5000 lines, text)");
    const later = [...history.slice(0, 12), result("c5", truncated), ...history.slice(13)];
    later.push(call("x1", "ls", {}), result("x1", "a"), call("x2", "ls", {}), result("x2", "b"));
    const summarized = microcompact(later, 9, eager).messages[12]?.content;
    expect(summarized).toBe("[Old tool result cleared — 5000 lines, 19999 chars, text]");
    // cleared results are final
    const again = microcompact(microcompact(later, 9, eager).messages, 10, eager);
    expect(again.messages[12]?.content).toBe(summarized as string);
  });

  test("replay: ≥ 35% less cumulative input, cheaper on both cache models, last 2 turns verbatim", () => {
    const s = replayMany(16, {});
    expect(s.lastTwoVerbatim).toBe(true);
    expect(s.saved.input).toBeGreaterThanOrEqual(0.35);
    expect(s.micro.openai).toBeLessThan(s.none.openai);
    expect(s.micro.anthropic).toBeLessThan(s.none.anthropic);
    // the prefix changes only at clearings, a few per run, not every turn
    expect(s.micro.clearings).toBeLessThan(s.requests / 5);
  });

  test("replay: the seed's eager rewrite saves input but costs more on Anthropic", () => {
    const s = replayMany(16, EAGER);
    expect(s.saved.input).toBeGreaterThan(0.35);
    expect(s.micro.anthropic).toBeGreaterThan(s.none.anthropic);
    expect(s.micro.clearings).toBeGreaterThan(s.requests / 2);
  });

  test("replay cache models: no microcompaction reads all but the new turn from the cache", () => {
    const t = generateTrajectory(7);
    const r = replay(t, "none");
    expect(r.requests).toBe(t.rounds.length + 1);
    expect(r.clearings).toBe(0);
    // every request after the first reads at least the previous one (OpenAI in 128-token steps)
    expect(r.anthropic.read).toBeGreaterThan(0.8 * (r.cumulativeInput - r.anthropic.write));
    expect(r.openai.read + r.openai.uncached).toBe(r.cumulativeInput);
    expect(r.anthropic.read + r.anthropic.write).toBe(r.cumulativeInput);
  });
});

test("bench sections: the replay table and level 1 throughput report every row", async () => {
  const { benchLevel1, microcompactSection } = await import(
    "../../../scripts/bench-microcompact.ts"
  );
  const table = microcompactSection(3);
  expect(table.filter((l) => l.startsWith("| ") && !l.startsWith("| settings"))).toHaveLength(3);
  const [row] = await benchLevel1(undefined, "/nonexistent", [0.2]);
  expect(row?.messages).toBeGreaterThan(10);
  expect(row?.inProcessMbPerSecond).toBeGreaterThan(0);
  expect(row?.cliMbPerSecond).toBeNaN();
});
