/**
 * Real OpenAI-compatible stream shapes through the built binary: Mistral's content-part arrays,
 * DeepSeek's reasoning_content, Groq's x_groq usage, xAI and OpenRouter chunks, tool-call deltas that
 * repeat the whole function name (OpenRouter upstreams), and tool names that keep their case.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import {
  chunk,
  comment,
  DONE,
  data,
  openaiAnswer,
  sse,
  usageChunk,
} from "../support/wire-fixtures.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON
type Json = any;

function env(llm: MockLlm, home: string) {
  return baseEnv(home, { ...llm.env("openai"), CHATCLI_RETRY_BASE_MS: "1" });
}

async function ask(llm: MockLlm, home: string, args: string[] = []) {
  const r = await runChatcli(["ask", "question", "--json", ...args], {
    env: env(llm, home),
    cwd: home,
  });
  return { ...r, out: JSON.parse(r.stdout) as Json };
}

describe("content and reasoning in the shapes providers send", () => {
  test("Mistral (magistral): content as part arrays — text parts are the answer, thinking parts are not", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const m = { model: "magistral-medium-2509", id: "cmpl-e5cc70bb28c444948073e77776eb30ef" };
    llm.pushRaw(
      sse([
        chunk({ role: "assistant", content: "" }, m),
        chunk(
          {
            content: [
              { type: "thinking", thinking: [{ type: "text", text: "The user asks 2+2. " }] },
            ],
          },
          m,
        ),
        chunk(
          { content: [{ type: "thinking", thinking: [{ type: "text", text: "It is 4." }] }] },
          m,
        ),
        chunk({ content: [{ type: "text", text: "2 + 2 " }] }, m),
        chunk({ content: [{ type: "text", text: "= 4" }] }, m),
        chunk(
          { content: "" },
          {
            ...m,
            finish: "stop",
            extra: { usage: { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 } },
          },
        ),
        DONE,
      ]),
    );
    const r = await ask(llm, home.path);
    expect(r.code).toBe(0);
    expect(r.out.result).toBe("2 + 2 = 4");
    expect(r.stdout).not.toContain("[object Object]");
    expect(r.out.usage).toMatchObject({ input_tokens: 12, output_tokens: 30 });
  });

  test("DeepSeek reasoner: reasoning_content deltas are not the answer; text mode prints only content", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const m = { model: "deepseek-reasoner", id: "b4d6c7e0-5e1f-4b8a-9d3c-2f0a1e6b7c8d" };
    llm.pushRaw(
      sse([
        chunk({ role: "assistant", content: null, reasoning_content: "" }, m),
        chunk({ content: null, reasoning_content: "Let me count the r's." }, m),
        chunk({ content: null, reasoning_content: " There are three." }, m),
        chunk({ content: "Three.", reasoning_content: null }, m),
        chunk(
          { content: "", reasoning_content: null },
          {
            ...m,
            finish: "stop",
            extra: {
              usage: {
                prompt_tokens: 15,
                completion_tokens: 40,
                total_tokens: 55,
                prompt_cache_hit_tokens: 0,
                prompt_cache_miss_tokens: 15,
                completion_tokens_details: { reasoning_tokens: 35 },
              },
            },
          },
        ),
        DONE,
      ]),
    );
    const r = await runChatcli(["ask", "how many r in strawberry"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Three.\n");
  });

  test("Groq: usage only in x_groq on the last chunk; OpenRouter: comments and a usage chunk with empty choices", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const g = { model: "llama-3.3-70b-versatile", id: "chatcmpl-7f3b" };
    llm.pushRaw(
      sse([
        chunk({ role: "assistant", content: "" }, { ...g, extra: { x_groq: { id: "req_01j" } } }),
        chunk({ content: "Groq says hi" }, g),
        chunk(
          {},
          {
            ...g,
            finish: "stop",
            extra: {
              x_groq: {
                id: "req_01j",
                usage: { prompt_tokens: 40, completion_tokens: 3, total_tokens: 43 },
              },
            },
          },
        ),
        DONE,
      ]),
      sse([
        comment("OPENROUTER PROCESSING"),
        comment("OPENROUTER PROCESSING"),
        ...openaiAnswer(["Router ", "says hi"], "x-ai/grok-4").slice(0, -2),
        usageChunk(33, 5, "x-ai/grok-4"),
        comment("OPENROUTER PROCESSING"),
        DONE,
      ]),
    );
    const groq = await ask(llm, home.path);
    const router = await ask(llm, home.path);
    expect(groq.out).toMatchObject({
      result: "Groq says hi",
      usage: { input_tokens: 40, output_tokens: 3 },
    });
    expect(router.out).toMatchObject({
      result: "Router says hi",
      usage: { input_tokens: 33, output_tokens: 5 },
    });
  });

  test("content of an unknown shape never becomes '[object Object]'", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      sse([
        chunk({ role: "assistant", content: "kept" }),
        chunk({ content: { type: "image_url", image_url: { url: "data:," } } }),
        chunk({ content: 42 }),
        chunk({}, { finish: "stop" }),
        DONE,
      ]),
    );
    const r = await ask(llm, home.path);
    expect(r.code).toBe(0);
    expect(r.out.result).toBe("kept");
  });
});

/** A tool call streamed as OpenRouter upstreams do: the whole name again in a later delta. */
function repeatedNameCall(name: string, args: string, id = "call_k2Xo1") {
  const half = Math.ceil(args.length / 2);
  return sse([
    chunk({ role: "assistant", content: null }),
    chunk({
      tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "" } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { name, arguments: args.slice(0, half) } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }),
    chunk({}, { finish: "tool_calls" }),
    usageChunk(120, 20),
    DONE,
  ]);
}

