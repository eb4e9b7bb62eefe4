/** OPENAI through the Responses API (OPENAI_USE_RESPONSES=true, or a Responses-only model), real SDK, mock. */
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { providerSuite } from "./provider-suite.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: bodies are inspected freely
type Json = any;

const responsesEnv = (llm: MockLlm) => ({
  LLM_PROVIDER: "OPENAI",
  OPENAI_API_KEY: "sk-mock-openai",
  OPENAI_BASE_URL: `${llm.url}/v1`,
  OPENAI_USE_RESPONSES: "true",
});

providerSuite({
  name: "OPENAI (OPENAI_USE_RESPONSES=true)",
  label: "openai/gpt-5.4",
  env: responsesEnv,
  path: /^\/v1\/responses$/,
  price: { input: 2.5, output: 15, cacheRead: 0.25 },
  contextError:
    "Your input exceeds the context window of this model. This model's maximum context length is 400000 tokens.",
  checkRequest(request) {
    expect(request.body).toMatchObject({
      model: "gpt-5.4",
      stream: true,
      store: false,
      include: ["reasoning.encrypted_content"],
    });
    expect(typeof request.body.instructions).toBe("string");
    expect(request.body.input.at(-1)).toMatchObject({ role: "user" });
  },
});

function run(llm: MockLlm, home: string, args: string[], extra: Record<string, string> = {}) {
  return runChatcli(args, {
    env: baseEnv(home, { ...responsesEnv(llm), CHATCLI_MEMORY_ENABLED: "false", ...extra }),
    cwd: home,
  });
}

describe("Responses API specifics", () => {
  test("function calls go back as function_call + function_call_output items, with the turn's encrypted reasoning item first", async () => {
    await using home = await tempDir();
    await writeFile(join(home.path, "a.txt"), "alpha-content\n");
    await using llm = await startMockLlm();
    llm.push(
      {
        reasoning: "need the file",
        tool_calls: [{ id: "call_abc", name: "read_file", arguments: { file: "a.txt" } }],
      },
      { text: "It says alpha." },
    );
    const r = await run(llm, home.path, ["agent", "what is in a.txt?", "--json"]);
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.result).toBe("It says alpha.");
    expect(r.stdout).not.toContain("need the file");
    const first = llm.requests[0]?.body as Json;
    expect(first.tools.find((t: Json) => t.name === "read_file")).toMatchObject({
      type: "function",
      strict: false,
    });
    const input = (llm.requests[1]?.body as Json)?.input as Json[];
    const tail = input.slice(-3);
    expect(tail[0]).toEqual({
      type: "reasoning",
      id: "rs_mock_1",
      encrypted_content: "gAAAA-encrypted-reasoning-1",
      summary: [],
    });
    expect(tail[1]).toEqual({
      type: "function_call",
      call_id: "call_abc",
      name: "read_file",
      arguments: '{"file":"a.txt"}',
    });
    expect(tail[2].type).toBe("function_call_output");
    expect(tail[2].call_id).toBe("call_abc");
    expect(tail[2].output).toContain("alpha-content");
  });

  test("a model only the Responses API serves goes there without the switch", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "codex here" });
    const r = await runChatcli(["ask", "hi", "-m", "openai/gpt-5.1-codex"], {
      env: baseEnv(home.path, {
        OPENAI_API_KEY: "k",
        OPENAI_BASE_URL: `${llm.url}/v1`,
        CHATCLI_MEMORY_ENABLED: "false",
      }),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("codex here\n");
    expect(llm.requests[0]?.path).toBe("/v1/responses");
  });

  test("response.incomplete (max_output_tokens) is a max_tokens stop with a warning; usage counts reasoning", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({
      text: "cut",
      stop: "max_tokens",
      usage: { input_tokens: 100, output_tokens: 50, reasoning_tokens: 40 },
    });
    const r = await run(llm, home.path, ["ask", "hi", "--json", "--max-tokens", "50"]);
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.result).toBe("cut");
    expect(envelope.warnings.map((w: Json) => w.code)).toContain("max_tokens");
    expect(envelope.usage).toMatchObject({ output_tokens: 50, reasoning_tokens: 40 });
    expect((llm.requests[0]?.body as Json)?.max_output_tokens).toBe(50);
  });

  test("response.failed after output started: exit 1 with the server's message", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({
      text: "partial answer",
      error: { status: 500, message: "The server had an error" },
    });
    const r = await run(llm, home.path, ["ask", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toStartWith("partial");
    expect(r.stderr).toContain("The server had an error");
  });
});
