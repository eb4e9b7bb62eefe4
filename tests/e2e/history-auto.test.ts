/**
 * Automatic compaction through the built binary against the mock LLM: the threshold trigger in
 * `ask --session` and `agent`, the context-length retry, and the death-spiral guard (exit 8).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: the documents are inspected freely
type Json = Record<string, any>;

function env(llm: MockLlm, home: string, extra: Record<string, string> = {}) {
  return baseEnv(home, { ...llm.env("openai"), CHATCLI_RETRY_BASE_MS: "10", ...extra });
}

const CONTEXT_ERROR = {
  error: { status: 400, message: "This model's maximum context length is 4000 tokens" },
};

/** A Go-style session: a tool round trip early on, then 18 chatty messages of ~200 tokens each. */
async function writeLongSession(home: string, name: string): Promise<Json[]> {
  const history: Json[] = [
    { role: "user", content: "read main.go" },
    {
      role: "assistant",
      content: "",
      tool_calls: [
        { id: "toolu_01", type: "function", name: "read_file", arguments: { file: "main.go" } },
      ],
    },
    { role: "tool", content: "package main // main.go", tool_call_id: "toolu_01" },
  ];
  for (let i = 0; i < 18; i++) {
    history.push({
      role: i % 2 === 0 ? "assistant" : "user",
      content: `turn ${i} ${"z".repeat(800)}`,
    });
  }
  const dir = join(home, ".chatcli", "sessions");
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, `${name}.json`),
    JSON.stringify({ version: 2, title: "long", chat_history: history }, null, 2),
  );
  return history;
}

function messagesOf(request: { body: unknown }): Json[] {
  return (request.body as Json)["messages"] as Json[];
}

describe("automatic compaction in ask --session", () => {
  test("over CHATCLI_COMPACT_THRESHOLD: level 2 summarises the middle, the answer request and the saved session carry it", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    await writeLongSession(home.path, "long");
    llm.push({ text: "## Files Read\n- main.go (1 lines) - asked by the user" }, { text: "42" });
    const r = await runChatcli(["ask", "--session", "long", "what is the answer?"], {
      env: env(llm, home.path, { CHATCLI_CONTEXT_WINDOW: "4000" }),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("42\n");
    expect(r.stderr).toContain("Summary applied");
    expect(llm.requests).toHaveLength(2);
    // The summariser request: the structured prompt over the middle, no tools.
    const prompt = messagesOf(llm.requests[0] as never);
    expect(prompt).toHaveLength(1);
    expect(prompt[0]?.["content"]).toContain("CONVERSATION SEGMENT TO EXTRACT FROM");
    expect(prompt[0]?.["content"]).toContain("## Files Read");
    // The first user message is the task: quoted as what to preserve, kept verbatim beside the notes.
    expect(prompt[0]?.["content"]).toContain("THE USER'S TASK");
    expect(prompt[0]?.["content"]).toContain("<<<\nread main.go\n>>>");
    expect(prompt[0]?.["content"]).not.toContain("[user]: read main.go");
    // The answer request: the summary replaced the middle, the tool round trip went with it whole.
    const sent = messagesOf(llm.requests[1] as never).filter((m) => m["role"] !== "system");
    expect(sent[0]).toEqual({ role: "user", content: "read main.go" });
    expect(sent[1]?.["content"]).toStartWith("[STRUCTURED SUMMARY — covering ");
    expect(sent.some((m) => m["role"] === "tool")).toBe(false);
    expect(sent.at(-1)?.["content"]).toBe("what is the answer?");
    expect(sent.length).toBe(12); // task, summary, the last 10
    const saved = JSON.parse(
      await readFile(join(home.path, ".chatcli", "sessions", "long.json"), "utf8"),
    ) as Json;
    const history = saved["chat_history"] as Json[];
    expect(history[0]).toEqual({ role: "user", content: "read main.go" });
    expect(history[1]?.["meta"]).toMatchObject({ is_summary: true });
    expect(history[1]?.["content"]).toContain("main.go (1 lines)");
    expect(history.at(-1)).toEqual({ role: "assistant", content: "42" });
  });

  test("a context-length error compacts once more and retries the request", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    await writeLongSession(home.path, "long");
    // Under the default threshold of a large window: the first request goes out uncompacted.
    llm.push(CONTEXT_ERROR, { text: "## Current Task State\n- Done: nothing" }, { text: "ok" });
    const r = await runChatcli(["ask", "--session", "long", "next", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout) as Json;
    expect(envelope["result"]).toBe("ok");
    expect(envelope["compaction"]).toMatchObject({ status: "compacted" });
    expect(llm.requests).toHaveLength(3);
    const first = messagesOf(llm.requests[0] as never);
    const retried = messagesOf(llm.requests[2] as never);
    expect(retried.length).toBeLessThan(first.length);
    expect(retried.at(-1)?.["content"]).toBe("next");
  });

  test("a second context-length error after compacting: exit 8 context_overflow, session untouched", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    await writeLongSession(home.path, "long");
    const file = join(home.path, ".chatcli", "sessions", "long.json");
    const before = await readFile(file, "utf8");
    llm.push(CONTEXT_ERROR, { text: "## Current Task State\n- Done: nothing" }, CONTEXT_ERROR);
    const r = await runChatcli(["ask", "--session", "long", "next", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(8);
    const envelope = JSON.parse(r.stdout) as Json;
    expect(envelope["terminal_reason"]).toBe("context_overflow");
    expect(envelope["error"]["code"]).toBe("context_overflow");
    expect(llm.requests).toHaveLength(3);
    expect(await readFile(file, "utf8")).toBe(before);
  });
  test("a prompt larger than the window is cut head + tail to fit, with a prompt_truncated warning", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "seen" });
    const prompt = `START ${"log line\n".repeat(5000)} END`;
    const r = await runChatcli(["ask", prompt, "--json"], {
      env: env(llm, home.path, { CHATCLI_CONTEXT_WINDOW: "4000" }),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout) as Json;
    expect(envelope["warnings"].map((w: Json) => w["code"])).toContain("prompt_truncated");
    const sent = messagesOf(llm.requests[0] as never).at(-1)?.["content"] as string;
    expect(sent).toStartWith("START ");
    expect(sent).toEndWith(" END");
    expect(sent).toContain("chars omitted");
    expect(sent.length).toBeLessThan(prompt.length);
  });
  test("a lower CHATCLI_COMPACT_THRESHOLD compacts below it instead of failing with exit 8", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const dir = join(home.path, ".chatcli", "sessions");
    await mkdir(dir, { recursive: true });
    const history = Array.from({ length: 11 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: `m${i} ${"z".repeat(800)}`,
    }));
    await writeFile(
      join(dir, "mid.json"),
      JSON.stringify({ version: 2, title: "mid", chat_history: history }),
    );
    llm.push({ text: "fine" });
    // ~2260 tokens: over the trigger (0.5 × 4000) but under the default target (0.6 × 4000).
    const r = await runChatcli(["ask", "--session", "mid", "more", "--json"], {
      env: env(llm, home.path, {
        CHATCLI_CONTEXT_WINDOW: "4000",
        CHATCLI_COMPACT_THRESHOLD: "0.5",
      }),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout) as Json;
    expect(envelope["result"]).toBe("fine");
    expect(envelope["compaction"]["tokens_after"]).toBeLessThanOrEqual(2000);
  });
});

