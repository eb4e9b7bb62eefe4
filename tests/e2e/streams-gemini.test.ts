/**
 * Gemini 429s as the API sends them (tests/support/wire-gemini.ts): google.rpc.RetryInfo's retryDelay
 * is waited as sent within the run's retry budget (on a virtual clock for the real 27 s, through the
 * real SDK and the mock server), a delay beyond the budget fails at once naming it, and a per-day or
 * zero quota (QuotaFailure) is a quota error, never retried. Binary tests use sub-second delays.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { ModelRef } from "../../lib/llm/models.ts";
import { createProvider } from "../../lib/llm/registry.ts";
import { type RetryNotice, withResilience } from "../../lib/llm/retry.ts";
import type { LlmEvent } from "../../lib/llm/types.ts";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import {
  geminiAnswer,
  geminiErrorChunk,
  geminiQuota429,
  geminiQuota429Array,
} from "../support/wire-gemini.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: events are inspected freely
type Json = any;

function run(llm: MockLlm, home: string, args: string[], extra: Record<string, string> = {}) {
  return runChatcli(args, {
    env: baseEnv(home, {
      LLM_PROVIDER: "GOOGLEAI",
      GOOGLEAI_API_KEY: "AIza-mock-key",
      GOOGLEAI_BASE_URL: llm.url,
      CHATCLI_MEMORY_ENABLED: "false",
      ...extra,
    }),
    cwd: home,
  });
}

function lines(stdout: string): Json[] {
  return stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/** The real Gemini provider (real SDK, real HTTP to the mock) in a retry chain on a virtual clock. */
async function virtualChain(llm: MockLlm, maxTotalMs = 30_000) {
  const ref: ModelRef = {
    provider: "google",
    protocol: "google",
    model: "gemini-2.5-flash",
    apiKey: "AIza-mock-key",
    baseURL: llm.url,
  };
  const provider = await createProvider(ref, { fetch });
  const clock = { now: 0, slept: [] as number[], notices: [] as RetryNotice[] };
  const chain = withResilience([provider], {
    maxTotalMs,
    now: () => clock.now,
    sleep: async (ms) => {
      clock.slept.push(ms);
      clock.now += ms;
    },
    onRetry: (n) => clock.notices.push(n),
  });
  const ask = async () => {
    let text = "";
    const events: LlmEvent[] = [];
    for await (const e of chain.stream(
      { model: ref.model, system: [], messages: [{ role: "user", content: "hi" }] },
      new AbortController().signal,
    )) {
      events.push(e);
      if (e.type === "text") text += e.text;
    }
    return { text, events };
  };
  return { clock, ask };
}

describe("Gemini RetryInfo on a virtual clock (the real 27 s, no real waiting)", () => {
  test('retryDelay "27s" inside the 30 s budget: waited exactly 27 s, then the answer', async () => {
    await using llm = await startMockLlm();
    llm.pushRaw(
      geminiQuota429({ retryDelay: "27s", retryIn: "27.459184s" }),
      geminiAnswer(["after ", "the wait"]),
    );
    const { clock, ask } = await virtualChain(llm);
    const { text } = await ask();
    expect(text).toBe("after the wait");
    expect(clock.slept).toEqual([27_000]);
    expect(clock.notices[0]).toMatchObject({ attempt: 1, delayMs: 27_000 });
    expect(clock.notices[0]?.error.retryAfterSource).toBe("RetryInfo");
    expect(llm.requests).toHaveLength(2);
  });

  test("a second 27 s wait would overshoot the budget: it gives up then, naming the delay", async () => {
    await using llm = await startMockLlm();
    llm.pushRaw(geminiQuota429({ retryDelay: "27s" }), geminiQuota429({ retryDelay: "27s" }));
    const { clock, ask } = await virtualChain(llm);
    const error = await ask().then(
      () => undefined,
      (e: unknown) => e as Json,
    );
    expect(clock.slept).toEqual([27_000]);
    expect(error?.kind).toBe("rate_limit");
    expect(error?.reason).toBe("rate_limited");
    expect(error?.message).toContain(
      "asked to wait 27 s (RetryInfo), beyond the 30 s retry budget",
    );
    expect(llm.requests).toHaveLength(2);
  });

  test("without RetryInfo, the message's own 'Please retry in 12.5s.' is the wait", async () => {
    await using llm = await startMockLlm();
    llm.pushRaw(geminiQuota429({ retryIn: "12.5s" }), geminiAnswer(["ok"]));
    const { clock, ask } = await virtualChain(llm);
    expect((await ask()).text).toBe("ok");
    expect(clock.slept).toEqual([12_500]);
    expect(clock.notices[0]?.error.retryAfterSource).toBe("the error message");
  });
});

