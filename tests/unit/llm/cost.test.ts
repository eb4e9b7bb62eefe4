import { describe, expect, test } from "bun:test";
import { costOf, normalizeModelId, PRICE_TABLE_VERSION, priceOf } from "../../../lib/llm/cost.ts";
import { emptyUsage, type Usage } from "../../../lib/llm/types.ts";

function usage(partial: Partial<Usage>): Usage {
  return { ...emptyUsage(), ...partial };
}

const M = 1_000_000;

describe("cost", () => {
  test("the table is versioned", () => {
    expect(PRICE_TABLE_VERSION).toBe("2026-12");
  });

  test("the default models are priced", () => {
    expect(priceOf({ provider: "openai", model: "gpt-5.4" })).not.toBeNull();
    expect(priceOf({ provider: "anthropic", model: "claude-sonnet-4-6" })).not.toBeNull();
    for (const model of [
      "gpt-5-mini",
      "gpt-5-nano",
      "gpt-4.1",
      "gpt-4o",
      "gpt-4o-mini",
      "o3",
      "o4-mini",
    ]) {
      expect(priceOf({ provider: "openai", model })).not.toBeNull();
    }
    for (const model of [
      "claude-opus-4-6",
      "claude-opus-4-1-20250805",
      "claude-haiku-4-5",
      "claude-sonnet-4-5-20250929",
    ]) {
      expect(priceOf({ provider: "anthropic", model })).not.toBeNull();
    }
  });

  test("input and output are priced per 1M tokens", () => {
    expect(
      costOf(
        { provider: "anthropic", model: "claude-sonnet-4-6" },
        usage({ input_tokens: M, output_tokens: M }),
      ),
    ).toBeCloseTo(18, 10);
    expect(
      costOf(
        { provider: "openai", model: "gpt-4o-mini" },
        usage({ input_tokens: M, output_tokens: M }),
      ),
    ).toBeCloseTo(0.75, 10);
  });

  test("cache reads and writes are priced; only uncached input pays the input price", () => {
    const u = usage({
      input_tokens: 1_000_000,
      cache_read_input_tokens: 800_000,
      cache_creation_input_tokens: 100_000,
    });
    // sonnet: 0.1M × $3 + 0.8M × $0.30 + 0.1M × $3.75
    expect(costOf({ provider: "anthropic", model: "claude-sonnet-4-6" }, u)).toBeCloseTo(
      0.3 + 0.24 + 0.375,
      10,
    );
    // gpt-4.1: cached reads at $0.50 instead of $2
    const cached = usage({ input_tokens: M, cache_read_input_tokens: M });
    expect(costOf({ provider: "openai", model: "gpt-4.1" }, cached)).toBeCloseTo(0.5, 10);
  });

  test("unknown hosted models are null, never 0; mock and ollama are free", () => {
    expect(
      costOf({ provider: "openai", model: "gpt-7-ultra" }, usage({ input_tokens: 10 })),
    ).toBeNull();
    expect(costOf({ provider: "xai", model: "grok-4-1" }, usage({ input_tokens: 10 }))).toBeNull();
    expect(costOf({ provider: "mock", model: "echo" }, usage({ input_tokens: 10 }))).toBe(0);
    expect(costOf({ provider: "ollama", model: "gpt-oss:20b" }, usage({ input_tokens: 10 }))).toBe(
      0,
    );
  });

  test("model ids are normalised: vendor prefixes, dates, dots in Claude versions, case", () => {
    expect(normalizeModelId("openai/gpt-5.2")).toBe("gpt-5.2");
    expect(normalizeModelId("anthropic/claude-sonnet-4.5")).toBe("claude-sonnet-4-5");
    expect(normalizeModelId("global.anthropic.claude-sonnet-4-6")).toBe("claude-sonnet-4-6");
    expect(normalizeModelId("GPT-4o-2024-08-06")).toBe("gpt-4o");
    expect(normalizeModelId("claude-3-5-haiku-latest")).toBe("claude-3-5-haiku");
    expect(priceOf({ provider: "openrouter", model: "openai/gpt-5.2" })).not.toBeNull();
  });

  test("a longer id is not priced as its prefix", () => {
    expect(priceOf({ provider: "openai", model: "gpt-5.4-pro" })).toBeNull();
  });
});