describe("automatic compaction in agent", () => {
  test("a context-length error mid-run compacts and retries the turn (exit 0)", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const ws = join(home.path, "ws");
    await mkdir(ws);
    await writeFile(join(ws, "big.txt"), `${"line of a big file\n".repeat(1500)}`);
    llm.push(
      { tool_calls: [{ name: "read_file", arguments: { file: "big.txt" } }] },
      CONTEXT_ERROR,
      { text: "read it" },
    );
    const r = await runChatcli(
      ["agent", "read big.txt", "--permission-mode", "bypass", "--output-format", "stream-json"],
      { env: env(llm, home.path), cwd: ws },
    );
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Json);
    const result = events.at(-1) as Json;
    expect(result["error"] ?? null).toBeNull();
    expect(r.code).toBe(0);
    expect(result["result"]).toBe("read it");
    expect(events.some((e) => e["type"] === "compaction.completed")).toBe(true);
    expect(llm.requests).toHaveLength(3);
    const size = (i: number) => JSON.stringify(messagesOf(llm.requests[i] as never)).length;
    expect(size(2)).toBeLessThan(size(1));
    // The retried request still pairs every tool result with its call.
    const retried = messagesOf(llm.requests[2] as never);
    const ids = new Set(
      retried.flatMap((m) => ((m["tool_calls"] as Json[] | undefined) ?? []).map((c) => c["id"])),
    );
    for (const m of retried.filter((m) => m["role"] === "tool")) {
      expect(ids.has(m["tool_call_id"])).toBe(true);
    }
  });

  test("a long run that compacts many times while making progress is not stopped as a death spiral", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm({ defaultText: "all read" });
    const ws = join(home.path, "ws");
    await mkdir(ws);
    for (let i = 0; i < 30; i++) await writeFile(join(ws, `f${i}.txt`), `${i} ${"w".repeat(2400)}`);
    for (let i = 0; i < 30; i++) {
      llm.push({ tool_calls: [{ name: "read_file", arguments: { file: `f${i}.txt` } }] });
    }
    const r = await runChatcli(
      [
        "agent",
        "read every file",
        "--permission-mode",
        "bypass",
        "--max-turns",
        "60",
        "--output-format",
        "stream-json",
      ],
      // microcompact off: it would keep this run under the window (compaction is what is tested)
      {
        env: env(llm, home.path, { CHATCLI_CONTEXT_WINDOW: "6000", CHATCLI_MICROCOMPACT: "off" }),
        cwd: ws,
      },
    );
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Json);
    const compactions = events.filter((e) => e["type"] === "compaction.completed").length;
    expect(compactions).toBeGreaterThan(3);
    expect((events.at(-1) as Json)["error"] ?? null).toBeNull();
    expect(r.code).toBe(0);
  });

  test("compacting before every request without progress is a death spiral: exit 8", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm({ defaultText: "all read" });
    const ws = join(home.path, "ws");
    await mkdir(ws);
    for (let i = 0; i < 12; i++)
      await writeFile(join(ws, `f${i}.txt`), `${i} ${"w".repeat(14000)}`);
    for (let i = 0; i < 12; i++) {
      llm.push({ tool_calls: [{ name: "read_file", arguments: { file: `f${i}.txt` } }] });
    }
    const r = await runChatcli(
      ["agent", "read every file", "--permission-mode", "bypass", "--max-turns", "30", "--json"],
      { env: env(llm, home.path, { CHATCLI_CONTEXT_WINDOW: "6000" }), cwd: ws },
    );
    expect(r.code).toBe(8);
    const envelope = JSON.parse(r.stdout) as Json;
    expect(envelope["terminal_reason"]).toBe("context_overflow");
    expect(envelope["error"]["message"]).toContain("compacted 3 times");
  });

  test("--memory write: messages compaction drops mid-run still reach memory extraction", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm({ defaultText: "all read" });
    const ws = join(home.path, "ws");
    await mkdir(ws);
    for (let i = 0; i < 10; i++) {
      await writeFile(join(ws, `f${i}.txt`), `MARKER-${i} ${"w".repeat(2400)}`);
      llm.push({ tool_calls: [{ name: "read_file", arguments: { file: `f${i}.txt` } }] });
    }
    const r = await runChatcli(
      ["agent", "read every file", "--permission-mode", "bypass", "--memory", "write"],
      // microcompact off: it would keep this run under the window (compaction is what is tested)
      {
        env: env(llm, home.path, { CHATCLI_CONTEXT_WINDOW: "6000", CHATCLI_MICROCOMPACT: "off" }),
        cwd: ws,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("Emergency truncation");
    const extractions = llm.requests
      .map((q) => JSON.stringify(messagesOf(q)))
      .filter((t) => t.includes("You are a memory annotation system"));
    // The final history no longer holds the first file; an extraction prompt does.
    expect(extractions.some((t) => t.includes("MARKER-0"))).toBe(true);
  });

  test("--session: level 2 runs mid-run; the next request and the saved session carry the summary", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm({ defaultText: "done" });
    const ws = join(home.path, "ws");
    await mkdir(ws);
    for (let i = 0; i < 10; i++) {
      await writeFile(join(ws, `f${i}.txt`), `MARKER-${i} ${"w".repeat(2400)}`);
    }
    // 8 reads fill ~5000 tokens of a 6000-token window (threshold 0.8): the 9th request is the summary.
    for (let i = 0; i < 8; i++) {
      llm.push({ tool_calls: [{ name: "read_file", arguments: { file: `f${i}.txt` } }] });
    }
    llm.push({ text: "## Files Read\n- f0.txt .. f3.txt (1 line each) - read as asked" });
    llm.push({ tool_calls: [{ name: "read_file", arguments: { file: "f8.txt" } }] });
    const r = await runChatcli(
      ["agent", "--session", "reads", "read every file", "--permission-mode", "bypass"],
      // microcompact off: it would keep this run under the window (compaction is what is tested)
      {
        env: env(llm, home.path, { CHATCLI_CONTEXT_WINDOW: "6000", CHATCLI_MICROCOMPACT: "off" }),
        cwd: ws,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("done\n");
    const summariser = llm.requests.findIndex((q) =>
      JSON.stringify(messagesOf(q)).includes("CONVERSATION SEGMENT TO EXTRACT FROM"),
    );
    expect(summariser).toBe(8);
    expect(messagesOf(llm.requests[8] as never)).toHaveLength(1);
    const next = messagesOf(llm.requests[9] as never).filter((m) => m["role"] !== "system");
    expect(next[0]).toEqual({ role: "user", content: "read every file" });
    expect(next[1]?.["content"]).toStartWith("[STRUCTURED SUMMARY — covering ");
    expect(JSON.stringify(next)).not.toContain("MARKER-0");
    const saved = JSON.parse(
      await readFile(join(home.path, ".chatcli", "sessions", "reads.json"), "utf8"),
    ) as Json;
    const history = saved["chat_history"] as Json[];
    expect(history.filter((m) => m["meta"]?.["is_summary"] === true)).toHaveLength(1);
    expect(history.at(-1)).toEqual({ role: "assistant", content: "done" });
  });

  test("microcompact: old tool results go out as head + tail, then as a one-line summary", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm({ defaultText: "done" });
    const ws = join(home.path, "ws");
    await mkdir(ws);
    for (let i = 0; i < 6; i++) {
      const lines = Array.from({ length: 100 }, (_, n) => `f${i} line ${n} ${"v".repeat(60)}`);
      await writeFile(join(ws, `f${i}.txt`), `${lines.join("\n")}\n`);
      llm.push({ tool_calls: [{ name: "read_file", arguments: { file: `f${i}.txt` } }] });
    }
    // CLEAR_AT_LEAST=0, MIN_CONTENT=3000, SUMMARIZE_TURNS=4: the seed's eager behaviour, every turn
    const r = await runChatcli(["agent", "read every file", "--permission-mode", "bypass"], {
      env: env(llm, home.path, {
        CHATCLI_MICROCOMPACT_CLEAR_AT_LEAST: "0",
        CHATCLI_MICROCOMPACT_MIN_CONTENT: "3000",
        CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS: "4",
      }),
      cwd: ws,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("🗜 microcompact:");
    const firstResult = (i: number) =>
      messagesOf(llm.requests[i] as never).find((m) => m["role"] === "tool")?.["content"] as string;
    expect(firstResult(2)).toContain("f0 line 99");
    expect(firstResult(2)).not.toContain("omitted from old tool result");
    expect(firstResult(3)).toMatch(
      /\[\.\.\. \d+ chars omitted from old tool result \(\d+ lines, text\) \.\.\.\]/,
    );
    expect(firstResult(3)).toContain("f0 line 0 ");
    expect(firstResult(3)).toContain("f0 line 99 ");
    expect(firstResult(3).length).toBeLessThanOrEqual(2600);
    expect(firstResult(5)).toMatch(/^\[Old tool result cleared — \d+ lines, \d+ chars, text\]$/);
  });

  test("microcompact (CHATCLI_MICROCOMPACT=cost): the request prefix changes only at a clearing, never every turn", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm({ defaultText: "done" });
    const ws = join(home.path, "ws");
    await mkdir(ws);
    // eight reads of ~12k chars: results become due turn by turn (the seed's eager rewrite would
    // change the prefix on requests 3 to 9); a clearing waits until it pays for itself over the
    // requests expected: not while the run is young (the floor), then at request 8, all at once
    for (let i = 0; i < 8; i++) {
      const lines = Array.from({ length: 160 }, (_, n) => `f${i} line ${n} ${"v".repeat(60)}`);
      await writeFile(join(ws, `f${i}.txt`), `${lines.join("\n")}\n`);
      llm.push({ tool_calls: [{ name: "read_file", arguments: { file: `f${i}.txt` } }] });
    }
    // the default would not clear at all here: no repeated output has paid for a rewrite
    const r = await runChatcli(["agent", "read every file", "--permission-mode", "bypass"], {
      env: env(llm, home.path, { CHATCLI_MICROCOMPACT: "cost" }),
      cwd: ws,
    });
    expect(r.code).toBe(0);
    const requests = llm.requests.map((q) => JSON.stringify(messagesOf(q as never)));
    expect(requests).toHaveLength(9);
    // how many requests did not start with the whole previous request (a rewritten prefix)?
    const rewritten = requests.flatMap((body, i) =>
      i > 0 && !body.startsWith((requests[i - 1] as string).slice(0, -1)) ? [i + 1] : [],
    );
    expect(rewritten).toEqual([8]);
    expect(r.stderr.match(/🗜 microcompact:/g)).toHaveLength(1);
    const tools = (i: number) =>
      messagesOf(llm.requests[i - 1] as never).filter((m) => m["role"] === "tool");
    const cleared = tools(8)[0]?.["content"];
    expect(cleared).toMatch(/^\[Old tool result cleared — 161 lines, \d+ chars, text\]$/);
    expect(tools(9)[0]?.["content"]).toBe(cleared);
    const last = tools(9);
    // the last two turns go out verbatim
    expect(last.at(-1)?.["content"]).toContain("f7 line 159");
    expect(last.at(-2)?.["content"]).toContain("f6 line 159");
  });
});
