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
  expect(cached(a)).not.toContain("Current date:");
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

test("two agent runs on the same day (separate processes, CI jobs): the whole first request is one cached prefix", async () => {
  requireBinary();
  await using dir = await tempDir();
  await using llm = await startMockLlm({ defaultText: "done" });
  const ws = join(dir.path, "repo");
  await mkdir(join(ws, ".git"), { recursive: true });
  await writeFile(join(ws, "AGENTS.md"), "Run make test before you finish.\n");
  const run = async (now: string) => {
    const env = baseEnv(dir.path, {
      ...llm.env("anthropic"),
      CHATCLI_MEMORY_ENABLED: "false",
      CHATCLI_NOW: now,
      TZ: "UTC",
    });
    const r = await runChatcli(["agent", "--ephemeral", "--json", "list the files"], {
      env,
      cwd: ws,
    });
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout).usage as {
      input_tokens: number;
      cache_read_input_tokens: number;
    };
  };
  await run("2026-11-29T08:00:05Z");
  const later = await run("2026-11-29T19:42:17Z");
  const nextDay = await run("2026-11-30T08:00:05Z");
  const [a, b, c] = llm.requests.map((r) => JSON.stringify(r.body));
  // same day, hours apart: byte-identical requests, so everything is read from the cache
  expect(b).toBe(a as string);
  expect(a).toContain("Current date: 2026-11-29 (UTC)");
  expect(a).not.toMatch(/\d\d:\d\d:\d\d/);
  expect(later.cache_read_input_tokens).toBe(later.input_tokens);
  // the next day only the date block (after every cached block) and what follows it differ
  expect(c).toContain("Current date: 2026-11-30 (UTC)");
  expect((c as string).replace("2026-11-30", "2026-11-29")).toBe(a as string);
  expect(nextDay.cache_read_input_tokens).toBeGreaterThan(0);
  expect(nextDay.cache_read_input_tokens).toBeLessThan(nextDay.input_tokens);
});

test("lean first request: a read-only CI agent run gets no edit tools and no text tool-call instructions, ≤ 1.5k tokens", async () => {
  requireBinary();
  await using dir = await tempDir();
  await using llm = await startMockLlm({ defaultText: "done" });
  const ws = join(dir.path, "repo");
  await mkdir(join(ws, ".git"), { recursive: true });
  const env = baseEnv(dir.path, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" });
  const usage: number[] = [];
  for (const extra of [[], ["--permission-mode", "edit"]]) {
    const r = await runChatcli(["agent", "--ephemeral", "--json", "say hi", ...extra], {
      env,
      cwd: ws,
    });
    expect(r.code).toBe(0);
    usage.push(JSON.parse(r.stdout).usage.input_tokens);
  }
  type Body = { tools: Array<{ name: string }>; system: Array<{ text: string }> };
  const [ci, edit] = llm.requests.map((q) => q.body as Body);
  const ciTools = ci?.tools.map((t) => t.name) ?? [];
  expect(ciTools).not.toContain("write_file");
  expect(ciTools).not.toContain("patch_file");
  expect(ciTools).toContain("read_file");
  expect(ciTools).toContain("run_command");
  expect(edit?.tools.map((t) => t.name)).toContain("patch_file");
  expect(JSON.stringify(ci?.system)).not.toContain("<tool_call");
  for (const n of usage) expect(n).toBeLessThanOrEqual(1500);
});
