/** `chatcli models [--json]` through the built binary: configured by which variable, never its value. */
import { beforeAll, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: the document is inspected freely
type Json = Record<string, any>;

test("--json: every provider, which variable configures it (no value), default and configured model, models with windows and prices", async () => {
  await using home = await tempDir();
  const r = await runChatcli(["models", "--json"], {
    env: baseEnv(home.path, {
      GEMINI_API_KEY: "AIzaSy-secret-value-123",
      GOOGLEAI_MODEL: "gemini-2.5-pro",
      GITHUB_TOKEN: "ghs_secretvalue",
      AWS_PROFILE: "dev",
    }),
    cwd: home.path,
  });
  expect(r.code).toBe(0);
  expect(r.stdout).not.toContain("secret");
  const doc = JSON.parse(r.stdout) as Json;
  expect(doc["active"]).toBe("google/gemini-2.5-pro");
  const by = Object.fromEntries((doc["providers"] as Json[]).map((p) => [p["llm_provider"], p]));
  expect(Object.keys(by).sort()).toEqual([
    "BEDROCK",
    "CLAUDEAI",
    "COPILOT",
    "DEVIN",
    "GITHUB_MODELS",
    "GOOGLEAI",
    "MINIMAX",
    "MOCK",
    "MOONSHOT",
    "OLLAMA",
    "OPENAI",
    "OPENAI_ASSISTANT",
    "OPENROUTER",
    "STACKSPOT",
    "XAI",
    "ZAI",
  ]);
  expect(by["GOOGLEAI"]).toMatchObject({
    provider: "google",
    configured: true,
    configured_by: ["GEMINI_API_KEY"],
    default_model: "gemini-2.5-flash",
    model: "gemini-2.5-pro",
    model_from: "GOOGLEAI_MODEL",
    active: true,
  });
  expect(by["GITHUB_MODELS"]).toMatchObject({
    configured: true,
    configured_by: ["GITHUB_TOKEN"],
    active: false,
    default_model: "gpt-4o",
    model: "openai/gpt-4o",
  });
  const ghIds = (by["GITHUB_MODELS"]["models"] as Json[]).map((m) => m["id"]);
  expect(ghIds).toContain("openai/gpt-4o");
  expect(ghIds).not.toContain("gpt-4o");
  expect(by["BEDROCK"]).toMatchObject({ configured: true, configured_by: ["AWS_PROFILE"] });
  expect(by["CLAUDEAI"]).toMatchObject({
    configured: false,
    configured_by: [],
    model: "claude-sonnet-4-6",
    model_from: null,
  });
  expect(by["DEVIN"]).toMatchObject({ supported: false, configured: false, models: [] });
  expect(by["DEVIN"]["note"]).toContain("use LLM_PROVIDER=");
  const flash = (by["GOOGLEAI"]["models"] as Json[]).find((m) => m["id"] === "gemini-2.5-flash");
  expect(flash).toEqual({
    id: "gemini-2.5-flash",
    context_window: 1_000_000,
    price: { input: 0.3, output: 2.5, cache_read: 0.03, cache_write: 0.3 },
  });
  const kimi = (by["MOONSHOT"]["models"] as Json[]).find((m) => m["id"] === "kimi-k2.6");
  expect(kimi?.["context_window"]).toBe(262_144);
  expect((by["MINIMAX"]["models"] as Json[]).map((m) => m["id"])).toContain("MiniMax-M2.7");
  // an unpriced model says so (null), never 0
  expect((by["XAI"]["models"] as Json[])[0]?.["price"]).toBeNull();
});

test("text: a block per provider; values from ~/.chatcli/config.json env count, and are not printed", async () => {
  await using home = await tempDir();
  await mkdir(join(home.path, ".chatcli"), { recursive: true });
  await writeFile(
    join(home.path, ".chatcli", "config.json"),
    JSON.stringify({ env: { ZAI_API_KEY: "zai-very-secret" } }),
  );
  const r = await runChatcli(["models"], { env: baseEnv(home.path), cwd: home.path });
  expect(r.code).toBe(0);
  expect(r.stdout).not.toContain("very-secret");
  expect(r.stdout).toContain("zai (LLM_PROVIDER=ZAI) — configured by ZAI_API_KEY  [active]");
  expect(r.stdout).toContain("anthropic (LLM_PROVIDER=CLAUDEAI) — not configured");
  expect(r.stdout).toMatch(/glm-5 +202,752 +1\.00 +3\.20 +0\.20\n/);
  expect(r.stdout).toContain("active: zai/glm-5");
});

test("no provider configured: still lists them all, exit 0, active none", async () => {
  await using home = await tempDir();
  const r = await runChatcli(["models", "--output-format", "json"], {
    env: baseEnv(home.path),
    cwd: home.path,
  });
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as Json;
  expect(doc["active"]).toBeNull();
  const real = (doc["providers"] as Json[]).filter((p) => p["provider"] !== "mock");
  expect(real.every((p) => p["configured"] === false)).toBe(true);
});
