import { describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockRequest, startMockLlm } from "../support/mock-llm.ts";

/**
 * A sub-agent never gets more than its parent has left (issue 20): a model asking `delegate` for
 * max_turns 200 under --max-turns 3 gets at most the parent's remaining turns, shared by all its
 * sub-agents; the parent's --max-budget-usd binds them too.
 */
const isSub = (r: MockRequest) => JSON.stringify(r.body).includes("## Sub-agent");
const looping = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    tool_calls: [
      { id: `l${i}`, name: "list_directory", arguments: { path: `.${"/".repeat(i % 2)}` } },
    ],
  }));

async function run(args: string[], replies: unknown[], agents?: string) {
  const dir = await tempDir();
  const llm = await startMockLlm();
  Bun.spawnSync(["git", "init", "-q"], { cwd: dir.path });
  await writeFile(join(dir.path, "README.md"), "hi\n");
  if (agents) await writeFile(join(dir.path, "AGENTS.md"), agents);
  llm.push(...(replies as never[]));
  const env = baseEnv(dir.path, {
    ...llm.env("openai"),
    CHATCLI_MEMORY_ENABLED: "false",
    CHATCLI_AGENT_EARLY_EXIT: "off",
    CHATCLI_AGENT_DELEGATE: "1",
  });
  const r = await runChatcli(["agent", "go", "--json", "--ephemeral", ...args], {
    env,
    cwd: dir.path,
  });
  const requests = [...llm.requests];
  await llm.close();
  await dir[Symbol.asyncDispose]();
  return { ...r, requests, envelope: JSON.parse(r.stdout) as Record<string, unknown> };
}

const delegate = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: "delegate",
  arguments: { prompt: "keep looking", description: "loop", max_turns: 200, ...extra },
});

describe("delegate limits (spawned binary, mock LLM)", () => {
  test("--max-turns 3, delegate max_turns 200: the sub-agent gets at most the 2 turns left", async () => {
    requireBinary();
    const r = await run(["--max-turns", "3"], [{ tool_calls: [delegate("d1")] }, ...looping(30)]);
    const sub = r.requests.filter(isSub).length;
    expect(sub).toBeGreaterThan(0);
    expect(sub).toBeLessThanOrEqual(2);
    const started = (r.envelope["subagents"] as Array<{ turns: number }>) ?? [];
    expect(started[0]?.turns).toBeLessThanOrEqual(2);
  });

  test("two parallel delegates share the parent's remaining turns, not each the whole cap", async () => {
    requireBinary();
    const r = await run(
      ["--max-turns", "4"],
      [{ tool_calls: [delegate("d1"), delegate("d2")] }, ...looping(40)],
    );
    expect(r.requests.filter(isSub).length).toBeLessThanOrEqual(3);
  });

  test("a role's max_turns binds: the model's max_turns 200 does not raise it", async () => {
    requireBinary();
    const agents = "# agents\n\n## @scout\nmax_turns: 2\nSCOUT: look around.\n";
    const r = await run(
      [],
      [{ tool_calls: [delegate("d1", { role: "scout" })] }, ...looping(30)],
      agents,
    );
    expect(r.requests.filter(isSub).length).toBe(2);
  });

  test("--max-budget-usd: what the parent spent is gone for the sub-agent", async () => {
    requireBinary();
    // gpt-5.4 input is $2.50/M: the parent's turn costs $0.40, each sub-agent turn $0.20
    const usage = (input: number) => ({
      input_tokens: input,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    const subTurns = looping(30).map((r) => ({ ...r, usage: usage(80_000) }));
    const r = await run(
      ["--max-budget-usd", "0.5"],
      [{ tool_calls: [delegate("d1")], usage: usage(160_000) }, ...subTurns],
    );
    // $0.10 was left: one sub-agent turn reaches it (three, with the whole $0.50 as before)
    expect(r.requests.filter(isSub).length).toBe(1);
  });
});
