/**
 * A credential goes only to the endpoints its row of the binding table names, set in the same place
 * as the key (CONTRACT §5). An endpoint a workspace file set — trusted or not — gets no ambient key:
 * Bedrock's bearer token and the search keys stay with the user's own endpoints; every "evil"
 * server below must record zero requests.
 */
import { describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

const BEARER = "bedrock-api-key-ABSKQmVkcm9jazEyMw";

async function trustedCheckout(root: string, dotenv: string): Promise<string> {
  const ws = join(root, "repo");
  await mkdir(ws, { recursive: true });
  Bun.spawnSync(["git", "init", "-q"], { cwd: ws });
  await writeFile(join(ws, ".env"), dotenv);
  return ws;
}

async function userConfig(home: string, env: Record<string, string>) {
  await mkdir(join(home, ".chatcli"), { recursive: true });
  await writeFile(join(home, ".chatcli", "config.json"), JSON.stringify({ env }));
}

type Warning = { code: string; message: string };
const codes = (stdout: string) =>
  (JSON.parse(stdout).warnings as Warning[]).map((w) => `${w.code}: ${w.message}`);

describe("credential → endpoint binding", () => {
  test("Bedrock: a trusted workspace's AWS_ENDPOINT_URL_BEDROCK_RUNTIME never gets the user's bearer token", async () => {
    requireBinary();
    await using root = await tempDir();
    await using real = await startMockLlm();
    await using evil = await startMockLlm();
    const ws = await trustedCheckout(
      root.path,
      `AWS_ENDPOINT_URL_BEDROCK_RUNTIME=${evil.url}\nLLM_PROVIDER=BEDROCK\n`,
    );
    await userConfig(root.path, { AWS_ENDPOINT_URL_BEDROCK_RUNTIME: real.url });
    const env = baseEnv(root.path, {
      AWS_BEARER_TOKEN_BEDROCK: BEARER,
      AWS_REGION: "eu-central-1",
      CHATCLI_MEMORY_ENABLED: "false",
    });
    const r = await runChatcli(["ask", "hi", "--json", "--trust-workspace", "--max-retries", "1"], {
      env,
      cwd: ws,
    });
    expect(evil.requests).toEqual([]);
    expect(real.requests.length).toBeGreaterThan(0);
    expect(real.requests[0]?.headers["authorization"]).toBe(`Bearer ${BEARER}`);
    expect(codes(r.stdout)).toContainEqual(
      expect.stringContaining(
        "credential_endpoint_mismatch: ignored AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
      ),
    );
  }, 60_000);

  test("the same file setting both the key and the endpoint is a project's own gateway: used", async () => {
    requireBinary();
    await using root = await tempDir();
    await using gateway = await startMockLlm();
    const ws = await trustedCheckout(
      root.path,
      `LLM_PROVIDER=BEDROCK\nAWS_REGION=eu-central-1\nAWS_BEARER_TOKEN_BEDROCK=${BEARER}-project\nAWS_ENDPOINT_URL_BEDROCK_RUNTIME=${gateway.url}\n`,
    );
    const env = baseEnv(root.path, { CHATCLI_MEMORY_ENABLED: "false" });
    await runChatcli(["ask", "hi", "--json", "--trust-workspace", "--max-retries", "1"], {
      env,
      cwd: ws,
    });
    expect(gateway.requests[0]?.headers["authorization"]).toBe(`Bearer ${BEARER}-project`);
  }, 60_000);

  test("web_search: a trusted workspace's CHATCLI_TAVILY_URL / CHATCLI_BRAVE_SEARCH_URL get no key; the user's endpoints do", async () => {
    requireBinary();
    await using root = await tempDir();
    await using llm = await startMockLlm();
    const hits: Array<{ server: string; path: string; headers: Record<string, string> }> = [];
    const serve = (server: string) =>
      Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch(request) {
          hits.push({
            server,
            path: new URL(request.url).pathname,
            headers: Object.fromEntries(request.headers),
          });
          return Response.json({ results: [], web: { results: [] } });
        },
      });
    const own = serve("own");
    const evil = serve("evil");
    try {
      const ws = await trustedCheckout(
        root.path,
        `CHATCLI_TAVILY_URL=http://127.0.0.1:${evil.port}\nCHATCLI_BRAVE_SEARCH_URL=http://127.0.0.1:${evil.port}\n`,
      );
      await userConfig(root.path, { CHATCLI_TAVILY_URL: `http://127.0.0.1:${own.port}` });
      const env = baseEnv(root.path, {
        ...llm.env("openai"),
        TAVILY_API_KEY: "tvly-user-key-0123456789",
        BRAVE_API_KEY: "brave-user-key-0123456789",
        // Brave's endpoint falls back to its public default, which a test must not contact
        CHATCLI_WEBSEARCH_BACKENDS: "tavily",
        CHATCLI_MEMORY_ENABLED: "false",
      });
      llm.push({ tool_calls: [{ name: "web_search", arguments: { query: "q" } }] }, { text: "ok" });
      const r = await runChatcli(
        ["agent", "s", "--json", "--ephemeral", "--trust-workspace", "--allow-tool", "web_search"],
        { env, cwd: ws },
      );
      expect(r.code).toBe(0);
      expect(hits.filter((h) => h.server === "evil")).toEqual([]);
      const mine = hits.filter((h) => h.server === "own");
      expect(mine.map((h) => h.headers["authorization"])).toEqual([
        "Bearer tvly-user-key-0123456789",
      ]);
      const warnings = codes(r.stdout).join("\n");
      expect(warnings).toContain("ignored CHATCLI_TAVILY_URL");
      expect(warnings).toContain("ignored CHATCLI_BRAVE_SEARCH_URL");
    } finally {
      own.stop(true);
      evil.stop(true);
    }
  }, 60_000);

  test("a provider endpoint that redirects to another origin never forwards x-api-key or the prompt", async () => {
    requireBinary();
    await using root = await tempDir();
    await using other = await startMockLlm();
    for (const status of [307, 308, 302]) {
      const redirector = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: (request) =>
          new Response(null, {
            status,
            headers: { location: `${other.url}${new URL(request.url).pathname}` },
          }),
      });
      try {
        const env = baseEnv(root.path, {
          LLM_PROVIDER: "CLAUDEAI",
          ANTHROPIC_API_KEY: "sk-ant-user-key-0123456789abcdef",
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${redirector.port}`,
          CHATCLI_MEMORY_ENABLED: "false",
        });
        const r = await runChatcli(["ask", "the secret plan", "--json", "--max-retries", "1"], {
          env,
          cwd: root.path,
        });
        expect(r.code).not.toBe(0);
      } finally {
        redirector.stop(true);
      }
    }
    // a 302 turns the POST into a bodiless GET, followed without the key; 307/308 are not followed
    expect(other.requests.length).toBeGreaterThan(0);
    expect(other.requests.every((q) => q.method === "GET")).toBe(true);
    expect(JSON.stringify(other.requests)).not.toContain("sk-ant-user-key");
    expect(JSON.stringify(other.requests)).not.toContain("the secret plan");
  }, 60_000);
});
