/**
 * The Go ChatCLI's OpenAI-compatible providers (GITHUB_MODELS, COPILOT, ZAI, MINIMAX, MOONSHOT) with
 * Go-style env against the mock, through the built binary and the real OpenAI SDK.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { providerSuite } from "./provider-suite.ts";

beforeAll(() => {
  requireBinary();
});

const CONTEXT =
  "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.";

providerSuite({
  name: "GITHUB_MODELS",
  label: "github_models/openai/gpt-4o",
  env: (llm) => ({
    LLM_PROVIDER: "GITHUB_MODELS",
    GITHUB_TOKEN: "ghs_mocktoken",
    GITHUB_MODELS_BASE_URL: `${llm.url}/inference`,
  }),
  path: /^\/inference\/chat\/completions$/,
  price: { input: 2.5, output: 10, cacheRead: 1.25 },
  contextError: CONTEXT,
  checkRequest(request) {
    expect(request.headers["authorization"]).toBe("Bearer ghs_mocktoken");
    expect(request.headers["x-github-api-version"]).toBe("2022-11-28");
    expect(request.body.model).toBe("openai/gpt-4o");
  },
});

providerSuite({
  name: "COPILOT",
  label: "copilot/gpt-4o",
  env: (llm) => ({
    LLM_PROVIDER: "COPILOT",
    GITHUB_COPILOT_TOKEN: "gho_copilot",
    COPILOT_BASE_URL: llm.url,
  }),
  path: /^\/chat\/completions$/,
  price: { input: 2.5, output: 10, cacheRead: 1.25 },
  contextError: CONTEXT,
  checkRequest(request) {
    expect(request.headers["authorization"]).toBe("Bearer gho_copilot");
    expect(request.headers["openai-intent"]).toBe("conversation-edits");
    expect(request.headers["editor-version"]).toMatch(/^chatcli\//);
    expect(request.body.model).toBe("gpt-4o");
  },
});

providerSuite({
  name: "ZAI",
  label: "zai/glm-5",
  env: (llm) => ({
    LLM_PROVIDER: "ZAI",
    ZAI_API_KEY: "zai-key",
    ZAI_BASE_URL: `${llm.url}/api/paas/v4`,
  }),
  path: /^\/api\/paas\/v4\/chat\/completions$/,
  price: { input: 1, output: 3.2, cacheRead: 0.2 },
  contextError: CONTEXT,
  checkRequest(request) {
    expect(request.body.model).toBe("glm-5");
  },
});

providerSuite({
  name: "MINIMAX",
  label: "minimax/MiniMax-M2.7",
  env: (llm) => ({
    LLM_PROVIDER: "MINIMAX",
    MINIMAX_API_KEY: "mm-key",
    MINIMAX_BASE_URL: `${llm.url}/v1`,
  }),
  path: /^\/v1\/chat\/completions$/,
  price: { input: 0.2, output: 1.1, cacheRead: 0.02, cacheWrite: 0.25 },
  contextError: CONTEXT,
});

providerSuite({
  name: "MOONSHOT",
  label: "moonshot/kimi-k2.6",
  env: (llm) => ({
    LLM_PROVIDER: "MOONSHOT",
    MOONSHOT_API_KEY: "ms-key",
    MOONSHOT_BASE_URL: `${llm.url}/v1`,
  }),
  path: /^\/v1\/chat\/completions$/,
  price: { input: 0.95, output: 4, cacheRead: 0.19 },
  contextError: CONTEXT,
});

describe("providers chatcli does not serve, and -m for the new ones", () => {
  for (const name of ["STACKSPOT", "DEVIN", "OPENAI_ASSISTANT"]) {
    test(`LLM_PROVIDER=${name}: exit 3 with one line naming it and what to use instead`, async () => {
      await using home = await tempDir();
      const r = await runChatcli(["ask", "hi"], {
        env: baseEnv(home.path, {
          LLM_PROVIDER: name,
          CLIENT_ID: "a",
          CLIENT_KEY: "b",
          OPENAI_API_KEY: "k",
        }),
        cwd: home.path,
      });
      expect(r.code).toBe(3);
      expect(r.stdout).toBe("");
      const lines = r.stderr.trim().split("\n");
      expect(lines[0]).toContain(name);
      expect(lines[0]).toContain("use LLM_PROVIDER=");
      expect(r.stderr).not.toContain("unknown");
    });
  }

  test("bootstrap show names the model of -m zai/glm-5.1", async () => {
    await using home = await tempDir();
    const r = await runChatcli(["bootstrap", "show", "--json", "-m", "zai/glm-5.1"], {
      env: baseEnv(home.path, { ZAI_API_KEY: "z" }),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"zai/glm-5.1"');
  });
});
