import { expect, test } from "bun:test";
import { modelLabel, resolveFallbacks, resolveModel } from "../../../lib/llm/models.ts";

test("-m provider/model wins and keeps slashes of the model id", () => {
  const ref = resolveModel("openrouter/openai/gpt-5.2", { OPENROUTER_API_KEY: "k" });
  expect(ref).toMatchObject({
    provider: "openrouter",
    model: "openai/gpt-5.2",
    protocol: "openai",
  });
  expect(modelLabel(ref)).toBe("openrouter/openai/gpt-5.2");
});

test("ChatCLI env: LLM_PROVIDER=CLAUDEAI with ANTHROPIC_MODEL", () => {
  const ref = resolveModel(undefined, {
    LLM_PROVIDER: "CLAUDEAI",
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_MODEL: "claude-haiku-4-5",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9/",
  });
  expect(ref).toMatchObject({
    provider: "anthropic",
    model: "claude-haiku-4-5",
    baseURL: "http://127.0.0.1:9/",
  });
});

test("OPENAI_API_URL (full chat-completions URL) and Ollama's base URL", () => {
  expect(
    resolveModel(undefined, {
      OPENAI_API_KEY: "k",
      OPENAI_API_URL: "http://x/v1/chat/completions",
    }),
  ).toMatchObject({
    provider: "openai",
    chatUrl: "http://x/v1/chat/completions",
    model: "gpt-5.4",
  });
  expect(
    resolveModel("ollama/llama3", { OLLAMA_BASE_URL: "http://127.0.0.1:11434" }),
  ).toMatchObject({
    baseURL: "http://127.0.0.1:11434/v1",
    model: "llama3",
  });
});

test("no provider, missing key, unknown provider: config errors that name the fix", () => {
  expect(() => resolveModel(undefined, {})).toThrow(/no LLM provider configured/);
  try {
    resolveModel("anthropic/claude-sonnet-4-6", {});
  } catch (error) {
    expect((error as { hint: string }).hint).toContain("ANTHROPIC_API_KEY");
    expect((error as { exitCode: number }).exitCode).toBe(3);
  }
  expect(() => resolveModel(undefined, { LLM_PROVIDER: "NOPE" })).toThrow(/unknown LLM_PROVIDER/);
});

test("no LLM_PROVIDER: OpenAI when its key is set, else the first available alphabetically", () => {
  expect(resolveModel(undefined, { OPENAI_API_KEY: "a", ANTHROPIC_API_KEY: "b" }).provider).toBe(
    "openai",
  );
  expect(resolveModel(undefined, { XAI_API_KEY: "a", ANTHROPIC_API_KEY: "b" }).provider).toBe(
    "anthropic",
  );
});

test("mock models and the fallback chain skip providers without credentials", () => {
  expect(resolveModel("mock:script", {})).toMatchObject({ protocol: "mock", model: "script" });
  const chain = resolveFallbacks({
    CHATCLI_FALLBACK_PROVIDERS: "CLAUDEAI, openai/gpt-4.1, XAI",
    ANTHROPIC_API_KEY: "k",
    OPENAI_API_KEY: "k",
  });
  expect(chain.map(modelLabel)).toEqual(["anthropic/claude-sonnet-4-6", "openai/gpt-4.1"]);
});
