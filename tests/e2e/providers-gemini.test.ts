/** GOOGLEAI (Gemini) through the built binary and the real `@google/genai` SDK against the mock. */
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

const geminiEnv = (llm: MockLlm) => ({
  LLM_PROVIDER: "GOOGLEAI",
  GOOGLEAI_API_KEY: "AIza-mock-key",
  GOOGLEAI_BASE_URL: llm.url,
});

providerSuite({
  name: "GOOGLEAI",
  label: "google/gemini-2.5-flash",
  env: geminiEnv,
  path: /^\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent$/,
  price: { input: 0.3, output: 2.5, cacheRead: 0.03 },
  contextError:
    "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
  checkRequest(request) {
    expect(request.headers["x-goog-api-key"]).toBe("AIza-mock-key");
    expect(request.body.contents.at(-1)).toMatchObject({ role: "user" });
    expect(request.body.systemInstruction.parts[0].text.length).toBeGreaterThan(0);
  },
});

function run(llm: MockLlm, home: string, args: string[], extra: Record<string, string> = {}) {
  return runChatcli(args, {
    env: baseEnv(home, { ...geminiEnv(llm), CHATCLI_MEMORY_ENABLED: "false", ...extra }),
    cwd: home,
  });
}

describe("Gemini specifics", () => {
  test("function calls: declarations as JSON schema, the call and its thoughtSignature sent back, the result as a functionResponse", async () => {
    await using home = await tempDir();
    await writeFile(join(home.path, "a.txt"), "alpha-content\n");
    await using llm = await startMockLlm();
    llm.push(
      { tool_calls: [{ id: "c1", name: "read_file", arguments: { file: "a.txt" } }] },
      { text: "It says alpha." },
    );
    const r = await run(llm, home.path, ["agent", "what is in a.txt?", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe("It says alpha.");
    const first = llm.requests[0]?.body as Json;
    const declarations = first.tools[0].functionDeclarations as Json[];
    const names = declarations.map((d) => d.name);
    expect(names).toEqual([...names].sort());
    expect(declarations.find((d) => d.name === "read_file")?.parametersJsonSchema.type).toBe(
      "object",
    );
    const second = llm.requests[1]?.body as Json;
    const model = second.contents.at(-2);
    expect(model.role).toBe("model");
    expect(model.parts).toContainEqual({
      functionCall: { name: "read_file", args: { file: "a.txt" } },
      thoughtSignature: "sig-c1",
    });
    const response = second.contents.at(-1).parts[0].functionResponse;
    expect(response.name).toBe("read_file");
    expect(JSON.stringify(response.response)).toContain("alpha-content");
    // the stable prefix (system instruction, tools, earlier turns) is identical: implicit caching can hit
    expect(second.systemInstruction).toEqual(first.systemInstruction);
    expect(second.tools).toEqual(first.tools);
  });

  test("cachedContentTokenCount is reported as cache reads; thoughts are reasoning tokens, priced as output, never in the result", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({
      reasoning: "SECRET-THOUGHT the user wants a number",
      text: "42",
      usage: {
        input_tokens: 10_000,
        cache_read_input_tokens: 6_000,
        output_tokens: 1_500,
        reasoning_tokens: 1_000,
      },
    });
    const r = await run(llm, home.path, ["ask", "the answer?", "--json"]);
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout) as Json;
    expect(envelope.result).toBe("42");
    expect(r.stdout).not.toContain("SECRET-THOUGHT");
    expect(envelope.usage).toEqual({
      input_tokens: 10_000,
      output_tokens: 1_500,
      reasoning_tokens: 1_000,
      cache_read_input_tokens: 6_000,
      cache_creation_input_tokens: 0,
    });
    // 4k uncached × $0.30 + 6k × $0.03 + 1.5k (thoughts included) × $2.50
    expect(envelope.total_cost_usd).toBeCloseTo(
      (4_000 * 0.3 + 6_000 * 0.03 + 1_500 * 2.5) / 1e6,
      10,
    );
  });

  test("GEMINI_API_KEY and GOOGLEAI_MAX_TOKENS as the Go tool reads them; -m gemini/<model>", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "pro here" });
    const r = await runChatcli(["ask", "hi", "-m", "gemini/gemini-2.5-pro", "--json"], {
      env: baseEnv(home.path, {
        GEMINI_API_KEY: "gem-key",
        GOOGLEAI_BASE_URL: llm.url,
        GOOGLEAI_MAX_TOKENS: "777",
        CHATCLI_MEMORY_ENABLED: "false",
      }),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).model).toBe("google/gemini-2.5-pro");
    const request = llm.requests[0] as Json;
    expect(request.path).toBe("/v1beta/models/gemini-2.5-pro:streamGenerateContent");
    expect(request.headers["x-goog-api-key"]).toBe("gem-key");
    expect(request.body.generationConfig.maxOutputTokens).toBe(777);
  });

  test("an error chunk inside the stream after output started fails the run (exit 1), not a short success", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({
      text: "partial answer that goes on",
      error: { status: 503, message: "backend overloaded" },
    });
    const r = await run(llm, home.path, ["ask", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toStartWith("partial");
    expect(r.stderr).toContain("backend overloaded");
    expect(llm.requests).toHaveLength(1);
  });
});
