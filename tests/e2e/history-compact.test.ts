/**
 * `chatcli compact` through the built binary against the mock LLM: level 2 (guided and structured) in
 * every input format, `--session` in place, malformed input, and SIGINT during level 2.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli, spawnChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: the documents are inspected freely
type Json = Record<string, any>;

function env(llm: MockLlm, home: string) {
  return baseEnv(home, { ...llm.env("openai"), CHATCLI_RETRY_BASE_MS: "10" });
}

const pad = (i: number) => `${i} ${"x".repeat(1600)}`;

/** OpenAI wire messages: a system prompt, then 8 rounds of user → tool call → tool result → answer. */
function openaiMessages(): Json[] {
  const messages: Json[] = [{ role: "system", content: "You are terse." }];
  for (let i = 0; i < 8; i++) {
    messages.push({ role: "user", content: `question ${pad(i)}` });
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: `call_${i}`,
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ file: `src/f${i}.ts` }) },
        },
      ],
    });
    messages.push({ role: "tool", tool_call_id: `call_${i}`, content: `file ${pad(i)}` });
    messages.push({ role: "assistant", content: `API decision ${i}: keep v${i}` });
  }
  return messages;
}

/** The same conversation as an Anthropic body. */
function anthropicBody(): Json {
  const messages = openaiMessages()
    .slice(1)
    .map((m): Json => {
      if (m["role"] === "tool") {
        return {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: m["tool_call_id"], content: m["content"] }],
        };
      }
      if (m["tool_calls"]) {
        const call = m["tool_calls"][0];
        return {
          role: "assistant",
          content: [
            {
              type: "tool_use",
              id: call.id,
              name: call.function.name,
              input: JSON.parse(call.function.arguments),
            },
          ],
        };
      }
      return m;
    });
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    system: [{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } }],
    messages,
  };
}

/** ChatCLI messages (Go shape: tool call arguments as objects). */
function chatcliMessages(): Json[] {
  return openaiMessages().map((m): Json => {
    if (m["tool_calls"]) {
      const call = m["tool_calls"][0];
      return {
        role: "assistant",
        content: "",
        tool_calls: [
          {
            id: call.id,
            type: "function",
            name: call.function.name,
            arguments: JSON.parse(call.function.arguments),
          },
        ],
      };
    }
    return m;
  });
}

/** Every tool result must follow an assistant message that made that call (OpenAI/ChatCLI shapes). */
function expectNoOrphans(messages: Json[]): void {
  const seen = new Set<string>();
  for (const m of messages) {
    for (const c of (m["tool_calls"] as Json[] | undefined) ?? []) seen.add(c["id"]);
    if (m["role"] === "tool") expect(seen.has(m["tool_call_id"])).toBe(true);
  }
}

function promptOf(llm: MockLlm, i = 0): string {
  const body = llm.requests[i]?.body as Json;
  return body["messages"][0]["content"] as string;
}

