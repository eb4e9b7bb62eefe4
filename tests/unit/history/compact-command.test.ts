import { describe, expect, test } from "bun:test";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { orphanToolResults } from "../../../lib/history/blocks.ts";
import { parseConversation } from "../../../lib/history/formats.ts";
import { run, tempDir } from "../../support/ctx.ts";

const fixtures = join(import.meta.dir, "..", "..", "fixtures", "history");
const fixture = (name: string) => readFile(join(fixtures, name), "utf8");

describe("chatcli compact: formats in = formats out", () => {
  test("OpenAI body: level 1 trims reasoning, keeps everything else verbatim", async () => {
    const input = await fixture("openai-body.json");
    const res = await run(["compact", "--no-llm", "--keep", "2"], { stdin: input });
    expect(res.code).toBe(0);
    const inp = JSON.parse(input);
    const out = JSON.parse(res.out);
    expect(out.model).toBe("gpt-4o");
    expect(out.temperature).toBe(0.2);
    expect(out.messages).toHaveLength(inp.messages.length);
    expect(out.messages[4]).toEqual({
      role: "assistant",
      content: "[reasoning removed: 51 chars]\nThe month is off by one.",
    });
    for (const i of [0, 1, 2, 3, 5, 6, 7, 8]) expect(out.messages[i]).toEqual(inp.messages[i]);
    expect(res.err).toContain("compacted: 9 → 9 messages");
  });

  test("OpenAI messages array and Anthropic body under level 3: tool pairs survive", async () => {
    for (const name of ["openai-body.json", "anthropic-body.json"]) {
      const body = JSON.parse(await fixture(name));
      const input = name.startsWith("openai")
        ? JSON.stringify(body.messages)
        : JSON.stringify(body);
      const res = await run(["compact", "--no-llm", "--budget", "90", "--keep", "3"], {
        stdin: input,
      });
      expect(res.err).toContain("levels 1, 3");
      const out = JSON.parse(res.out);
      const messages = Array.isArray(out) ? out : out.messages;
      expect(messages[0].role === "developer" || out.system !== undefined).toBe(true);
      const back = parseConversation(res.out);
      expect(back.format).toBe(name.startsWith("openai") ? "openai-messages" : "anthropic-body");
      expect(orphanToolResults(back.messages)).toEqual([]);
      expect(JSON.stringify(messages)).toContain("[CONTEXT TRUNCATED:");
      expect(messages.at(-1)).toEqual(body.messages.at(-1));
      if (out.system) expect(out.system).toEqual(body.system);
    }
  });

  test("Anthropic body: thinking text stripped, tool_use block kept", async () => {
    const input = await fixture("anthropic-body.json");
    const res = await run(["compact", "--no-llm", "--keep", "1"], { stdin: input });
    expect(res.code).toBe(0);
    const out = JSON.parse(res.out);
    expect(out.messages[1].content).toEqual([
      { type: "text", text: "[thinking removed: 31 chars]\nReading the file." },
      { type: "tool_use", id: "toolu_1", name: "read_file", input: { file: "src/date.ts" } },
    ]);
    expect(out.messages[2]).toEqual(JSON.parse(input).messages[2]);
    expect(res.out).toStartWith('{\n  "model"');
  });

  test("ChatCLI session file and bare message array keep their shape and unknown keys", async () => {
    const input = await fixture("chatcli-session.json");
    const res = await run(["compact", "--no-llm", "--keep", "2"], { stdin: input });
    const out = JSON.parse(res.out);
    expect(Object.keys(out)).toEqual(["version", "title", "chat_history", "go_future_field"]);
    expect(out.chat_history[4]).toEqual({
      role: "assistant",
      content: "[reasoning removed: 26 chars]\nThe month is off by one.",
      meta: { mode: "coder" },
    });
    const bare = JSON.stringify(JSON.parse(input).chat_history);
    const res2 = await run(["compact", "--no-llm", "--keep", "10"], { stdin: bare });
    expect(res2.out).toBe(`${bare}\n`);
  });

  test("--json: one envelope with stats and the conversation as result", async () => {
    const input = await fixture("chatcli-session.json");
    const res = await run(["compact", "--no-llm", "--json", "--budget", "70", "--keep", "2"], {
      stdin: input,
    });
    expect(res.code).toBe(0);
    const env = JSON.parse(res.out);
    expect(env).toMatchObject({
      type: "result",
      command: "compact",
      exit_code: 0,
      is_error: false,
    });
    expect(env.compaction).toMatchObject({
      levels_run: [1, 3],
      messages_before: 7,
      format: "chatcli-session",
    });
    expect(JSON.parse(env.result).version).toBe(2);
  });

  test("malformed input → exit 2 with the position; nothing on stdout", async () => {
    const res = await run(["compact", "--no-llm"], {
      stdin: '[{"role":"user",\n  "content": "x",,}]',
    });
    expect(res.code).toBe(2);
    expect(res.out).toBe("");
    expect(res.err).toContain("malformed JSON input at line 2, column 18");
    const notConv = await run(["compact", "--no-llm"], { stdin: '{"hello":"world"}' });
    expect(notConv.code).toBe(2);
    const empty = await run(["compact", "--no-llm"], { stdin: { kind: "null" } });
    expect(empty.code).toBe(2);
  });

  test("--json error envelope on malformed input", async () => {
    const res = await run(["compact", "--no-llm", "--json"], { stdin: "{" });
    expect(res.code).toBe(2);
    expect(JSON.parse(res.out)).toMatchObject({ terminal_reason: "bad_input", exit_code: 2 });
  });

  test("--session compacts in place, checkpoints first, rewind can undo it", async () => {
    await using home = await tempDir();
    const env = { CHATCLI_HOME: home.path };
    await mkdir(join(home.path, "sessions"));
    const path = join(home.path, "sessions", "s.json");
    const input = await fixture("chatcli-session.json");
    await writeFile(path, input);
    const res = await run(["compact", "--session", "s", "--no-llm", "--keep", "2"], { env });
    expect(res.code).toBe(0);
    expect(res.out).toBe("");
    const saved = JSON.parse(await readFile(path, "utf8"));
    expect(saved.chat_history[4].content).toBe(
      "[reasoning removed: 26 chars]\nThe month is off by one.",
    );
    const undo = await run(["rewind", "--session", "s", "--to", "1"], { env });
    expect(undo.code).toBe(0);
    expect(JSON.parse(await readFile(path, "utf8")).chat_history).toEqual(
      JSON.parse(input).chat_history,
    );
    const missing = await run(["compact", "--session", "nope", "--no-llm"], { env });
    expect(missing.code).toBe(2);
  });

  test("cannot fit (huge system message) → exit 8, nothing written", async () => {
    const input = JSON.stringify([
      { role: "system", content: "s".repeat(10_000) },
      { role: "user", content: "hi" },
    ]);
    const res = await run(["compact", "--no-llm", "--budget", "100"], { stdin: input });
    expect(res.code).toBe(8);
    expect(res.out).toBe("");
  });

  test("--instruction without an LLM is a usage error; without a provider a config error", async () => {
    expect((await run(["compact", "--no-llm", "--instruction", "x"], { stdin: "[]" })).code).toBe(
      2,
    );
    expect((await run(["compact", "--instruction", "x"], { stdin: "[]", env: {} })).code).toBe(3);
  });
});