describe("Gemini 429 through the binary", () => {
  test("a RetryInfo delay beyond the retry budget fails at once: one request, exit 1 rate_limited, the delay named", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(geminiQuota429({ retryDelay: "27s", retryIn: "27.459184s" }));
    llm.push({ text: "never asked" });
    const r = await run(llm, home.path, ["ask", "hi", "--json"], { CHATCLI_RETRY_MAX_MS: "20000" });
    expect(r.code).toBe(1);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.terminal_reason).toBe("rate_limited");
    expect(envelope.error.message).toContain(
      "the provider asked to wait 27 s (RetryInfo), beyond the 20 s retry budget",
    );
    // which quota it was, in one line
    expect(envelope.error.message).toContain(
      "google: 429 RESOURCE_EXHAUSTED: quota GenerateRequestsPerMinutePerProjectPerModel-FreeTier (generativelanguage.googleapis.com/generate_content_free_tier_requests, limit 10, model gemini-2.5-flash) exceeded",
    );
    expect(r.stderr.split("\n")[0]).toContain("asked to wait 27 s (RetryInfo)");
    expect(llm.requests).toHaveLength(1);
  });

  for (const [label, reply] of [
    ["an HTTP 429 body", geminiQuota429({ retryDelay: "0.040s" })],
    ["an array-wrapped 429 body", geminiQuota429Array({ retryDelay: "0.040s" })],
    ["an error chunk inside a 200 stream", geminiErrorChunk({ retryDelay: "0.040s" })],
  ] as const) {
    test(`${label}: retried after its RetryInfo delay (not the backoff), then the answer`, async () => {
      await using home = await tempDir();
      await using llm = await startMockLlm();
      llm.pushRaw(reply, geminiAnswer(["fine ", "now"]));
      const r = await run(llm, home.path, ["ask", "hi", "--jsonl"], {
        CHATCLI_RETRY_BASE_MS: "5000",
      });
      expect(r.code).toBe(0);
      const events = lines(r.stdout);
      const retries = events.filter((e) => e.type === "retry");
      expect(retries.map((e) => e.delay_ms)).toEqual([40]);
      expect(retries[0].error).toMatchObject({ code: "rate_limit", status: 429 });
      expect(events.at(-1)).toMatchObject({ type: "result", result: "fine now" });
      expect(llm.requests).toHaveLength(2);
    });
  }

  for (const [label, options] of [
    [
      "a per-day quota",
      {
        quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
        limit: 20,
        retryDelay: "35047s",
      },
    ],
    ["a quota of 0 for the tier", { limit: 0, model: "gemini-3-pro", retryDelay: "37025s" }],
  ] as const) {
    test(`${label} is a quota error: not retried, exit 1 rate_limited, the quota named`, async () => {
      await using home = await tempDir();
      await using llm = await startMockLlm();
      llm.pushRaw(geminiQuota429(options));
      llm.push({ text: "never asked" });
      const r = await run(llm, home.path, ["ask", "hi", "--json"]);
      expect(r.code).toBe(1);
      const envelope = JSON.parse(r.stdout);
      expect(envelope.terminal_reason).toBe("rate_limited");
      expect(envelope.error.retryable).toBe(false);
      expect(envelope.error.message).toContain(
        `quota ${"quotaId" in options ? options.quotaId : "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}`,
      );
      expect(envelope.error.message).toContain(`limit ${options.limit}`);
      expect(envelope.error.message).toMatch(/Gemini says retry in \d+ h( \d+ min)?$/);
      expect(envelope.error.message).not.toContain("gave up");
      expect(envelope.error.hint).toContain("quota");
      expect(llm.requests).toHaveLength(1);
    });
  }
});
