/** The memory extractor runs on the new providers, and their names work in its fallback chain. */
import { beforeAll, expect, test } from "bun:test";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

async function project(home: string): Promise<string> {
  const dir = join(home, "proj");
  await mkdir(join(dir, ".git"), { recursive: true });
  return dir;
}

test("LLM_PROVIDER=GOOGLEAI: ask --memory write extracts through Gemini", async () => {
  await using home = await tempDir();
  await using llm = await startMockLlm();
  const cwd = await project(home.path);
  llm.push(
    { text: "Use pnpm." },
    { text: "## LONGTERM\n- [preference] User prefers pnpm over npm" },
  );
  const env = baseEnv(home.path, {
    LLM_PROVIDER: "GOOGLEAI",
    GEMINI_API_KEY: "k",
    GOOGLEAI_BASE_URL: llm.url,
    CHATCLI_MAX_RETRIES: "0",
  });
  // the preference is the user's own words (issue 20: only those are the user's facts)
  const r = await runChatcli(
    ["ask", "--memory", "write", "I prefer pnpm over npm: which package manager?"],
    { env, cwd },
  );
  expect([r.code, r.stdout, r.stderr]).toEqual([0, "Use pnpm.\n", "memory: +1 fact(s)\n"]);
  expect(llm.requests.map((q) => q.path)).toEqual([
    "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
    "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
  ]);
  expect(JSON.stringify(llm.requests[1]?.body)).toContain("which package manager?");
});

test("CHATCLI_MEMORY_FALLBACK_PROVIDERS=BEDROCK serves extraction when the primary fails", async () => {
  await using home = await tempDir();
  await using llm = await startMockLlm();
  const cwd = await project(home.path);
  const env = baseEnv(home.path, {
    ...llm.env("openai"),
    AWS_ACCESS_KEY_ID: "AKIAMOCK",
    AWS_SECRET_ACCESS_KEY: "secret",
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: llm.url,
    CHATCLI_MAX_RETRIES: "0",
    CHATCLI_MEMORY_FALLBACK_PROVIDERS: "BEDROCK",
  });
  llm.push(
    { text: "answer" },
    { error: { status: 500, message: "provider down" } },
    { text: "## LONGTERM\n- [project] Bedrock served this fact" },
  );
  const r = await runChatcli(["ask", "--memory", "write", "question zeta"], { env, cwd });
  expect([r.code, r.stdout, r.stderr]).toEqual([0, "answer\n", "memory: +1 fact(s)\n"]);
  expect(llm.requests.map((q) => q.path)).toEqual([
    "/v1/chat/completions",
    "/v1/chat/completions",
    "/model/global.anthropic.claude-sonnet-4-6/invoke-with-response-stream",
  ]);
});
