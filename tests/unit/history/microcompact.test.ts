import { describe, expect, test } from "bun:test";
import {
  type MicrocompactResult,
  microcompact,
  newMicrocompactState,
} from "../../../lib/history/microcompact.ts";
import {
  MICROCOMPACT_DEFAULTS,
  microcompactConfig,
} from "../../../lib/history/microcompact-config.ts";
import { contentType } from "../../../lib/history/microcompact-forms.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";
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
  CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS: "4",
};

/**
 * Drives microcompact as lib/agent/loop.ts does: before request t it runs on the history (its
 * result kept), then the reply and the tool result of `outputs[t]` are appended.
 */
function drive(outputs: string[], env: Record<string, string> = {}, maxTurns?: number) {
  const state = newMicrocompactState();
  let history: ChatMessage[] = [user("task")];
  const sent: ChatMessage[][] = [];
  const results: MicrocompactResult[] = [];
  for (let t = 0; t <= outputs.length; t++) {
    const mc = microcompact(history, t, env, { state, maxTurns });
    results.push(mc);
    history = mc.messages;
    sent.push(history.slice());
    if (t < outputs.length) {
      history.push(
        call(`c${t}`, "read_file", { file: `f${t}` }),
        result(`c${t}`, outputs[t] as string),
      );
    }
  }
  return { sent, results };
}

/** The pay-for-itself rule without the default's write budget. */
const COST = { CHATCLI_MICROCOMPACT: "cost" };

const chars = (n: number, tag: string) =>
  `${`${tag} ${"x".repeat(70)}\n`.repeat(Math.ceil(n / 73))}`.slice(0, n);

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

  test("a truncated result later becomes the summary line of the original; cleared results are final", () => {
    const original = `${"row\n".repeat(4999)}end`;
    const history: ChatMessage[] = [user("task")];
    for (let t = 0; t < 7; t++)
      history.push(call(`c${t}`, "run_command", {}), result(`c${t}`, original));
    history.push(asst("done"));
    const truncated = microcompact(history, 7, EAGER).messages[12]?.content as string;
    expect(truncated).toContain("chars omitted from old tool result (5000 lines, text)");
    const later = [...history.slice(0, 12), result("c5", truncated), ...history.slice(13)];
    later.push(call("x1", "ls", {}), result("x1", "a"), call("x2", "ls", {}), result("x2", "b"));
    const summarized = microcompact(later, 9, EAGER).messages[12]?.content;
    expect(summarized).toBe("[Old tool result cleared — 5000 lines, 19999 chars, text]");
    const again = microcompact(microcompact(later, 9, EAGER).messages, 10, EAGER);
    expect(again.messages[12]?.content).toBe(summarized as string);
  });

  test("content types", () => {
    expect(contentType('{"a":1}')).toBe("JSON");
    expect(contentType("package main\n")).toBe("Go source");
    expect(contentType("diff --git a b")).toBe("diff");
    expect(contentType("commit abc")).toBe("git log");
    expect(contentType("hello")).toBe("text");
  });
});

