import { expect, test } from "bun:test";
import { ProviderError, type ProviderErrorKind } from "../../../lib/llm/errors.ts";
import { type RetryNotice, withResilience } from "../../../lib/llm/retry.ts";
import type { LlmEvent, Provider } from "../../../lib/llm/types.ts";

/** A provider that fails with the given kinds, then answers. */
function flaky(
  name: string,
  failures: ProviderErrorKind[],
  answer = "ok",
): Provider & { calls: number } {
  const p = {
    name,
    model: `${name}-model`,
    calls: 0,
    async *stream(): AsyncIterable<LlmEvent> {
      const kind = failures[p.calls++];
      if (kind) throw new ProviderError(kind, `${kind}!`, { provider: name, status: 500 });
      yield { type: "text", text: answer };
      yield { type: "done", stop: "end" };
    },
  };
  return p;
}

async function collect(provider: Provider): Promise<string> {
  let text = "";
  for await (const e of provider.stream(
    { model: "m", system: [], messages: [] },
    new AbortController().signal,
  )) {
    if (e.type === "text") text += e.text;
  }
  return text;
}

const fast = { sleep: async () => {}, baseDelayMs: 1 };

test("retryable errors are retried, then succeed", async () => {
  const notices: RetryNotice[] = [];
  const p = flaky("a", ["rate_limit", "server"]);
  expect(await collect(withResilience([p], { ...fast, onRetry: (n) => notices.push(n) }))).toBe(
    "ok",
  );
  expect(p.calls).toBe(3);
  expect(notices.map((n) => n.attempt)).toEqual([1, 2]);
});

test("auth errors are never retried", async () => {
  const p = flaky("a", ["auth"]);
  await expect(collect(withResilience([p], fast))).rejects.toMatchObject({
    kind: "auth",
    exitCode: 3,
  });
  expect(p.calls).toBe(1);
});

test("after the retries run out the fallback chain answers", async () => {
  const a = flaky("a", ["server", "server", "server"]);
  const b = flaky("b", [], "from b");
  const notices: RetryNotice[] = [];
  const r = withResilience([a, b], { ...fast, maxRetries: 2, onRetry: (n) => notices.push(n) });
  expect(await collect(r)).toBe("from b");
  expect(a.calls).toBe(3);
  expect(notices.at(-1)).toMatchObject({ isFallback: true, provider: "b" });
});

test("the whole chain failing rethrows the last error (exit 1)", async () => {
  const r = withResilience([flaky("a", ["server", "server"]), flaky("b", ["network", "network"])], {
    ...fast,
    maxRetries: 1,
  });
  await expect(collect(r)).rejects.toMatchObject({ kind: "network", exitCode: 1 });
});

test("an error after output started is not replayed", async () => {
  let calls = 0;
  const p: Provider = {
    name: "p",
    model: "m",
    async *stream() {
      calls++;
      yield { type: "text", text: "partial" };
      throw new ProviderError("server", "boom", { provider: "p" });
    },
  };
  await expect(collect(withResilience([p], fast))).rejects.toMatchObject({ kind: "server" });
  expect(calls).toBe(1);
});

test("the time bound stops retrying even with retries left", async () => {
  let now = 0;
  const p = flaky("a", ["server", "server", "server", "server"]);
  const r = withResilience([p], {
    maxRetries: 10,
    maxTotalMs: 1000,
    baseDelayMs: 600,
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  });
  await expect(collect(r)).rejects.toMatchObject({ kind: "server" });
  expect(p.calls).toBeLessThanOrEqual(3);
});

test("a retry-after beyond the time budget gives up at once, saying why", async () => {
  let calls = 0;
  const p: Provider = {
    name: "p",
    model: "m",
    async *stream() {
      calls++;
      if (calls > 0)
        throw new ProviderError("rate_limit", "p: 429 slow", {
          provider: "p",
          status: 429,
          retryAfterMs: 100_000,
        });
      yield { type: "text", text: "never" };
    },
  };
  const slept: number[] = [];
  const r = withResilience([p], {
    maxTotalMs: 30_000,
    sleep: async (ms) => {
      slept.push(ms);
    },
  });
  await expect(collect(r)).rejects.toMatchObject({
    kind: "rate_limit",
    exitCode: 1,
    message: expect.stringContaining(
      "asked to wait 100 s (retry-after), beyond the 30 s retry budget",
    ),
    hint: expect.stringContaining("CHATCLI_FALLBACK_PROVIDERS"),
  });
  expect(calls).toBe(1);
  expect(slept).toEqual([]);
});

