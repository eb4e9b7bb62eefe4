/**
 * Rate limits and failing providers as a CI job meets them (built binary, mock LLM): a retry-after the
 * job cannot afford ends the run at once with a message that says so; running out of retries says how
 * often it tried and what to change.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

function env(llm: MockLlm, home: string, extra: Record<string, string> = {}) {
  return baseEnv(home, { ...llm.env("openai"), CHATCLI_RETRY_BASE_MS: "1", ...extra });
}

describe("retries in a CI job", () => {
  test("429 with a retry-after beyond the 30 s budget: one request, exit 1 rate_limited, the reason on stderr", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ error: { status: 429, message: "quota", retry_after: 600 } }, { text: "too early" });
    const r = await runChatcli(["ask", "hi", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    expect(llm.requests).toHaveLength(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      exit_code: 1,
      result: null,
      terminal_reason: "rate_limited",
      error: { code: "rate_limited", retryable: true },
    });
    expect(out.error.message).toContain("asked to wait 600 s (retry-after)");
    expect(out.error.hint).toContain("CHATCLI_FALLBACK_PROVIDERS");
    expect(r.stderr).toContain("asked to wait 600 s (retry-after), beyond the 30 s retry budget");
    expect(r.stderr).toContain("hint: retry later");
  });

  test("a short retry-after is waited as sent, then the answer arrives", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push(
      { error: { status: 429, message: "slow", retry_after: 1 } },
      { text: "after the wait" },
    );
    const r = await runChatcli(["ask", "hi", "--jsonl"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.find((e) => e.type === "retry")).toMatchObject({ delay_ms: 1000, attempt: 1 });
    expect(lines.at(-1)).toMatchObject({ result: "after the wait", exit_code: 0 });
    expect(lines.at(-1).duration_ms).toBeGreaterThanOrEqual(1000);
  });

  test("CHATCLI_MAX_RETRIES runs out: exit 1, the message says how many attempts", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push(
      { error: { status: 500, message: "boom" } },
      { error: { status: 502, message: "bad gateway" } },
      { text: "not reached" },
    );
    const r = await runChatcli(["ask", "hi"], {
      env: env(llm, home.path, { CHATCLI_MAX_RETRIES: "1" }),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(llm.requests).toHaveLength(2);
    expect(r.stderr).toContain("502 bad gateway — gave up after 2 attempt(s) (max retries 1)");
    expect(r.stderr).toContain("raise --max-retries / CHATCLI_MAX_RETRIES");
  });

  test("401: no retry, exit 3, and result is null (nothing arrived), as agent reports it", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push(
      { error: { status: 401, message: "bad key" } },
      { error: { status: 401, message: "bad key" } },
    );
    const ask = await runChatcli(["ask", "hi", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    const agent = await runChatcli(["agent", "hi", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(llm.requests).toHaveLength(2);
    for (const r of [ask, agent]) {
      expect(r.code).toBe(3);
      expect(JSON.parse(r.stdout)).toMatchObject({
        result: null,
        terminal_reason: "auth_error",
        error: { code: "auth_error", hint: expect.stringContaining("OPENAI_API_KEY") },
      });
    }
  });

  test("an empty answer is exit 0 with warning empty_answer (ask and agent), so a script can tell", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "" }, { text: "" });
    const ask = await runChatcli(["ask", "hi", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    const agent = await runChatcli(["agent", "hi", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    for (const r of [ask, agent]) {
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.warnings.map((w: { code: string }) => w.code)).toEqual(["empty_answer"]);
      expect(r.stderr).toContain("warning: the model");
    }
    expect(JSON.parse(ask.stdout).result).toBe("");
    expect(JSON.parse(agent.stdout).result).toBeNull();
  });
});