describe("chatcli compact, level 2 against the mock", () => {
  test("OpenAI messages with tool calls, guided: the instruction reaches the summariser; OpenAI array out", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "## API\n- decisions 0-5: keep v0..v5" });
    const input = openaiMessages();
    const r = await runChatcli(
      ["compact", "--budget", "3000", "--instruction", "keep the API decisions"],
      { env: env(llm, home.path), cwd: home.path, stdin: JSON.stringify(input) },
    );
    expect(r.code).toBe(0);
    expect(llm.requests).toHaveLength(1);
    const prompt = promptOf(llm);
    expect(prompt).toContain("USER INSTRUCTION: keep the API decisions");
    expect(prompt).toContain("[assistant]: API decision 0: keep v0");
    expect((llm.requests[0]?.body as Json | undefined)?.["tools"]).toBeUndefined();
    const out = JSON.parse(r.stdout) as Json[];
    expect(out[0]).toEqual(input[0]);
    // the task (the first user message) is kept verbatim, and named to the summariser
    expect(out[1]).toEqual(input[1]);
    expect(prompt).toContain(`<<<\n${input[1]?.["content"]}\n>>>`);
    expect(out[2]?.["role"]).toBe("user");
    expect(out[2]?.["content"]).toStartWith(
      '[COMPACTED CONTEXT — 27 messages summarized per user instruction: "keep the API decisions"]',
    );
    expect(out[2]?.["content"]).toContain("decisions 0-5: keep v0..v5");
    // Guided: the last 4 messages (one whole tool round) are the input's, verbatim.
    expect(out.slice(3)).toEqual(input.slice(29));
    expectNoOrphans(out);
    expect(r.stderr).toContain("Summarizing 27 old messages via LLM");
  });

  test("Anthropic {system, messages}: structured summary, Anthropic body out with system and extra keys kept", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "## Files Read\n- src/f0.ts" });
    const input = anthropicBody();
    const r = await runChatcli(["compact", "--budget", "3000", "--level", "2"], {
      env: env(llm, home.path),
      cwd: home.path,
      stdin: JSON.stringify(input, null, 2),
    });
    expect(r.code).toBe(0);
    expect(promptOf(llm)).toContain("CONVERSATION SEGMENT TO EXTRACT FROM");
    const out = JSON.parse(r.stdout) as Json;
    expect(r.stdout).toStartWith('{\n  "model"');
    expect(out["model"]).toBe("claude-sonnet-4-5");
    expect(out["max_tokens"]).toBe(1024);
    expect(out["system"]).toEqual(input["system"]);
    const messages = out["messages"] as Json[];
    // the task and the summary after it, merged into one user turn (turns alternate)
    expect(messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: input["messages"][0]["content"] },
        {
          type: "text",
          text: expect.stringMatching(/^\[STRUCTURED SUMMARY — covering \d+ earlier messages\]/),
        },
      ],
    });
    expect(messages[1]?.["role"]).toBe("assistant");
    // The kept tail is the input's tail, verbatim; every tool_result's tool_use is kept.
    const tail = messages.slice(1);
    expect(tail).toEqual(input["messages"].slice(input["messages"].length - tail.length));
    const uses = new Set<string>();
    for (const m of tail) {
      for (const b of Array.isArray(m["content"]) ? m["content"] : []) {
        if (b.type === "tool_use") uses.add(b.id);
        if (b.type === "tool_result") expect(uses.has(b.tool_use_id)).toBe(true);
      }
    }
  });

  test("ChatCLI session file on stdin: a session file out, summary marked is_summary", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "## Key Decisions\n- v7" });
    const doc = { version: 2, title: "api work", chat_history: chatcliMessages() };
    const r = await runChatcli(["compact", "--budget", "3000"], {
      env: env(llm, home.path),
      cwd: home.path,
      stdin: JSON.stringify(doc, null, 2),
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Json;
    expect(out["version"]).toBe(2);
    expect(out["title"]).toBe("api work");
    const history = out["chat_history"] as Json[];
    expect(history[0]).toEqual(doc.chat_history[0]);
    expect(history[1]).toEqual(doc.chat_history[1]);
    expect(history[2]?.["meta"]).toEqual({ is_summary: true, summary_of: expect.any(Number) });
    expect(history[2]?.["content"]).toContain("## Key Decisions\n- v7");
    expectNoOrphans(history);
    expect(history.at(-1)).toEqual(doc.chat_history.at(-1));
  });

  test("bare ChatCLI array: a bare array out, tool calls still in ChatCLI shape", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "## Current Task State\n- Done: reads" });
    const input = chatcliMessages();
    const r = await runChatcli(["compact", "--budget", "3000", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
      stdin: JSON.stringify(input),
    });
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout) as Json;
    expect(envelope["compaction"]).toMatchObject({
      status: "compacted",
      levels_run: [1, 2],
      format: "chatcli-messages",
      under_budget: true,
    });
    const out = JSON.parse(envelope["result"]) as Json[];
    expect(Array.isArray(out)).toBe(true);
    expect(out[2]?.["meta"]?.["is_summary"]).toBe(true);
    const call = out.find((m) => m["tool_calls"])?.["tool_calls"][0];
    expect(call).toEqual({
      id: expect.any(String),
      type: "function",
      name: "read_file",
      arguments: { file: expect.any(String) },
    });
    expectNoOrphans(out);
  });
  test("the summariser rejects the prompt as too long: level 2 re-chunks at half the size instead of falling to level 3", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm({ defaultText: "## Key Decisions\n- part notes" });
    llm.push({ error: { status: 400, message: "prompt is too long: 9000 tokens > 4000 maximum" } });
    const r = await runChatcli(["compact", "--budget", "3000", "--json"], {
      env: baseEnv(home.path, {
        ...llm.env("openai"),
        CHATCLI_RETRY_BASE_MS: "10",
        CHATCLI_CONTEXT_WINDOW: "4000",
      }),
      cwd: home.path,
      stdin: JSON.stringify(chatcliMessages()),
    });
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout) as Json;
    expect(envelope["compaction"]).toMatchObject({ levels_run: [1, 2], summary_error: null });
    const sizes = llm.requests.map((_, i) => promptOf(llm, i).length);
    expect(sizes.length).toBeGreaterThan(2);
    for (const size of sizes.slice(1)) expect(size).toBeLessThan(sizes[0] as number);
    const out = JSON.parse(envelope["result"]) as Json[];
    expect(out[2]?.["meta"]?.["is_summary"]).toBe(true);
  });
});

