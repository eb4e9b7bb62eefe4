import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ProviderError } from "../../../lib/llm/errors.ts";
import type { LlmEvent, LlmRequest, Provider } from "../../../lib/llm/types.ts";
import { RunOutput } from "../../../lib/output/sinks.ts";
import { runHeadless } from "../../../lib/run/headless.ts";
import type { RunSpec } from "../../../lib/run/spec.ts";
import { tempDir, testCtx } from "../../support/ctx.ts";

/** A provider that answers 429 with a stated wait first, then the answer. */
class WaitThenAnswer implements Provider {
  readonly name = "google";
  readonly model = "gemini-2.5-flash";
  requests = 0;
  constructor(private readonly waitMs: number) {}
  async *stream(_request: LlmRequest): AsyncIterable<LlmEvent> {
    this.requests++;
    if (this.requests === 1)
      throw new ProviderError("rate_limit", "HTTP 429: quota for this minute", {
        status: 429,
        retryAfterMs: this.waitMs,
        retryAfterSource: "RetryInfo",
        provider: "google",
      });
    yield { type: "text", text: "after the wait" };
    yield { type: "done", stop: "end" };
  }
}

function askSpec(provider: Provider): RunSpec {
  return {
    command: "ask",
    mode: "ask",
    input: {
      prompt: "hi",
      noStdin: true,
      firstByteTimeoutMs: 0,
      maxBytes: 1 << 20,
      truncate: false,
    },
    model: "mock:script",
    session: { ephemeral: true },
    memory: "off",
    interactive: false,
    liveDeltas: true,
    provider,
  };
}

describe("the run's clock reaches the retry wrapper (Ctx.sleep, Ctx.now)", () => {
  test("a stated 27 s wait is waited on the virtual clock, and the retry event names its source", async () => {
    await using d = await tempDir();
    let virtual = Date.parse("2026-01-06T08:30:00Z");
    const slept: number[] = [];
    const ctx = {
      ...testCtx({
        cwd: d.path,
        env: { HOME: d.path, CHATCLI_HOME: join(d.path, ".chatcli") },
      }),
      now: () => new Date(virtual),
      sleep: async (ms: number) => {
        slept.push(ms);
        virtual += ms;
      },
    };
    const provider = new WaitThenAnswer(27_000);
    const output = new RunOutput(ctx, { format: "stream-json", command: "ask", streamText: true });
    const started = performance.now();
    const code = await runHeadless(ctx, askSpec(provider), output);
    expect(code).toBe(0);
    // no real 27 s passed: the wait was the virtual clock's
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(slept).toEqual([27_000]);
    expect(provider.requests).toBe(2);
    const lines = ctx
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.type === "retry")).toMatchObject({
      attempt: 1,
      delay_ms: 27_000,
      retry_after_source: "RetryInfo",
      fallback: false,
    });
    expect(lines.at(-1)).toMatchObject({ type: "result", result: "after the wait" });
  });

  test("a second stated wait past the budget gives up on the virtual clock too", async () => {
    await using d = await tempDir();
    let virtual = 0;
    const ctx = {
      ...testCtx({ cwd: d.path, env: { HOME: d.path, CHATCLI_HOME: join(d.path, ".chatcli") } }),
      now: () => new Date(virtual),
      sleep: async (ms: number) => {
        virtual += ms;
      },
    };
    const always: Provider = {
      name: "google",
      model: "gemini-2.5-flash",
      // biome-ignore lint/correctness/useYield: it only fails
      async *stream() {
        throw new ProviderError("rate_limit", "HTTP 429", {
          status: 429,
          retryAfterMs: 27_000,
          retryAfterSource: "RetryInfo",
          provider: "google",
        });
      },
    };
    const output = new RunOutput(ctx, { format: "json", command: "ask", streamText: true });
    const code = await runHeadless(ctx, askSpec(always), output);
    expect(code).toBe(1);
    const envelope = JSON.parse(ctx.out());
    expect(envelope.terminal_reason).toBe("rate_limited");
    expect(envelope.error.message).toContain("asked to wait 27 s (RetryInfo)");
    expect(virtual).toBe(27_000);
  });
});
