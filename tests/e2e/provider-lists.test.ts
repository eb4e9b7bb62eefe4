/**
 * Every list of providers agrees: the top --help, ask/agent/coder --help, chatcli config, chatcli
 * models and the no-provider hint all come from lib/llm's one table (the README's table is checked
 * against it by tests/unit/packaging/readme-providers.test.ts).
 */
import { beforeAll, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: the documents are inspected freely
type Json = Record<string, any>;

async function run(args: string[]) {
  await using home = await tempDir();
  return await runChatcli(args, { env: baseEnv(home.path), cwd: home.path });
}

/** The providers `chatcli models --json` says chatcli serves (mock aside). */
async function served(): Promise<{ names: string[]; providers: Json[] }> {
  const r = await run(["models", "--json"]);
  expect(r.code).toBe(0);
  const providers = (JSON.parse(r.stdout) as Json)["providers"] as Json[];
  const names = providers
    .filter((p) => p["supported"] && p["provider"] !== "mock")
    .map((p) => p["llm_provider"] as string);
  return { names, providers };
}

function llmProviderList(text: string): string[] {
  const m = /LLM_PROVIDER=([A-Z_|]+)/.exec(text);
  return (m?.[1] ?? "").split("|").filter(Boolean);
}

test("top --help and ask/agent/coder --help list every provider chatcli serves, and its variables", async () => {
  const { names, providers } = await served();
  expect(names.length).toBeGreaterThanOrEqual(12);
  for (const args of [["--help"], ["ask", "--help"], ["agent", "--help"], ["coder", "--help"]]) {
    const r = await run(args);
    expect({ args, list: llmProviderList(r.stdout) }).toEqual({ args, list: names });
    for (const p of providers.filter((x) => x["supported"] && x["provider"] !== "mock")) {
      const key = String(p["configure_with"]).split(/[ (]/)[0] as string;
      expect({ args, key, shown: r.stdout.includes(key) }).toEqual({ args, key, shown: true });
    }
  }
  const root = await run(["--help"]);
  expect(root.stdout).toContain("mock:echo");
  expect(root.stdout).toContain("mock:script");
});

test("chatcli models lists the mock models and, for unconfigured providers, what would configure them", async () => {
  const { providers } = await served();
  const mock = providers.find((p) => p["provider"] === "mock") as Json;
  expect(mock).toMatchObject({ supported: true, configured: true, configure_with: null });
  expect((mock["models"] as Json[]).map((m) => m["id"])).toEqual(["mock:echo", "mock:script"]);
  const openai = providers.find((p) => p["provider"] === "openai") as Json;
  expect(openai).toMatchObject({ configured: false });
  expect(openai["configure_with"]).toContain("OPENAI_API_KEY");
  const text = await run(["models"]);
  expect(text.stdout).toContain(
    "openai (LLM_PROVIDER=OPENAI) — not configured: set OPENAI_API_KEY",
  );
  expect(text.stdout).toContain("zai (LLM_PROVIDER=ZAI) — not configured: set ZAI_API_KEY");
  expect(text.stdout).toMatch(/^ {2}mock:script\b/m);
});

test("chatcli config lists every provider's key variable, set or not", async () => {
  const { providers } = await served();
  const r = await run(["config", "--json"]);
  expect(r.code).toBe(0);
  const listed = ((JSON.parse(r.stdout) as Json)["variables"] as Json[]).map((v) => v["name"]);
  for (const p of providers.filter((x) => x["supported"] && x["provider"] !== "mock")) {
    if (p["provider"] === "bedrock") continue; // AWS credentials are the SDK chain's, not a variable
    const key = String(p["configure_with"]).split(/[ (=]/)[0] as string;
    expect({ key, listed: listed.includes(key) }).toEqual({ key, listed: true });
  }
});

test("the no-provider error lists every LLM_PROVIDER value and never sends the user to ./.env blindly", async () => {
  const { names } = await served();
  const r = await run(["ask", "hi"]);
  expect(r.code).toBe(3);
  expect(llmProviderList(r.stderr)).toEqual(names);
  expect(r.stderr).toContain("trusted workspace");
});