describe("microcompact pays for itself (CHATCLI_MICROCOMPACT=cost; the default adds a write budget)", () => {
  test("defaults and modes", () => {
    expect(microcompactConfig({})).toEqual(MICROCOMPACT_DEFAULTS);
    expect(MICROCOMPACT_DEFAULTS).toMatchObject({
      enabled: true,
      truncateTurns: 2,
      summarizeTurns: 2,
      minContent: 1000,
      clearAtLeast: 500,
      dedupMinChars: 400,
      writeBudget: true,
    });
    expect(microcompactConfig({ CHATCLI_MICROCOMPACT: "off" }).enabled).toBe(false);
    expect(microcompactConfig({ CHATCLI_MICROCOMPACT: "strict" }).writeBudget).toBe(true);
    expect(microcompactConfig({ CHATCLI_MICROCOMPACT: "cost" }).writeBudget).toBe(false);
    expect(microcompactConfig({ CHATCLI_MICROCOMPACT_CLEAR_AT_LEAST: "-1" }).clearAtLeast).toBe(
      500,
    );
    const history = loop(8, 20_000);
    const off = microcompact(history, 7, { CHATCLI_MICROCOMPACT: "off" });
    for (const [i, m] of off.messages.entries()) expect(m).toBe(history[i] as ChatMessage);
  });

  test("a young run: due results stay, the history goes out byte for byte (a clearing would not pay back)", () => {
    const history = loop(6, 6000);
    const res = microcompact(history, 5, COST);
    expect(res.pendingTokens).toBeGreaterThan(0);
    expect(res.requestsLeft).toBe(2); // the floor: the run has not shown its pace yet
    expect(res.firstChanged).toBe(-1);
    for (const [i, m] of res.messages.entries()) expect(m).toBe(history[i] as ChatMessage);
  });

  test("a long run clears once it pays: everything before the cut and every cleared result stays byte for byte", () => {
    const { sent, results } = drive(
      Array.from({ length: 40 }, (_, t) => chars(12_000, `out${t}`)),
      COST,
    );
    const clearings = results.flatMap((r, t) => (r.firstChanged >= 0 ? [t] : []));
    expect(clearings.length).toBeGreaterThan(1);
    expect(clearings.length).toBeLessThan(20); // in batches, not every turn
    for (const t of clearings) {
      const cut = results[t]?.firstChanged as number;
      const before = sent[t - 1] as ChatMessage[];
      for (let i = 0; i < cut; i++) expect(sent[t]?.[i]).toBe(before[i] as ChatMessage);
    }
    // once cleared, a result never changes again; the last two turns always go out verbatim
    for (let t = 1; t < sent.length; t++) {
      for (const [i, m] of (sent[t - 1] as ChatMessage[]).entries()) {
        if (m.content.startsWith("[Old tool result cleared"))
          expect(sent[t]?.[i]?.content).toBe(m.content);
      }
      const tools = (sent[t] as ChatMessage[]).filter((m) => m.role === "tool").slice(-2);
      for (const m of tools) expect(m.content).toStartWith("out");
    }
  });

  test("a clearing never rewrites more than it frees, however long the run", () => {
    // a 1.2k-char result is due, but the round above it is 40k chars
    const history = [
      user("task"),
      call("a", "read_file", {}),
      result("a", chars(1200, "small")),
      call("b", "read_file", {}),
      result("b", chars(40_000, "huge")),
      call("c", "read_file", {}),
      result("c", chars(100, "new")),
    ];
    const res = microcompact(history, 100, COST);
    expect(res.pendingTokens).toBeGreaterThan(200);
    expect(res.rewriteTokens).toBeGreaterThan(res.pendingTokens);
    expect(res.firstChanged).toBe(-1);
  });

  test("--max-turns: no request is expected past it, so the last requests never clear", () => {
    const outputs = Array.from({ length: 16 }, (_, t) => chars(19_600, `out${t}`));
    const paced = drive(outputs, COST);
    const capped = drive(outputs, COST, 17);
    expect(paced.results.some((r) => r.firstChanged >= 0)).toBe(true);
    expect(capped.results.at(-1)?.requestsLeft).toBe(1);
    const lastClearing = capped.results.findLastIndex((r) => r.firstChanged >= 0);
    expect(lastClearing).toBeLessThan(capped.results.length - 2);
  });

  test("the same output again goes out as a pointer; the original stays verbatim as long as the pointer would", () => {
    const file = chars(9000, "same");
    const outputs = [file, chars(3000, "other"), file, chars(50, "tiny"), chars(50, "tiny2")];
    const { sent, results } = drive(outputs);
    expect(results[3]?.deduplicated).toBe(1);
    const third = sent[3]?.find((m) => m.tool_call_id === "c2");
    expect(third?.content).toBe(
      "[Same output as tool call c0 above (unchanged): 119 lines, 9000 chars]",
    );
    // the original is as young as its pointer: not due while the pointer is in the last two turns
    for (const s of sent.slice(3, 5))
      expect(s.find((m) => m.tool_call_id === "c0")?.content).toBe(file);
    // a short result is never worth a pointer
    expect(results[5]?.deduplicated).toBe(0);
  });

  test("strict: a clearing only with what pointers saved", () => {
    const outputs = Array.from({ length: 40 }, (_, t) => chars(12_000, `out${t}`));
    const strict = drive(outputs, { CHATCLI_MICROCOMPACT: "strict" });
    expect(strict.results.every((r) => r.firstChanged < 0)).toBe(true);
    const repeated = Array.from({ length: 40 }, (_, t) =>
      t % 2 ? chars(12_000, "again") : chars(12_000, `out${t}`),
    );
    const funded = drive(repeated, { CHATCLI_MICROCOMPACT: "strict" });
    expect(funded.results.some((r) => r.deduplicated > 0)).toBe(true);
    expect(funded.results.some((r) => r.firstChanged >= 0)).toBe(true);
  });
});
