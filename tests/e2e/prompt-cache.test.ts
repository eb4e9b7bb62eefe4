import { expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

type AnthropicBody = {
  system: Array<{ text: string; cache_control?: unknown }>;
  messages: unknown[];
};

test("two turns of one session: byte-identical cached system prefix, cache reads on the second (Anthropic)", async () => {
  requireBinary();
  await using dir = await tempDir();
  await using llm = await startMockLlm();
  const ws = join(dir.path, "repo");
  await mkdir(join(ws, ".git"), { recursive: true });
  await writeFile(join(ws, "AGENTS.md"), "Always answer in haiku.\n");
  await writeFile(join(ws, "RULES.md"), "Never push to main.\n");
  llm.push({ text: "first answer" }, { text: "second answer" });
  const env = baseEnv(dir.path, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" });
  const first = await runChatcli(["ask", "--session", "s", "--json", "question one"], {
    env,
    cwd: ws,
  });
  const second = await runChatcli(["ask", "--session", "s", "--json", "question two"], {
    env,
    cwd: ws,
  });
  expect(first.code).toBe(0);
  expect(second.code).toBe(0);
  const [a, b] = llm.requests.map((r) => r.body as AnthropicBody);
  const cached = (body: AnthropicBody | undefined) => {
    const blocks = body?.system ?? [];
    const last = blocks.findLastIndex((s) => s.cache_control !== undefined);
    return JSON.stringify(blocks.slice(0, last + 1));
  };
  expect(cached(a)).toContain("## AGENTS.md");
  expect(cached(a)).toContain("Always answer in haiku.");
  expect(cached(b)).toBe(cached(a));
  // The date/time block is volatile: after the last breakpoint.
  expect(cached(a)).not.toContain("Current date and time");
  // The second request continues the conversation and reads the prefix from the cache.
  expect(b?.messages).toHaveLength(3);
  const usage = JSON.parse(second.stdout).usage;
  expect(usage.cache_read_input_tokens).toBeGreaterThan(0);
  expect(JSON.parse(first.stdout).bootstrap_files.map((f: { name: string }) => f.name)).toEqual([
    "AGENTS.md",
    "RULES.md",
  ]);
});

test("OpenAI: the second turn reports cached_tokens for the shared prefix", async () => {
  requireBinary();
  await using dir = await tempDir();
  await using llm = await startMockLlm();
  await writeFile(join(dir.path, "AGENTS.md"), `${"Project conventions. ".repeat(300)}\n`);
  llm.push({ text: "a1" }, { text: "a2" });
  const env = baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
  await runChatcli(["ask", "--session", "o", "q1"], { env, cwd: dir.path });
  const second = await runChatcli(["ask", "--session", "o", "--json", "q2"], {
    env,
    cwd: dir.path,
  });
  const usage = JSON.parse(second.stdout).usage;
  expect(usage.cache_read_input_tokens).toBeGreaterThan(1000);
  expect(usage.cache_read_input_tokens / usage.input_tokens).toBeGreaterThan(0.9);
});
