import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../../lib/core/errors.ts";
import { contextWindow } from "../../../lib/llm/context-window.ts";
import { costOf, priceOf } from "../../../lib/llm/cost.ts";
import { modelLabel, resolveFallbacks, resolveModel } from "../../../lib/llm/models.ts";
import { responsesOnly } from "../../../lib/llm/provider-env.ts";
import { configuredBy, PROVIDER_TABLE, providerInfo } from "../../../lib/llm/provider-table.ts";
import { emptyUsage } from "../../../lib/llm/types.ts";

function thrown(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("did not throw");
}

describe("the Go ChatCLI's OpenAI-compatible providers", () => {
  const cases = [
    [
      "GITHUB_MODELS",
      { GITHUB_TOKEN: "ghs_x" },
      "github_models",
      "openai/gpt-4o",
      "https://models.github.ai/inference",
    ],
    [
      "COPILOT",
      { GITHUB_COPILOT_TOKEN: "gho_x" },
      "copilot",
      "gpt-4o",
      "https://api.githubcopilot.com",
    ],
    ["ZAI", { ZAI_API_KEY: "z" }, "zai", "glm-5", "https://api.z.ai/api/paas/v4"],
    ["MINIMAX", { MINIMAX_API_KEY: "m" }, "minimax", "MiniMax-M2.7", "https://api.minimax.io/v1"],
    ["MOONSHOT", { MOONSHOT_API_KEY: "k" }, "moonshot", "kimi-k2.6", "https://api.moonshot.ai/v1"],
  ] as const;
  for (const [name, keys, id, model, base] of cases) {
    test(`LLM_PROVIDER=${name}: default model, documented base URL, <NAME>_BASE_URL override, key`, () => {
      const ref = resolveModel(undefined, { LLM_PROVIDER: name, ...keys });
      expect(ref).toMatchObject({ provider: id, protocol: "openai", model, baseURL: base });
      expect(ref.apiKey).toBe(Object.values(keys)[0] as string);
      const moved = resolveModel(undefined, {
        LLM_PROVIDER: name,
        ...keys,
        [`${name}_BASE_URL`]: "http://127.0.0.1:9/v1/",
      });
      expect(moved.baseURL).toBe("http://127.0.0.1:9/v1");
      expect(() => resolveModel(undefined, { LLM_PROVIDER: name })).toThrow(ConfigError);
      // -m provider/model, and the model variable
      expect(resolveModel(`${id}/some-model`, keys).model).toMatch(/some-model$/);
      const modelVar = `${name}_MODEL`;
      expect(
        resolveModel(undefined, { LLM_PROVIDER: name, ...keys, [modelVar]: "m2" }).model,
      ).toMatch(/m2$/);
    });
  }

  test("GitHub Models: GITHUB_MODELS_TOKEN wins over GITHUB_TOKEN / GH_TOKEN; ids get their publisher", () => {
    const env = {
      LLM_PROVIDER: "GITHUB_MODELS",
      GITHUB_TOKEN: "a",
      GH_TOKEN: "b",
      GITHUB_MODELS_TOKEN: "c",
    };
    expect(resolveModel(undefined, env).apiKey).toBe("c");
    expect(resolveModel(undefined, { LLM_PROVIDER: "GITHUB_MODELS", GH_TOKEN: "b" }).apiKey).toBe(
      "b",
    );
    expect(resolveModel("github_models/meta/llama-4", env).model).toBe("meta/llama-4");
    expect(configuredBy(providerInfo("GITHUB_MODELS")!, { GH_TOKEN: "b" })).toEqual(["GH_TOKEN"]);
  });

  test("Copilot sends the editor headers the Go tool sends", () => {
    const ref = resolveModel(undefined, { LLM_PROVIDER: "COPILOT", GITHUB_COPILOT_TOKEN: "t" });
    expect(ref.headers).toMatchObject({
      "Openai-Intent": "conversation-edits",
      "X-Initiator": "user",
    });
    expect(ref.headers?.["Editor-Version"]).toMatch(/^chatcli\//);
  });

  test("an ambient GITHUB_TOKEN or AWS profile does not pick a provider by itself", () => {
    expect(() => resolveModel(undefined, { GITHUB_TOKEN: "x", AWS_PROFILE: "dev" })).toThrow(
      "no LLM provider configured",
    );
    expect(resolveModel(undefined, { GITHUB_TOKEN: "x", MOONSHOT_API_KEY: "k" }).provider).toBe(
      "moonshot",
    );
    expect(resolveModel(undefined, { GITHUB_MODELS_TOKEN: "x" }).provider).toBe("github_models");
  });
});

describe("GOOGLEAI and BEDROCK", () => {
  test("GOOGLEAI: GOOGLEAI_API_KEY, else GEMINI_API_KEY, else GOOGLE_API_KEY; -m gemini/…", () => {
    expect(
      resolveModel(undefined, { LLM_PROVIDER: "GOOGLEAI", GOOGLE_API_KEY: "g" }),
    ).toMatchObject({
      provider: "google",
      protocol: "google",
      model: "gemini-2.5-flash",
      apiKey: "g",
    });
    const env = {
      GEMINI_API_KEY: "gem",
      GOOGLE_API_KEY: "g",
      GOOGLEAI_BASE_URL: "http://127.0.0.1:9",
    };
    const ref = resolveModel("gemini/gemini-2.5-pro", env);
    expect(ref).toMatchObject({
      provider: "google",
      model: "gemini-2.5-pro",
      apiKey: "gem",
      baseURL: "http://127.0.0.1:9",
    });
    expect(modelLabel(ref)).toBe("google/gemini-2.5-pro");
    expect(resolveModel("gemini-3-pro-preview", env).provider).toBe("google");
    expect(
      resolveModel(undefined, {
        LLM_PROVIDER: "GOOGLEAI",
        GOOGLEAI_MAX_TOKENS: "900",
        GEMINI_API_KEY: "x",
      }).maxTokens,
    ).toBe(900);
  });

  test("BEDROCK: region, cross-region model ids, static keys or the SDK chain, endpoint override", () => {
    const ref = resolveModel(undefined, {
      LLM_PROVIDER: "BEDROCK",
      AWS_ACCESS_KEY_ID: "AKIAEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "secret",
      AWS_SESSION_TOKEN: "tok",
      AWS_REGION: "eu-west-1",
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: "http://127.0.0.1:9/",
    });
    expect(ref).toMatchObject({
      provider: "bedrock",
      protocol: "bedrock",
      model: "global.anthropic.claude-sonnet-4-6",
      region: "eu-west-1",
      baseURL: "http://127.0.0.1:9",
      aws: { accessKeyId: "AKIAEXAMPLE", secretAccessKey: "secret", sessionToken: "tok" },
    });
    const profile = resolveModel("bedrock/us.anthropic.claude-opus-4-6-v1", {
      AWS_PROFILE: "dev",
      BEDROCK_REGION: "us-west-2",
    });
    expect(profile).toMatchObject({
      region: "us-west-2",
      model: "us.anthropic.claude-opus-4-6-v1",
    });
    // a profile (from .env or config.json as much as the process env) goes to the SDK's chain by name
    expect(profile.aws).toEqual({ accessKeyId: "", secretAccessKey: "", profile: "dev" });
    expect(thrown(() => resolveModel(undefined, { LLM_PROVIDER: "BEDROCK" })).message).toBe(
      "no AWS credentials for bedrock",
    );
    // priced and windowed as the Claude model behind it
    expect(priceOf({ provider: "bedrock", model: "global.anthropic.claude-sonnet-4-6" })).toEqual(
      priceOf({ provider: "anthropic", model: "claude-sonnet-4-6" }),
    );
    expect(contextWindow({ provider: "bedrock", model: "us.anthropic.claude-opus-4-6-v1:0" })).toBe(
      200_000,
    );
  });
});

describe("providers chatcli cannot serve", () => {
  for (const name of ["STACKSPOT", "DEVIN", "OPENAI_ASSISTANT"]) {
    test(`${name}: a config error (exit 3) on one line naming it and what to use instead`, () => {
      const error = thrown(() =>
        resolveModel(undefined, { LLM_PROVIDER: name, CLIENT_ID: "a", CLIENT_KEY: "b" }),
      );
      expect(error.exitCode).toBe(3);
      expect(error.message).toStartWith(`LLM provider ${name}: `);
      expect(error.message).toMatch(/use LLM_PROVIDER=/);
      expect(error.message).not.toContain("\n");
      expect(error.message).not.toContain("unknown");
    });
  }
});

test("OPENAI_USE_RESPONSES=true, or a model only the Responses API serves, selects it", () => {
  expect(
    resolveModel(undefined, { OPENAI_API_KEY: "k", OPENAI_USE_RESPONSES: "true" }).protocol,
  ).toBe("responses");
  expect(resolveModel("openai/gpt-5.1-codex", { OPENAI_API_KEY: "k" }).protocol).toBe("responses");
  expect(resolveModel("openai/gpt-5.4", { OPENAI_API_KEY: "k" }).protocol).toBe("openai");
  for (const m of ["gpt-5-codex", "codex-mini-latest", "o3-pro", "gpt-5.4-pro", "o3-deep-research"])
    expect(responsesOnly(m)).toBe(true);
  for (const m of ["gpt-5.4", "gpt-4o", "o3", "o4-mini"]) expect(responsesOnly(m)).toBe(false);
});

test("the fallback chain and every served provider in the table", () => {
  const env = { GEMINI_API_KEY: "g", ZAI_API_KEY: "z", AWS_PROFILE: "p", MOONSHOT_API_KEY: "m" };
  const skipped: string[] = [];
  const refs = resolveFallbacks(
    { ...env, CHATCLI_FALLBACK_PROVIDERS: "GOOGLEAI; zai/glm-5.1, BEDROCK, MOONSHOT, MINIMAX" },
    undefined,
    skipped,
  );
  expect(refs.map(modelLabel)).toEqual([
    "google/gemini-2.5-flash",
    "zai/glm-5.1",
    "bedrock/global.anthropic.claude-sonnet-4-6",
    "moonshot/kimi-k2.6",
  ]);
  expect(skipped).toHaveLength(1);
  expect(skipped[0]).toContain("MINIMAX_API_KEY");
  expect(PROVIDER_TABLE.map((p) => p.envName).sort()).toEqual([
    "BEDROCK",
    "CLAUDEAI",
    "COPILOT",
    "DEVIN",
    "GITHUB_MODELS",
    "GOOGLEAI",
    "MINIMAX",
    "MOONSHOT",
    "OLLAMA",
    "OPENAI",
    "OPENAI_ASSISTANT",
    "OPENROUTER",
    "STACKSPOT",
    "XAI",
    "ZAI",
  ]);
});

test("prices and windows of the new providers' default models", () => {
  const M = 1_000_000;
  const u = { ...emptyUsage(), input_tokens: M, cache_read_input_tokens: M / 2, output_tokens: M };
  // gemini-2.5-flash: 0.5M × $0.30 + 0.5M × $0.03 + 1M × $2.50
  expect(costOf({ provider: "google", model: "gemini-2.5-flash" }, u)).toBeCloseTo(
    0.15 + 0.015 + 2.5,
    9,
  );
  expect(priceOf({ provider: "google", model: "gemini-2.5-flash-preview-09-2025" })).toEqual(
    priceOf({ provider: "google", model: "gemini-2.5-flash" }),
  );
  for (const [provider, model, window] of [
    ["zai", "glm-5", 202_752],
    ["minimax", "MiniMax-M2.7", 204_800],
    ["moonshot", "kimi-k2.6", 262_144],
    ["google", "gemini-2.5-flash", 1_000_000],
    ["github_models", "openai/gpt-4o", 128_000],
    ["copilot", "gpt-4o", 128_000],
  ] as const) {
    expect(priceOf({ provider, model })).not.toBeNull();
    expect(contextWindow({ provider, model })).toBe(window);
  }
});
