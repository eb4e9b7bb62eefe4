import { describe, expect, test } from "bun:test";
import { orphanToolResults } from "../../../lib/history/blocks.ts";
import {
  autoCompact,
  CompactionGuard,
  type CompactPhase,
  compactHistory,
} from "../../../lib/history/compact.ts";
import { estimateTokens } from "../../../lib/history/tokens.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";
import { asst, call, chatter, result, sys, user } from "./build.ts";

const model = { provider: "openai", model: "gpt-4o" };

describe("compaction pipeline", () => {
  test("level 1 alone when it fits; the tail is verbatim", async () => {
    const history = [
      sys("you are helpful"),
      user("hi"),
      asst(`<reasoning>${"r".repeat(8000)}</reasoning>hello`),
      ...chatter(10),
    ];
    const res = await compactHistory(history, { budgetTokens: 2000 });
    expect(res.levelsRun).toEqual([1]);
    expect(res.messages[2]?.content).toBe("[reasoning removed: 8023 chars]\nhello");
    expect(res.messages.slice(-10)).toEqual(history.slice(-10));
    expect(res.after.tokens).toBe(estimateTokens(res.messages));
    expect(res.after.tokens).toBeLessThan(res.before.tokens);
  });

  test("level 2 replaces the middle with one is_summary message; system and last 10 kept", async () => {
    const history = [sys("S1"), sys("S2"), ...chatter(30, 400)];
    const prompts: string[] = [];
    const res = await compactHistory(history, {
      budgetTokens: 1500,
      summarize: async (prompt) => {
        prompts.push(prompt);
        return "## Key Decisions\n- use Bun";
      },
    });
    expect(res.levelsRun).toEqual([1, 2]);
    // system, the task (first user message) verbatim, the summary, the last 10
    expect(res.messages.length).toBe(2 + 1 + 1 + 10);
    expect(res.messages.slice(0, 3)).toEqual(history.slice(0, 3));
    expect(res.messages[3]).toEqual({
      role: "user",
      content: "[STRUCTURED SUMMARY — covering 19 earlier messages]\n\n## Key Decisions\n- use Bun",
      meta: { is_summary: true, summary_of: 19 },
    });
    expect(res.messages.slice(4)).toEqual(history.slice(-10));
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("## Files Modified");
    expect(prompts[0]).toContain("THE USER'S TASK");
    expect(prompts[0]).toContain("<<<\nquestion #0");
    expect(prompts[0]).toContain("CONVERSATION SEGMENT TO EXTRACT FROM:\n\n[assistant]: answer #1");
    expect(prompts[0]).not.toContain("#20 ");
  });

  test("guided: the instruction reaches the prompt, last 4 kept, summary names it", async () => {
    const history = [sys("S"), ...chatter(12)];
    let seen = "";
    const res = await compactHistory(history, {
      budgetTokens: 100_000,
      instruction: "keep the API decisions",
      summarize: async (prompt) => {
        seen = prompt;
        return "## API\n- REST";
      },
    });
    expect(seen).toContain("USER INSTRUCTION: keep the API decisions");
    expect(res.levelsRun).toEqual([1, 2]);
    expect(res.messages).toHaveLength(1 + 1 + 1 + 4);
    expect(res.messages[1]).toBe(history[1] as ChatMessage);
    expect(res.messages[2]?.content).toStartWith(
      '[COMPACTED CONTEXT — 7 messages summarized per user instruction: "keep the API decisions"]',
    );
    expect(res.messages.slice(-4)).toEqual(history.slice(-4));
  });

  test("the summary request is sized to fit: messages capped, chunked when too big", async () => {
    const history = [...chatter(40, 50_000)];
    const prompts: string[] = [];
    const res = await compactHistory(history, {
      budgetTokens: 200_000,
      summarizerWindowTokens: 8_000,
      summarize: async (prompt) => {
        prompts.push(prompt);
        return `note ${prompts.length}`;
      },
    });
    expect(res.levelsRun).toContain(2);
    expect(prompts.length).toBeGreaterThan(2);
    for (const p of prompts) expect(p.length).toBeLessThanOrEqual(8_000 * 0.6 * 4);
    expect(prompts[0]).toContain("... [truncated for summarization] ...");
    expect(prompts.at(-1)).toContain("Notes for part 1 of");
  });

  test("cancel during level 2 leaves the history exactly as it was (no level 3)", async () => {
    const history = [sys("S"), ...chatter(30, 400)];
    const snapshot = structuredClone(history);
    const controller = new AbortController();
    const phases: CompactPhase[] = [];
    const res = await compactHistory(history, {
      budgetTokens: 500,
      signal: controller.signal,
      onPhase: (p) => phases.push(p),
      summarize: (_prompt, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => reject(signal.reason));
          controller.abort(new Error("SIGINT"));
        }),
    });
    expect(res.status).toBe("cancelled");
    expect(res.messages).toEqual(snapshot);
    expect(history).toEqual(snapshot);
    expect(phases).not.toContain("truncate");
    expect(phases.at(-1)).toBe("cancelled");
  });

  test("a failed level 2 falls through to level 3", async () => {
    const history = [sys("S"), ...chatter(30, 400)];
    const phases: string[] = [];
    const res = await compactHistory(history, {
      budgetTokens: 1500,
      summarize: async () => {
        throw new Error("503 overloaded");
      },
      onPhase: (p) => phases.push(p),
    });
    expect(res.levelsRun).toEqual([1, 3]);
    expect(res.summaryError).toBe("503 overloaded");
    expect(phases).toContain("summary_failed");
    expect(res.messages[1]).toBe(history[1] as ChatMessage);
    expect(res.messages[2]).toEqual({
      role: "user",
      content:
        "[CONTEXT TRUNCATED: 19 messages removed due to context window limit. Recent context preserved below.]",
      meta: { is_summary: true, summary_of: 19 },
    });
    expect(res.messages.slice(3)).toEqual(history.slice(-10));
  });

  test("level 3 never orphans a tool result and keeps every system message", async () => {
    const history: ChatMessage[] = [
      sys("S"),
      ...chatter(20, 300),
      sys("late system note"),
      user("fix it"),
      call("c1", "read_file", { file: "a.ts" }),
      result("c1", "contents"),
      call("c2", "read_file", { file: "b.ts" }),
      result("c2", "b contents"),
      asst("done"),
      user("next"),
      call("c3", "run", { cmd: "x" }),
      result("c3", "ok"),
      result("c3b", "ok2"),
      asst("fine"),
    ];
    history[history.length - 3] = {
      ...call("c3", "run", {}),
      tool_calls: [
        { id: "c3", name: "run", arguments: {} },
        { id: "c3b", name: "run", arguments: {} },
      ],
    };
    for (const keep of [1, 2, 3, 4, 5, 6, 7]) {
      const res = await compactHistory(history, { budgetTokens: 300, keepLast: keep, maxLevel: 3 });
      expect(orphanToolResults(res.messages)).toEqual([]);
      expect(res.messages.filter((m) => m.role === "system").map((m) => m.content)).toEqual([
        "S",
        "late system note",
      ]);
      expect(res.messages.at(-1)?.content).toBe("fine");
    }
  });

  test("level 3 shrinks the largest messages until under budget", async () => {
    const history = [sys("S"), user("q"), asst("a".repeat(40_000)), user("b".repeat(20_000))];
    const res = await compactHistory(history, { budgetTokens: 3000, maxLevel: 3 });
    expect(res.underBudget).toBe(true);
    expect(res.messages[2]?.content).toContain("chars omitted for context efficiency");
    expect(res.messages[0]).toBe(history[0] as ChatMessage);
  });

  test("beforeDrop sees what levels 2 and 3 remove, before they remove it", async () => {
    const history = [sys("S"), ...chatter(30, 400)];
    const seen: Array<[number, string[]]> = [];
    await compactHistory(history, {
      budgetTokens: 1500,
      summarize: async () => "notes",
      beforeDrop: (ms, level) => {
        seen.push([level, ms.map((m) => m.content.slice(0, 12))]);
      },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.[0]).toBe(2);
    expect(seen[0]?.[1]).toHaveLength(19);
    const dropped: ChatMessage[] = [];
    await compactHistory(history, {
      budgetTokens: 1500,
      beforeDrop: (ms) => void dropped.push(...ms),
    });
    expect(dropped).toEqual(history.slice(2, 21));
  });

  test("level 3 after a successful level 2 keeps the fresh summary (shrunk if need be)", async () => {
    const history = [sys("S"), ...chatter(30, 2000)];
    const res = await compactHistory(history, {
      budgetTokens: 1500,
      instruction: "keep the numbers",
      summarize: async () => "numbers: 1 2 3",
    });
    expect(res.levelsRun).toEqual([1, 2, 3]);
    expect(res.messages[1]?.content).toBe(history[1]?.content as string);
    expect(res.messages[2]?.content).toContain("numbers: 1 2 3");
    expect(res.messages[2]?.meta?.is_summary).toBe(true);
    expect(res.underBudget).toBe(true);
  });

  test("level 3 also shrinks huge tool-call arguments (files written) in the tail", async () => {
    const history: ChatMessage[] = [
      user("write it"),
      call("w1", "write_file", { file: "big.txt", content: "w".repeat(60_000) }),
      result("w1", "ok"),
      asst("written"),
    ];
    const res = await compactHistory(history, { budgetTokens: 2_000, maxLevel: 3 });
    expect(res.underBudget).toBe(true);
    const args = res.messages[1]?.tool_calls?.[0]?.arguments as Record<string, string>;
    expect(args["file"]).toBe("big.txt");
    expect(args["content"]).toContain("chars omitted for context efficiency");
    expect(history[1]?.tool_calls?.[0]?.arguments["content"]).toHaveLength(60_000);
  });

  test("maxLevel 1 never drops anything", async () => {
    const history = [...chatter(30, 400)];
    const res = await compactHistory(history, { budgetTokens: 10, maxLevel: 1 });
    expect(res.levelsRun).toEqual([1]);
    expect(res.messages).toEqual(history);
    expect(res.underBudget).toBe(false);
  });
});

