/**
 * Retries spend the documented budget (exponential backoff with jitter, ~30 s by default) for 429,
 * 5xx, 529 and network failures, and stay bounded. Run at 1/50 scale (CHATCLI_RETRY_BASE_MS=10,
 * CHATCLI_RETRY_MAX_MS=600: the same schedule as 500 ms / 30 s), so no test sleeps for long; the
 * full-scale schedule runs on a virtual clock in tests/unit/llm/retry.test.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { jsonError } from "../support/wire-fixtures.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: events are arbitrary JSON
type Json = any;

const SCALED = { CHATCLI_RETRY_BASE_MS: "10", CHATCLI_RETRY_MAX_MS: "600" };

function retries(stdout: string): Json[] {
  return stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === "retry");
}

function expectBackoff(events: Json[]): void {
  const delays = events.map((e) => e.delay_ms as number);
  // doubling from the base with jitter in [cap/2, cap], capped at 16 × base; the last may be the rest
  for (const [i, ms] of delays.slice(0, -1).entries()) {
    const cap = Math.min(160, 10 * 2 ** i);
    expect(ms).toBeGreaterThanOrEqual(Math.floor(cap / 2));
    expect(ms).toBeLessThanOrEqual(cap);
  }
  const total = delays.reduce((a, b) => a + b, 0);
  // most of the budget went to waiting (the rest to the requests themselves), never more than all of it
  expect(total).toBeGreaterThan(300);
  expect(total).toBeLessThanOrEqual(600);
}

describe("the retry budget", () => {
  for (const [label, status, message] of [
    ["503", 503, "Service Unavailable"],
    ["529 overloaded", 529, "Overloaded"],
    ["429 without retry-after", 429, "Rate limit reached for requests"],
  ] as const) {
    test(`${label}: retried until the budget is spent, then exit 1 saying how long it tried`, async () => {
      await using home = await tempDir();
      await using llm: MockLlm = await startMockLlm();
      const api = status === 529 ? "anthropic" : "openai";
      for (let i = 0; i < 40; i++) llm.push({ error: { status, message } });
      const r = await runChatcli(["ask", "hi", "--jsonl"], {
        env: baseEnv(home.path, { ...llm.env(api), ...SCALED }),
        cwd: home.path,
      });
      expect(r.code).toBe(1);
      const events = retries(r.stdout);
      expect(events.length).toBeGreaterThanOrEqual(4);
      expect(events.length).toBeLessThanOrEqual(10);
      expect(llm.requests).toHaveLength(events.length + 1);
      expectBackoff(events);
      const result = JSON.parse(r.stdout.trim().split("\n").at(-1) as string);
      expect(result.error.message).toMatch(
        /gave up after \d+ attempt\(s\) in 0\.\d s \(retry budget 0\.6 s\)/,
      );
    });
  }

  test("network failures (connection refused) use the same budget", async () => {
    await using home = await tempDir();
    const llm = await startMockLlm();
    const env = llm.env("openai");
    await llm.close(); // nothing listens there any more
    const r = await runChatcli(["ask", "hi", "--jsonl"], {
      env: baseEnv(home.path, { ...env, ...SCALED }),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    const events = retries(r.stdout);
    expect(events.length).toBeGreaterThanOrEqual(4);
    expect(events.every((e) => e.error.code === "network")).toBe(true);
    expectBackoff(events);
  });

  test("retry-after is honoured as sent inside the budget, and --max-retries still bounds the count", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      jsonError(
        429,
        { error: { message: "slow down", type: "requests", code: "rate_limit_exceeded" } },
        { "retry-after-ms": "250" },
      ),
    );
    for (let i = 0; i < 5; i++) llm.push({ error: { status: 500, message: "boom" } });
    const r = await runChatcli(["ask", "hi", "--jsonl", "--max-retries", "2"], {
      env: baseEnv(home.path, { ...llm.env("openai"), ...SCALED }),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    const events = retries(r.stdout);
    expect(events[0]).toMatchObject({ delay_ms: 250, error: { status: 429 } });
    expect(llm.requests).toHaveLength(3);
  });
});
