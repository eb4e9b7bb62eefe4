import { describe, expect, test } from "bun:test";
import { orphanToolResults } from "../../../lib/history/blocks.ts";
import { compactHistory } from "../../../lib/history/compact.ts";
import { errorLines } from "../../../lib/history/error-lines.ts";
import { parseConversation } from "../../../lib/history/formats.ts";
import { trimMessage } from "../../../lib/history/level1.ts";
import { changesTask, isRealUserMessage } from "../../../lib/history/task.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";
import { compactConversation } from "../../../lib/repl/live-compact.ts";
import { run } from "../../support/ctx.ts";
import { asst, call, chatter, result, sys, user } from "./build.ts";

const TASK =
  "Fix the off-by-one in parseDate (src/date.ts): months must be 1-based. Keep the public API unchanged and add a regression test.";

/** An agent trajectory: the task, then `turns` rounds of a tool call and a `size`-char result. */
function trajectory(turns: number, size = 6000): ChatMessage[] {
  const out: ChatMessage[] = [sys("You are a coding agent."), user(TASK)];
  for (let t = 0; t < turns; t++) {
    out.push(call(`c${t}`, "read_file", { file: `src/f${t}.ts` }));
    out.push(result(`c${t}`, `// file ${t}\n${"const x = 1;\n".repeat(size / 13)}`));
  }
  out.push(asst("Done: months are 1-based now."));
  return out;
}

describe("compaction keeps the task", () => {
  test("level 3 at a small budget keeps the first user message verbatim, tool pairs intact", async () => {
    for (const budget of [8000, 3000, 1200]) {
      const history = trajectory(40);
      const res = await compactHistory(history, { budgetTokens: budget, maxLevel: 3 });
      expect(res.levelsRun).toContain(3);
      expect(res.messages[1]).toEqual(user(TASK));
      expect(res.messages[2]?.content).toStartWith("[CONTEXT TRUNCATED:");
      expect(orphanToolResults(res.messages)).toEqual([]);
      expect(res.underBudget).toBe(true);
    }
  });

  test("level 2 keeps the task beside the summary, and its prompt names it as what to preserve", async () => {
    const prompts: string[] = [];
    const res = await compactHistory(trajectory(30), {
      budgetTokens: 8000,
      summarize: async (prompt) => {
        prompts.push(prompt);
        return "## Current Task State\n- Task: fix parseDate\n- Pending: test";
      },
    });
    expect(res.levelsRun).toEqual([1, 2]);
    expect(res.messages.slice(0, 3).map((m) => m.content)).toEqual([
      "You are a coding agent.",
      TASK,
      expect.stringContaining("[STRUCTURED SUMMARY — covering"),
    ]);
    expect(prompts[0]).toContain("what the task asks for is the thing to preserve above all");
    expect(prompts[0]).toContain(`THE USER'S TASK`);
    expect(prompts[0]).toContain(`<<<\n${TASK}\n>>>`);
    // the task is quoted once, as the task, not again inside the segment
    expect(prompts[0]?.split(TASK)).toHaveLength(2);
  });

  test("a task that alone exceeds its share of the budget is kept as head + tail with a marker", async () => {
    const long = `TASK START ${"requirement. ".repeat(3000)} TASK END`;
    const history = [sys("S"), user(long), ...chatter(30, 400)];
    const res = await compactHistory(history, { budgetTokens: 4000, maxLevel: 3 });
    const kept = res.messages[1]?.content as string;
    expect(kept).toStartWith("TASK START");
    expect(kept).toEndWith("TASK END");
    expect(kept).toContain("chars of the task omitted]");
    expect(kept.length).toBeLessThan(long.length);
    expect(res.underBudget).toBe(true);
  });

  test("later messages that change the task are kept too; the agent names its own task", async () => {
    const history = [
      sys("S"),
      user("Write a CSV parser in src/csv.ts."),
      ...chatter(10, 400, 1),
      user("Actually, make it a TSV parser and keep the old name."),
      ...chatter(10, 400, 12),
      user("run the linter please"),
      ...chatter(20, 400, 23),
    ];
    expect(changesTask(history[12] as ChatMessage)).toBe(true);
    const res = await compactHistory(history, { budgetTokens: 2500, maxLevel: 3 });
    const contents = res.messages.map((m) => m.content);
    expect(contents[1]).toBe("Write a CSV parser in src/csv.ts.");
    expect(contents[2]).toBe("Actually, make it a TSV parser and keep the old name.");
    expect(contents).not.toContain("run the linter please");
    const own = await compactHistory(history, {
      budgetTokens: 2500,
      maxLevel: 3,
      isTask: (m) => m.content === "run the linter please",
    });
    expect(own.messages.map((m) => m.content)).toContain("run the linter please");
  });

  test("tool feedback, loop prompts and markers are not the task", () => {
    expect(
      isRealUserMessage(user("The tool 'read_file' was executed:\n<tool_output>x</tool_output>")),
    ).toBe(false);
    expect(isRealUserMessage(user("Your reply was cut off by the output limit. Continue."))).toBe(
      false,
    );
    expect(isRealUserMessage(user("[CONTEXT TRUNCATED: 3 messages removed"))).toBe(false);
    expect(isRealUserMessage({ ...user("x"), meta: { agent_feedback: true } })).toBe(false);
    expect(isRealUserMessage(user("fix the bug"))).toBe(true);
  });

  test("a last tool result larger than the budget is cut first: the tail and the final diff survive", async () => {
    const diff = "diff --git a/src/date.ts b/src/date.ts\n-  return m;\n+  return m + 1;\n";
    const huge = `${"log line\n".repeat(96_000)}FAILED tests/date.test.ts::test_month - assert 0 == 1\n${"x".repeat(1000)}`;
    const history = [
      ...trajectory(12, 2000).slice(0, -1),
      call("big", "run_command", { command: "npm test" }),
      result("big", huge),
      call("d", "git_diff", {}),
      result("d", diff),
      asst("Fixed; the diff is above."),
    ];
    expect(huge.length).toBeGreaterThan(860_000);
    const res = await compactHistory(history, { budgetTokens: 20_000, maxLevel: 3 });
    expect(res.underBudget).toBe(true);
    expect(res.messages[1]).toEqual(user(TASK));
    const tail = res.messages.slice(-5);
    expect(tail.map((m) => m.tool_call_id ?? m.role)).toEqual([
      "assistant",
      "big",
      "assistant",
      "d",
      "assistant",
    ]);
    expect(tail[3]?.content).toBe(diff);
    const cut = tail[1]?.content as string;
    expect(cut.length).toBeLessThan(25_000);
    expect(cut).toStartWith("log line");
    expect(cut).toContain("FAILED tests/date.test.ts::test_month - assert 0 == 1");
    // level 3 did not have to drop the whole middle to make room for one output
    expect(res.messages.length).toBeGreaterThan(8);
  });
});

