/**
 * A CI job's provider set-up, end to end against the built binary: the CHATCLI_FALLBACK_PROVIDERS
 * chain (ChatCLI's comma/semicolon list), and what the envelope says after a fallback answered.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

/** Primary: OpenAI (gpt-5.4) at the mock; ANTHROPIC_* credentials for a fallback, also the mock. */
function ciEnv(llm: MockLlm, home: string, fallbacks: string) {
  return baseEnv(home, {
    LLM_PROVIDER: "OPENAI",
    OPENAI_API_KEY: "sk-test-openai-key-0000000000000000",
    OPENAI_BASE_URL: `${llm.url}/v1`,
    ANTHROPIC_API_KEY: "sk-ant-test-key-000000000000000000",
    ANTHROPIC_BASE_URL: llm.url,
    CHATCLI_MAX_RETRIES: "0",
    CHATCLI_FALLBACK_PROVIDERS: fallbacks,
  });
}

interface Envelope {
  model: string;
  result: string;
  total_cost_usd: number | null;
  exit_code: number;
  warnings: Array<{ code: string; message: string }>;
}

function events(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("CHATCLI_FALLBACK_PROVIDERS in a CI job", () => {
  test("ask: the envelope names and prices the fallback model that answered, with a warning", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ error: { status: 500, message: "upstream down" } }, { text: "from haiku" });
    const r = await runChatcli(["ask", "why did it fail", "--json"], {
      env: ciEnv(llm, home.path, "anthropic/claude-haiku-4-5"),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const env = JSON.parse(r.stdout) as Envelope;
    expect(env.result).toBe("from haiku");
    expect(env.model).toBe("anthropic/claude-haiku-4-5");
    expect(llm.requests.map((q) => q.path)).toEqual(["/v1/chat/completions", "/v1/messages"]);
    expect(llm.requests[1]?.body).toMatchObject({ model: "claude-haiku-4-5" });
    // priced as haiku ($1/M in, $5/M out per the table), not as gpt-5.4
    const usage = (JSON.parse(r.stdout) as { usage: Record<string, number> }).usage;
    const haiku =
      ((usage["input_tokens"] ?? 0) - (usage["cache_creation_input_tokens"] ?? 0)) * 1 +
      (usage["cache_creation_input_tokens"] ?? 0) * 1.25 +
      (usage["output_tokens"] ?? 0) * 5;
    expect(env.total_cost_usd).toBeCloseTo(haiku / 1_000_000, 9);
    expect(env.warnings.map((w) => w.code)).toEqual(["provider_fallback"]);
    expect(env.warnings[0]?.message).toContain("falling back to anthropic/claude-haiku-4-5");
    expect(r.stderr).toContain("warning: HTTP 500");
  });

  test("semicolons separate entries as in ChatCLI; a typo or a provider without a key is a warning, not silence", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ error: { status: 503, message: "busy" } }, { text: "claude answered" });
    const r = await runChatcli(["ask", "hi", "--json"], {
      env: ciEnv(llm, home.path, "nope; XAI ;CLAUDEAI"),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const env = JSON.parse(r.stdout) as Envelope;
    expect(env.result).toBe("claude answered");
    expect(env.model).toBe("anthropic/claude-sonnet-4-6");
    expect(env.warnings.map((w) => w.code)).toEqual([
      "fallback_skipped",
      "fallback_skipped",
      "provider_fallback",
    ]);
    expect(env.warnings[0]?.message).toContain('"nope" is not a provider');
    expect(env.warnings[1]?.message).toContain("XAI_API_KEY");
  });

  test("agent --jsonl: retry events have the same shape as ask's, and the fallback is named", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push(
      { error: { status: 429, message: "slow down", retry_after: 0 } },
      { error: { status: 500, message: "still down" } },
      { text: "done by claude" },
    );
    const env = { ...ciEnv(llm, home.path, "CLAUDEAI"), CHATCLI_MAX_RETRIES: "1" };
    const r = await runChatcli(["agent", "summarise the repo", "--jsonl"], {
      env,
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const lines = events(r.stdout);
    const retries = lines.filter((e) => e["type"] === "retry");
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatchObject({
      attempt: 1,
      fallback: false,
      provider: "openai",
      error: { code: "rate_limit", status: 429 },
    });
    expect(retries[1]).toMatchObject({
      fallback: true,
      provider: "anthropic",
      error: { status: 500 },
    });
    const result = lines.at(-1) as unknown as Envelope;
    expect(result.result).toBe("done by claude");
    expect(result.model).toBe("anthropic/claude-sonnet-4-6");
    expect(result.warnings.map((w) => w.code)).toContain("provider_fallback");
  });

  test("agent: after a fallback answered one turn, the next turn asks the primary again with its own model", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push(
      { error: { status: 500, message: "down for a moment" } },
      { tool_calls: [{ name: "list_directory", arguments: {} }] },
      { text: "all good" },
    );
    const r = await runChatcli(["agent", "look around", "--json"], {
      env: ciEnv(llm, home.path, "anthropic/claude-haiku-4-5"),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(llm.requests.map((q) => [q.path, (q.body as { model: string }).model])).toEqual([
      ["/v1/chat/completions", "gpt-5.4"],
      ["/v1/messages", "claude-haiku-4-5"],
      ["/v1/chat/completions", "gpt-5.4"],
    ]);
    const env = JSON.parse(r.stdout) as Envelope;
    expect(env.result).toBe("all good");
    expect(env.model).toBe("openai/gpt-5.4");
    expect(env.total_cost_usd).not.toBeNull();
    expect(env.warnings.map((w) => w.code)).toEqual(["provider_fallback"]);
  });
});
