import { describe, expect, test } from "bun:test";
import { geminiErrorBody } from "../../../lib/llm/providers/gemini-errors.ts";
import {
  describeDelay,
  isQuotaCode,
  isQuotaMessage,
  parseDuration,
  retryDelayFromText,
} from "../../../lib/llm/retry-hints.ts";

describe("durations providers write", () => {
  test("protobuf Duration JSON and Go time.Duration text", () => {
    expect(parseDuration("27s")).toBe(27_000);
    expect(parseDuration("0.250s")).toBe(250);
    expect(parseDuration("27.034217353s")).toBe(27_034);
    expect(parseDuration("28ms")).toBe(28);
    expect(parseDuration("6m0s")).toBe(360_000);
    expect(parseDuration("10h17m5.723541104s")).toBe(37_025_724);
    for (const bad of ["", "27", "s", "27 s", "-1s", "1d", "abc"]) {
      expect(parseDuration(bad)).toBeUndefined();
    }
  });

  test("the wait an error message states", () => {
    expect(
      retryDelayFromText("… on tokens per min (TPM). Please try again in 1.898s. Visit …"),
    ).toBe(1898);
    expect(retryDelayFromText("Please try again in 20ms.")).toBe(20);
    expect(retryDelayFromText("model: gemini-2.5-flash\nPlease retry in 27.459184s.")).toBe(27_459);
    expect(retryDelayFromText("Please retry in 10h17m5.7s.")).toBe(37_025_700);
    expect(retryDelayFromText("Rate limit reached, retry later")).toBeUndefined();
  });

  test("describeDelay", () => {
    expect(describeDelay(27_000)).toBe("27 s");
    expect(describeDelay(125_000)).toBe("2 min 5 s");
    expect(describeDelay(35_047_000)).toBe("9 h 44 min");
  });
});

describe("quota, not rate limit", () => {
  test("codes and wordings", () => {
    for (const code of ["insufficient_quota", "enforced_spend_limit_reached", "billing_error"]) {
      expect(isQuotaCode(code)).toBe(true);
    }
    for (const code of [
      "rate_limit_exceeded",
      "rate_limit_error",
      "requests",
      "tokens",
      null,
      429,
    ]) {
      expect(isQuotaCode(code)).toBe(false);
    }
    expect(isQuotaMessage("Your credit balance is too low to access the Anthropic API.")).toBe(
      true,
    );
    expect(isQuotaMessage("You have reached your specified workspace API usage limits.")).toBe(
      true,
    );
    // Gemini's per-minute 429 uses quota words but is a rate limit: the provider decides, not the words
    expect(
      isQuotaMessage(
        "You exceeded your current quota, please check your plan and billing details.",
      ),
    ).toBe(false);
  });
});

describe("Gemini error bodies inside the SDK's ApiError message", () => {
  const body = { error: { code: 429, message: "slow", status: "RESOURCE_EXHAUSTED" } };
  test("plain, array-wrapped, and an error chunk's 'got status' prefix", () => {
    expect(geminiErrorBody(JSON.stringify(body))?.status).toBe("RESOURCE_EXHAUSTED");
    expect(geminiErrorBody(JSON.stringify([body], null, 2))?.message).toBe("slow");
    expect(geminiErrorBody(`got status: RESOURCE_EXHAUSTED. ${JSON.stringify(body)}`)?.code).toBe(
      429,
    );
    expect(geminiErrorBody("fetch failed")).toBeUndefined();
    expect(geminiErrorBody("{not json")).toBeUndefined();
  });
});