describe("level 1 keeps what matters in what it trims", () => {
  test("a removed reasoning block leaves a one-line marker", () => {
    const out = trimMessage(
      asst("<thinking>step 1\nstep 2</thinking>The fix is in date.ts."),
    ).content;
    expect(out).toBe("[thinking removed: 34 chars]\nThe fix is in date.ts.");
  });

  test("error lines in the middle of a long output survive the head + tail cut", () => {
    const middle = [
      "collecting ...",
      "Traceback (most recent call last):",
      '  File "/repo/a.py", line 3, in <module>',
      "    main()",
      '  File "/repo/b.py", line 10, in main',
      "    parse(x)",
      "ValueError: month must be in 1..12",
      "src/date.ts:4:3 - error TS2322: Type 'string' is not assignable to type 'number'.",
      "error: could not compile `date` due to previous error",
      "FAILED tests/test_date.py::test_month - AssertionError",
      "ok 3 - month is fine",
    ].join("\n");
    const content = `${"head\n".repeat(1000)}${middle}\n${"tail\n".repeat(1000)}`;
    const out = trimMessage(result("c1", content)).content;
    expect(out).toStartWith("head\n");
    expect(out).toEndWith("tail\n");
    for (const line of [
      '  File "/repo/b.py", line 10, in main',
      "    parse(x)",
      "ValueError: month must be in 1..12",
      "error: could not compile `date` due to previous error",
      "FAILED tests/test_date.py::test_month - AssertionError",
    ])
      expect(out).toContain(line);
    expect(out).not.toContain('  File "/repo/a.py", line 3');
    expect(out).not.toContain("ok 3 - month is fine");
    expect(out).toMatch(/chars omitted; \d+ error lines from them kept below\] \.\.\./);
    expect(out.length).toBeLessThan(4000);
  });

  test("error lines are bounded and deduplicated", () => {
    const lines = errorLines(`${"error: same\n".repeat(10_000)}x\nerror: other\n`);
    expect(lines).toEqual(["error: same", "error: other"]);
    const many = errorLines(
      Array.from({ length: 5000 }, (_, i) => `error: ${i} ${"y".repeat(500)}`).join("\n"),
    );
    expect(many.length).toBeLessThanOrEqual(40);
    expect(many.join("\n").length).toBeLessThanOrEqual(4100);
  });
});