function assistantCalls(body: Json): Json[] {
  return (body.messages as Json[]).filter((m) => m.role === "assistant" && m.tool_calls);
}

describe("tool-call deltas", () => {
  test("a function name repeated whole in a later delta is not doubled (the SDK's rule: names are assigned)", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    await writeFile(join(home.path, "notes.txt"), "deploy at 5\n");
    llm.pushRaw(repeatedNameCall("read_file", JSON.stringify({ file: "notes.txt" })));
    llm.push({ text: "It says deploy at 5." });
    const r = await runChatcli(["agent", "what do my notes say", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.tools.by_name).toEqual({ read_file: 1 });
    expect(out.result).toBe("It says deploy at 5.");
    const second = llm.requests[1]?.body as Json;
    expect(assistantCalls(second)[0].tool_calls[0].function).toEqual({
      name: "read_file",
      arguments: JSON.stringify({ file: "notes.txt" }),
    });
    const result = (second.messages as Json[]).find((m) => m.role === "tool");
    expect(result.content).toContain("deploy at 5");
  });

  test("tool names keep their case in history and events; chatcli's own tools match ignoring case", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    await writeFile(join(home.path, "notes.txt"), "ship it\n");
    llm.pushRaw(
      repeatedNameCall("updateIssueList", JSON.stringify({ ids: [1, 2] }), "call_upd"),
      repeatedNameCall("Read_File", JSON.stringify({ file: "notes.txt" }), "call_rd"),
    );
    llm.push({ text: "done" });
    const r = await runChatcli(["agent", "tidy the issues", "--jsonl"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Json);
    const started = lines.filter((e) => e.type === "tool.completed").map((e) => e.name);
    expect(started).toEqual(["updateIssueList", "read_file"]);
    const second = llm.requests[1]?.body as Json;
    expect(assistantCalls(second)[0].tool_calls[0].function.name).toBe("updateIssueList");
    const third = llm.requests[2]?.body as Json;
    const names = assistantCalls(third).map((m) => m.tool_calls[0].function.name);
    expect(names).toEqual(["updateIssueList", "read_file"]);
    const readResult = (third.messages as Json[]).filter((m) => m.role === "tool").at(-1);
    expect(readResult.content).toContain("ship it");
    const result = lines.at(-1) as Json;
    expect(result.tools.by_name).toEqual({ updateIssueList: 1, read_file: 1 });
  });

  test("an error object in place of a chunk (vLLM) is an error, not an empty answer", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const vllm = data({
      object: "error",
      message: "The model `Qwen/Qwen3-8B` does not exist.",
      type: "NotFoundError",
      param: null,
      code: 404,
    });
    llm.pushRaw(sse([vllm]));
    const r = await ask(llm, home.path);
    expect(r.code).toBe(3);
    expect(r.out.error.message).toContain("does not exist");
    expect(llm.requests).toHaveLength(1);
  });
});
