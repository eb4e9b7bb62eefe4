import { describe, expect, test } from "bun:test";
import { resolveModel } from "../../../lib/llm/models.ts";
import { emptyUsage } from "../../../lib/llm/types.ts";
import { UsageMeter } from "../../../lib/repl/live-meter.ts";

const env = { OPENAI_API_KEY: "sk-test", ANTHROPIC_API_KEY: "sk-ant-test" };
const million = { ...emptyUsage(), input_tokens: 1_000_000 };

describe("UsageMeter (/cost)", () => {
  test("each request is priced at the model it went to", () => {
    const meter = new UsageMeter();
    meter.request();
    meter.add(resolveModel("openai/gpt-4o", env), million);
    meter.request();
    meter.add(resolveModel("anthropic/claude-haiku-4-5", env), million);
    const summary = meter.summary();
    expect(summary.requests).toBe(2);
    expect(summary.usage.input_tokens).toBe(2_000_000);
    expect(summary.costUsd).toBeCloseTo(3.5, 6);
  });

  test("one request to a model without a price makes the total unknown", () => {
    const meter = new UsageMeter();
    meter.add(resolveModel("openai/gpt-4o", env), million);
    meter.add(resolveModel("openai/no-such-model", env), million);
    meter.add(resolveModel("openai/gpt-4o", env), million);
    expect(meter.summary().costUsd).toBeNull();
  });
});