describe("formats keep their schema", () => {
  test("a plain [{role, content}] array gets no `meta` key; the markers are in the envelope", async () => {
    const plain = [
      { role: "user", content: TASK },
      ...Array.from({ length: 30 }, (_, i) => ({
        role: i % 2 ? "user" : "assistant",
        content: `${i} ${"z".repeat(400)}`,
      })),
    ];
    const res = await run(["compact", "--no-llm", "--budget", "1400", "--json"], {
      stdin: JSON.stringify(plain),
    });
    expect(res.code).toBe(0);
    const env = JSON.parse(res.out);
    const out = JSON.parse(env.result) as Array<Record<string, unknown>>;
    for (const m of out) expect(Object.keys(m).sort()).toEqual(["content", "role"]);
    expect(out[0]).toEqual({ role: "user", content: TASK });
    expect(out[1]?.["content"]).toStartWith("[CONTEXT TRUNCATED:");
    expect(env.compaction.markers).toEqual([{ index: 1, kind: "truncation", summary_of: 20 }]);
    // compacted again, the marker is recognised (not trimmed, not taken for the task)
    const again = parseConversation(env.result);
    expect(again.messages[1]?.meta?.is_summary).toBe(true);
    expect(again.render(again.messages)).not.toContain('"meta"');
  });

  test("Anthropic output after level 3 alternates user and assistant", async () => {
    const messages: unknown[] = [{ role: "user", content: TASK }];
    for (let i = 0; i < 12; i++) {
      messages.push({
        role: "assistant",
        content: [{ type: "tool_use", id: `t${i}`, name: "read_file", input: { file: `f${i}` } }],
      });
      messages.push({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: `t${i}`, content: "r".repeat(800) }],
      });
      messages.push({ role: "assistant", content: `step ${i}` });
      messages.push({ role: "user", content: `next ${i}` });
    }
    const res = await run(["compact", "--no-llm", "--budget", "900", "--keep", "3"], {
      stdin: JSON.stringify({ model: "claude-sonnet-4-5", system: "S", messages }),
    });
    expect(res.code).toBe(0);
    const out = JSON.parse(res.out) as { messages: Array<{ role: string; content: unknown }> };
    expect(JSON.stringify(out)).toContain("[CONTEXT TRUNCATED:");
    for (let i = 1; i < out.messages.length; i++)
      expect(out.messages[i]?.role).not.toBe(out.messages[i - 1]?.role);
    expect(out.messages[0]?.role).toBe("user");
    expect(JSON.stringify(out.messages[0])).toContain(TASK);
    expect(orphanToolResults(parseConversation(res.out).messages)).toEqual([]);
  });
});

test("the REPL's explicit /compact always runs level 2, even when trimming was enough", async () => {
  const history = [sys("S"), ...chatter(60, 200)];
  const prompts: string[] = [];
  const provider = {
    name: "fake",
    model: "m",
    async *stream(request: { messages: ChatMessage[] }) {
      prompts.push(request.messages[0]?.content ?? "");
      yield { type: "text" as const, text: "## Key Decisions\n- none" };
      yield { type: "done" as const, stop: "end" as const };
    },
  };
  const res = await compactConversation(history, {
    ref: { provider: "openai", protocol: "openai", model: "gpt-4o" },
    env: {},
    provider,
    instruction: undefined,
    signal: new AbortController().signal,
    onPhase: () => {},
    onUsage: () => {},
  });
  expect(res.before.tokens).toBeLessThan(4000);
  expect(res.levelsRun).toEqual([1, 2]);
  expect(prompts).toHaveLength(1);
  expect(res.messages.length).toBeLessThan(history.length);
  expect(res.messages[1]).toBe(history[1] as ChatMessage);
});