test("a retry-after within the budget is waited as sent (not capped)", async () => {
  const slept: number[] = [];
  let calls = 0;
  const p: Provider = {
    name: "p",
    model: "m",
    async *stream() {
      if (calls++ === 0)
        throw new ProviderError("rate_limit", "slow", { provider: "p", retryAfterMs: 20_000 });
      yield { type: "text", text: "ok" };
    },
  };
  const r = withResilience([p], {
    sleep: async (ms) => {
      slept.push(ms);
    },
  });
  expect(await collect(r)).toBe("ok");
  expect(slept).toEqual([20_000]);
});

test("running out of retries names the attempts in the error", async () => {
  const r = withResilience([flaky("a", ["server", "server", "server"])], {
    ...fast,
    maxRetries: 2,
  });
  await expect(collect(r)).rejects.toMatchObject({
    message: "server! — gave up after 3 attempt(s) (max retries 2)",
  });
});

test("answered names the provider that answered the latest request", async () => {
  const r = withResilience([flaky("a", ["server"]), flaky("b", [], "from b")], {
    ...fast,
    maxRetries: 0,
  });
  expect(r.answered.model).toBe("a-model");
  expect(await collect(r)).toBe("from b");
  expect({ name: r.answered.name, model: r.answered.model }).toEqual({
    name: "b",
    model: "b-model",
  });
  // requests keep naming the primary's model; the chain swaps it for each fallback itself
  expect({ name: r.name, model: r.model }).toEqual({ name: "a", model: "a-model" });
});

/** A virtual clock: sleeps advance it at once, so a 30 s budget runs in microseconds. */
function virtualClock() {
  const clock = { t: 0, slept: [] as number[] };
  return {
    clock,
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.slept.push(ms);
      clock.t += ms;
    },
  };
}

for (const [label, random] of [
  ["shortest jitter", () => 0],
  ["middle jitter", () => 0.5],
  ["longest jitter", () => 0.999],
] as const) {
  test(`defaults spend the ~30 s budget with exponential backoff (${label}), then give up`, async () => {
    const v = virtualClock();
    const p = flaky("a", Array(100).fill("server"));
    await expect(
      collect(withResilience([p], { sleep: v.sleep, now: v.now, random })),
    ).rejects.toMatchObject({ kind: "server", message: expect.stringContaining("gave up") });
    // waited most of the budget and never beyond it
    expect(v.clock.t).toBeGreaterThan(25_000);
    expect(v.clock.t).toBeLessThanOrEqual(30_000);
    // doubling from 0.5 s, capped at 8 s per wait (the last wait may be what is left of the budget)
    const waits = v.clock.slept.slice(0, -1);
    for (const [i, ms] of waits.entries()) {
      const cap = Math.min(8000, 500 * 2 ** i);
      expect(ms).toBeGreaterThanOrEqual(cap / 2);
      expect(ms).toBeLessThanOrEqual(cap);
    }
    expect(p.calls).toBe(v.clock.slept.length + 1);
    expect(p.calls).toBeGreaterThanOrEqual(6);
    expect(p.calls).toBeLessThanOrEqual(11);
  });
}

test("network, 429 and 529 are retried within the same budget; retry-after is waited as sent", async () => {
  const v = virtualClock();
  const p = {
    name: "a",
    model: "m",
    calls: 0,
    async *stream(): AsyncIterable<LlmEvent> {
      p.calls++;
      if (p.calls === 1) throw new ProviderError("network", "ECONNRESET", { provider: "a" });
      if (p.calls === 2)
        throw new ProviderError("rate_limit", "429", {
          provider: "a",
          status: 429,
          retryAfterMs: 7000,
        });
      if (p.calls === 3)
        throw new ProviderError("server", "529 overloaded", { provider: "a", status: 529 });
      yield { type: "text", text: "ok" };
      yield { type: "done", stop: "end" };
    },
  };
  expect(await collect(withResilience([p], { sleep: v.sleep, now: v.now, random: () => 0 }))).toBe(
    "ok",
  );
  expect(v.clock.slept).toEqual([250, 7000, 1000]);
});
