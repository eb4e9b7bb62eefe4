/**
 * Reasoning control end to end: `--effort` / CHATCLI_EFFORT mapped per provider on the wire, thinking
 * blocks (signatures included) sent back unchanged in tool loops, reasoning out of `result` and text
 * output, reasoning.delta events in stream-json only with --show-reasoning.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: bodies and events are inspected freely
type Json = any;

function run(_llm: MockLlm, home: string, env: Record<string, string>, args: string[]) {
  return runChatcli(args, {
    env: baseEnv(home, { ...env, CHATCLI_MEMORY_ENABLED: "false", CHATCLI_RETRY_BASE_MS: "5" }),
    cwd: home,
  });
}

function events(stdout: string): Json[] {
  return stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

const THOUGHT = "SECRET-REASONING: the file holds the port";

describe("Anthropic extended thinking", () => {
  test("agent --effort high: a thinking budget; the thinking block and its signature go back unchanged with the tool result", async () => {
    await using home = await tempDir();
    await writeFile(join(home.path, "port.txt"), "8123\n");
    await using llm = await startMockLlm();
    llm.push(
      { reasoning: THOUGHT, tool_calls: [{ name: "read_file", arguments: { file: "port.txt" } }] },
      { reasoning: "now answer", text: "The port is 8123." },
    );
    const r = await run(llm, home.path, llm.env("anthropic"), [
      "agent",
      "which port?",
      "--effort",
      "high",
      "--json",
    ]);
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout) as Json;
    expect(envelope.result).toBe("The port is 8123.");
    expect(r.stdout).not.toContain("SECRET-REASONING");
    expect(r.stderr).not.toContain("SECRET-REASONING");
    const first = llm.requests[0]?.body as Json;
    expect(first.thinking).toEqual({ type: "enabled", budget_tokens: 16_384 });
    expect(first.max_tokens).toBe(16_384 + 8192);
    expect(first.temperature).toBeUndefined();
    const second = llm.requests[1]?.body as Json;
    const assistant = (second.messages as Json[]).findLast((m) => m.role === "assistant");
    expect(assistant.content[0]).toEqual({
      type: "thinking",
      thinking: THOUGHT,
      signature: `sig-${Buffer.from(THOUGHT).toString("base64")}`,
    });
    expect(assistant.content[1]).toMatchObject({ type: "tool_use", name: "read_file" });
    expect(envelope.usage.reasoning_tokens).toBeGreaterThan(0);
    expect(envelope.usage.reasoning_tokens).toBeLessThanOrEqual(envelope.usage.output_tokens);
  });

  test("without --effort no thinking is requested, and old thinking blocks are not sent", async () => {
    await using home = await tempDir();
    await writeFile(join(home.path, "port.txt"), "8123\n");
    await using llm = await startMockLlm();
    llm.push(
      { reasoning: THOUGHT, tool_calls: [{ name: "read_file", arguments: { file: "port.txt" } }] },
      { text: "8123" },
    );
    const r = await run(llm, home.path, llm.env("anthropic"), ["agent", "which port?", "--json"]);
    expect(r.code).toBe(0);
    expect((llm.requests[0]?.body as Json)?.thinking).toBeUndefined();
    expect(JSON.stringify(llm.requests[1]?.body)).not.toContain('"type":"thinking"');
  });

  test("stream-json: reasoning.delta events only with --show-reasoning; never in message.delta or result", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ reasoning: THOUGHT, text: "answer" }, { reasoning: THOUGHT, text: "answer" });
    const quiet = await run(llm, home.path, llm.env("anthropic"), [
      "ask",
      "q",
      "--effort",
      "low",
      "--output-format",
      "stream-json",
    ]);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).not.toContain("SECRET-REASONING");
    expect(events(quiet.stdout).map((e) => e.type)).not.toContain("reasoning.delta");
    const shown = await run(llm, home.path, llm.env("anthropic"), [
      "ask",
      "q",
      "--effort",
      "low",
      "--show-reasoning",
      "--output-format",
      "stream-json",
    ]);
    expect(shown.code).toBe(0);
    const list = events(shown.stdout);
    const reasoning = list
      .filter((e) => e.type === "reasoning.delta")
      .map((e) => e.text)
      .join("");
    expect(reasoning).toBe(THOUGHT);
    const text = list
      .filter((e) => e.type === "message.delta")
      .map((e) => e.text)
      .join("");
    expect(text).toBe("answer");
    expect(list.at(-1).result).toBe("answer");
    expect((llm.requests[1]?.body as Json)?.thinking).toEqual({
      type: "enabled",
      budget_tokens: 2048,
    });
  });
});

describe("effort on the other providers' wires", () => {
  test("OpenAI chat: reasoning_effort from --effort, max as xhigh on gpt-5.4 via CHATCLI_EFFORT, absent by default", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const env = llm.env("openai");
    await run(llm, home.path, env, ["ask", "q", "--effort", "low"]);
    await run(llm, home.path, { ...env, CHATCLI_EFFORT: "max" }, ["ask", "q"]);
    await run(llm, home.path, env, ["ask", "q"]);
    await run(llm, home.path, { ...env, CHATCLI_EFFORT: "high" }, [
      "ask",
      "q",
      "--effort",
      "medium",
    ]);
    const sent = llm.requests.map((q) => (q.body as Json).reasoning_effort);
    expect(sent).toEqual(["low", "xhigh", undefined, "medium"]);
  });

  test("an OpenAI-compatible host without reasoning_effort gets none; its reasoning_content never joins the answer", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ reasoning: THOUGHT, text: "kimi says hi" });
    const env = {
      LLM_PROVIDER: "MOONSHOT",
      MOONSHOT_API_KEY: "k",
      MOONSHOT_BASE_URL: `${llm.url}/v1`,
    };
    const r = await run(llm, home.path, env, ["ask", "q", "--effort", "high", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe("kimi says hi");
    expect(r.stdout).not.toContain("SECRET-REASONING");
    expect((llm.requests[0]?.body as Json)?.reasoning_effort).toBeUndefined();
  });

  test("Responses API: reasoning.effort, and summaries as reasoning.delta with --show-reasoning", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ reasoning: THOUGHT, text: "done" });
    const env = { ...llm.env("openai"), OPENAI_USE_RESPONSES: "true" };
    const r = await run(llm, home.path, env, [
      "ask",
      "q",
      "--effort",
      "medium",
      "--show-reasoning",
      "--output-format",
      "stream-json",
    ]);
    expect(r.code).toBe(0);
    expect((llm.requests[0]?.body as Json)?.reasoning).toEqual({
      effort: "medium",
      summary: "auto",
    });
    const list = events(r.stdout);
    expect(
      list
        .filter((e) => e.type === "reasoning.delta")
        .map((e) => e.text)
        .join(""),
    ).toBe(THOUGHT);
    expect(list.at(-1).result).toBe("done");
  });

  test("Gemini: thinkingConfig budget from --effort, includeThoughts only with --show-reasoning", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ reasoning: THOUGHT, text: "gem" }, { reasoning: THOUGHT, text: "gem" });
    const env = { LLM_PROVIDER: "GOOGLEAI", GOOGLEAI_API_KEY: "k", GOOGLEAI_BASE_URL: llm.url };
    const plain = await run(llm, home.path, env, ["ask", "q", "--effort", "low"]);
    expect(plain.stdout).toBe("gem\n");
    const shown = await run(llm, home.path, env, [
      "ask",
      "q",
      "--effort",
      "max",
      "--show-reasoning",
      "--jsonl",
    ]);
    expect(shown.code).toBe(0);
    expect((llm.requests[0]?.body as Json)?.generationConfig.thinkingConfig).toEqual({
      thinkingBudget: 1024,
    });
    expect((llm.requests[1]?.body as Json)?.generationConfig.thinkingConfig).toEqual({
      thinkingBudget: 24_576,
      includeThoughts: true,
    });
    expect(
      events(shown.stdout).some((e) => e.type === "reasoning.delta" && e.text.includes("SECRET")),
    ).toBe(true);
  });

  test("Bedrock: the same thinking budget as Anthropic", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ reasoning: THOUGHT, text: "aws" });
    const env = {
      LLM_PROVIDER: "BEDROCK",
      AWS_ACCESS_KEY_ID: "AKIAMOCK",
      AWS_SECRET_ACCESS_KEY: "s",
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: llm.url,
    };
    const r = await run(llm, home.path, env, ["ask", "q", "--effort", "medium", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe("aws");
    expect((llm.requests[0]?.body as Json)?.thinking).toEqual({
      type: "enabled",
      budget_tokens: 8192,
    });
  });

  test("a bad --effort is a usage error (exit 2); a bad CHATCLI_EFFORT a config error (exit 3)", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const bad = await run(llm, home.path, llm.env("openai"), ["ask", "q", "--effort", "huge"]);
    expect(bad.code).toBe(2);
    const env = await run(llm, home.path, { ...llm.env("openai"), CHATCLI_EFFORT: "turbo" }, [
      "ask",
      "q",
    ]);
    expect(env.code).toBe(3);
    expect(env.stderr).toContain("CHATCLI_EFFORT");
    expect(llm.requests).toHaveLength(0);
  });
});