test("SIGINT during level 2 → exit 130, nothing written, session untouched", async () => {
  const { runCli } = await import("../../../commands/cli.ts");
  const { testCtx } = await import("../../support/ctx.ts");
  await using home = await tempDir();
  await mkdir(join(home.path, "sessions"));
  const path = join(home.path, "sessions", "s.json");
  const big = JSON.stringify({
    version: 2,
    title: "t",
    chat_history: Array.from({ length: 30 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: `message ${i} ${"z".repeat(500)}`,
    })),
  });
  await writeFile(path, big);
  const ctx = testCtx({ env: { CHATCLI_HOME: home.path, OPENAI_API_KEY: "sk-test-not-used" } });
  ctx.abort("SIGINT");
  const code = await runCli(["compact", "--session", "s", "--budget", "500"], ctx);
  expect(code).toBe(130);
  expect(ctx.err()).toContain("Compaction cancelled");
  expect(await readFile(path, "utf8")).toBe(big);
});

test("FILE argument, --window/--ratio budget, stream-json events", async () => {
  const file = join(fixtures, "chatcli-session.json");
  const res = await run(
    ["compact", file, "--no-llm", "--window", "600", "--ratio", "0.12", "--keep", "2", "--jsonl"],
    {},
  );
  expect(res.code).toBe(0);
  const lines = res.out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  // the stream's first line is always session.started (CONTRACT §2)
  expect(lines[0]).toMatchObject({ type: "session.started", seq: 0, command: "compact" });
  expect(lines[1]).toMatchObject({ type: "compaction.started", seq: 1, budget_tokens: 72 });
  expect(lines.map((l) => l.type)).toContain("compaction.completed");
  expect(lines.at(-1)).toMatchObject({
    type: "result",
    compaction: { budget_tokens: 72, levels_run: [1, 3] },
  });
  expect((await run(["compact", "no-such-file.json", "--no-llm"])).code).toBe(2);
  expect((await run(["compact", file, "--session", "x", "--no-llm"])).code).toBe(2);
});

test("shrunk tool-call arguments reach the wire in OpenAI and Anthropic formats", async () => {
  const big = "w".repeat(40_000);
  const openai = {
    messages: [
      { role: "user", content: "write" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: {
              name: "write_file",
              arguments: JSON.stringify({ file: "a", content: big }),
            },
          },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "ok" },
    ],
  };
  const res = await run(["compact", "--no-llm", "--budget", "1000"], {
    stdin: JSON.stringify(openai),
  });
  expect(res.code).toBe(0);
  const out = JSON.parse(res.out);
  const args = JSON.parse(out.messages[1].tool_calls[0].function.arguments);
  expect(args.file).toBe("a");
  expect(args.content.length).toBeLessThan(4_000);
  expect(out.messages[1].tool_calls[0].id).toBe("c1");

  const anthropic = {
    system: "s",
    messages: [
      { role: "user", content: "write" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "t1", name: "write_file", input: { file: "a", content: big } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
    ],
  };
  const res2 = await run(["compact", "--no-llm", "--budget", "1000"], {
    stdin: JSON.stringify(anthropic),
  });
  expect(res2.code).toBe(0);
  const block = JSON.parse(res2.out).messages[1].content[0];
  expect(block).toMatchObject({ type: "tool_use", id: "t1", input: { file: "a" } });
  expect(block.input.content.length).toBeLessThan(4_000);
});