describe("chatcli compact --session", () => {
  async function writeSession(home: string, name: string, text: string): Promise<string> {
    const dir = join(home, ".chatcli", "sessions");
    await mkdir(dir, { recursive: true });
    const file = join(dir, `${name}.json`);
    await writeFile(file, text);
    return file;
  }

  test("saves in place (nothing on stdout) and the pre-compaction history can be rewound to", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const original = `${JSON.stringify({ version: 2, title: "api", chat_history: chatcliMessages() }, null, 2)}\n`;
    const file = await writeSession(home.path, "api", original);
    llm.push({ text: "## Key Decisions\n- keep v1" });
    const r = await runChatcli(["compact", "--session", "api", "--budget", "3000"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    const saved = JSON.parse(await readFile(file, "utf8")) as Json;
    expect(saved["title"]).toBe("api");
    expect(saved["chat_history"][2]["meta"]["is_summary"]).toBe(true);
    expect(saved["chat_history"].length).toBeLessThan(chatcliMessages().length);
    const back = await runChatcli(["rewind", "--session", "api", "--to", "1", "--conversation"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(back.code).toBe(0);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual(JSON.parse(original));
  });

  test("a session file that does not parse: exit 2 with the position, the file left as it was", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const text =
      '{\n  "version": 2,\n  "chat_history": [\n    {"role": "user", "content": "a"},\n  ]\n}\n';
    const file = await writeSession(home.path, "broken", text);
    for (const args of [
      ["compact", "--session", "broken", "--no-llm"],
      ["rewind", "--session", "broken", "--list"],
      ["sessions", "show", "broken"],
    ]) {
      const r = await runChatcli(args, { env: env(llm, home.path), cwd: home.path });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("malformed JSON input at line 5, column 3");
    }
    expect(await readFile(file, "utf8")).toBe(text);
    expect(await readdir(join(home.path, ".chatcli", "sessions"))).toEqual(["broken.json"]);
    expect(llm.requests).toHaveLength(0);
  });

  test("malformed stdin: exit 2 with line and column, nothing on stdout, no model call", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const r = await runChatcli(["compact", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
      stdin: '[\n  {"role": "user", "content": "a"}\n  {"role": "user", "content": "b"}\n]',
    });
    expect(r.code).toBe(2);
    const envelope = JSON.parse(r.stdout) as Json;
    expect(envelope["result"]).toBeNull();
    expect(envelope["error"]["code"]).toBe("bad_input");
    expect(envelope["error"]["message"]).toContain("at line 3, column 3 (offset 39)");
    expect(llm.requests).toHaveLength(0);
  });

  test("SIGINT during level 2: exit 130, the session file byte-identical, no checkpoint written", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const original = JSON.stringify({ version: 2, title: "api", chat_history: chatcliMessages() });
    const file = await writeSession(home.path, "api", original);
    llm.push({ stall: true });
    const p = spawnChatcli(["compact", "--session", "api", "--budget", "3000"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    await llm.waitForHits(1);
    p.proc.kill("SIGINT");
    const r = await p.done;
    expect(r.code).toBe(130);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("history unchanged");
    expect(await readFile(file, "utf8")).toBe(original);
    expect(await readdir(join(home.path, ".chatcli", "sessions"))).toEqual(["api.json"]);
  });

  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    test(`${signal} during level 2 of a stdin filter: exit ${code} and nothing on stdout (no level-3 fallback)`, async () => {
      await using home = await tempDir();
      await using llm = await startMockLlm();
      llm.push({ stall: true });
      const p = spawnChatcli(["compact", "--budget", "3000"], {
        env: env(llm, home.path),
        cwd: home.path,
        stdin: JSON.stringify(openaiMessages()),
      });
      await llm.waitForHits(1);
      p.proc.kill(signal);
      const r = await p.done;
      expect(r.code).toBe(code);
      expect(r.stdout).toBe("");
      expect(r.stderr).not.toContain("Emergency truncation");
    });
  }
});