describe("automatic compaction", () => {
  test("does nothing under the threshold", async () => {
    const env = { CHATCLI_CONTEXT_WINDOW: "100000" };
    const res = await autoCompact(chatter(10), { model, env, guard: new CompactionGuard() });
    expect(res).toBeUndefined();
  });

  test("compacts over the threshold to below it", async () => {
    const env = { CHATCLI_CONTEXT_WINDOW: "4000", CHATCLI_COMPACT_THRESHOLD: "0.8" };
    const res = await autoCompact(chatter(60, 300), { model, env, guard: new CompactionGuard() });
    expect(res?.status).toBe("compacted");
    expect(res?.after.tokens).toBeLessThanOrEqual(2400);
  });

  test("death spiral: repeated compactions without a user turn → context_overflow", async () => {
    const env = { CHATCLI_CONTEXT_WINDOW: "4000" };
    const guard = new CompactionGuard(2);
    const history = chatter(60, 300);
    await autoCompact(history, { model, env, guard });
    await autoCompact(history, { model, env, guard });
    await expect(autoCompact(history, { model, env, guard })).rejects.toMatchObject({
      reason: "context_overflow",
      exitCode: 8,
    });
    guard.userTurn();
    expect(await autoCompact(history, { model, env, guard })).toBeDefined();
  });

  test("cannot get under budget (huge system prompt) → context_overflow", async () => {
    const env = { CHATCLI_CONTEXT_WINDOW: "1000" };
    const history = [sys("s".repeat(20_000)), ...chatter(4)];
    await expect(
      autoCompact(history, { model, env, guard: new CompactionGuard() }),
    ).rejects.toMatchObject({ reason: "context_overflow" });
  });

  test("after a provider context-length error it compacts even under the threshold", async () => {
    const env = { CHATCLI_CONTEXT_WINDOW: "100000" };
    const history = chatter(40, 2000);
    const res = await autoCompact(history, {
      model,
      env,
      guard: new CompactionGuard(),
      afterOverflowError: true,
    });
    expect(res?.after.tokens).toBeLessThan(res?.before.tokens ?? 0);
  });
});

describe("providerSummarizer", () => {
  test("sends the prompt as one user message and returns the streamed text", async () => {
    const { providerSummarizer } = await import("../../../lib/history/summarizer.ts");
    const requests: unknown[] = [];
    const provider = {
      name: "fake",
      model: "m",
      async *stream(request: unknown) {
        requests.push(request);
        yield { type: "text" as const, text: "## Key Decisions\n" };
        yield { type: "text" as const, text: "- keep REST" };
        yield { type: "done" as const, stop: "end" as const };
      },
    };
    const history = [sys("S"), ...chatter(12)];
    const res = await compactHistory(history, {
      budgetTokens: 100_000,
      instruction: "the API decisions",
      summarize: providerSummarizer(provider, "m"),
    });
    expect(res.messages[2]?.content).toEndWith("## Key Decisions\n- keep REST");
    expect(requests).toHaveLength(1);
    const req = requests[0] as { model: string; system: unknown[]; messages: ChatMessage[] };
    expect(req.model).toBe("m");
    expect(req.system).toEqual([]);
    expect(req.messages).toHaveLength(1);
    expect(req.messages[0]?.content).toContain("USER INSTRUCTION: the API decisions");
  });
});
