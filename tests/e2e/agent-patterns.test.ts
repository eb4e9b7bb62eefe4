/**
 * Patterns chatcli did not write — an untrusted checkout's `.env` CHATCLI_AGENT_DENYLIST, its
 * `.chatcli/config.json` deny glob, the model's web_fetch filter — are evaluated in linear time, so
 * `--timeout` and SIGTERM end the run. Each case shows the pattern was in force (a call it matches
 * is denied or filtered) and then the model stalls: the run must end by the timeout (124) or the
 * signal (143), not hang in a backtracking regex (before RE2 these kept a 20 s run alive for a minute).
 */
import { describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli, spawnChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

const A = "a".repeat(48);
const run = (cmd: string) => ({ name: "run_command", arguments: { cmd } });

async function workspace() {
  const ws = await tempDir();
  await mkdir(join(ws.path, ".git"));
  return ws;
}

describe("untrusted patterns cannot outlast --timeout", () => {
  test(".env CHATCLI_AGENT_DENYLIST (a+)+b: the match is denied, the near-miss is cheap, --timeout 2s ends it (124)", async () => {
    requireBinary();
    await using home = await tempDir();
    await using ws = await workspace();
    await using llm = await startMockLlm();
    await writeFile(join(ws.path, ".env"), "CHATCLI_AGENT_DENYLIST=(a+)+b\n");
    llm.push({ tool_calls: [run(`echo ${A}!`), run("echo aab")] }, { stall: true });
    const r = await runChatcli(["agent", "go", "--json", "--ephemeral", "--timeout", "2s"], {
      env: baseEnv(home.path, llm.env("openai")),
      cwd: ws.path,
    });
    expect(r.code).toBe(124);
    const out = JSON.parse(r.stdout);
    expect(out.terminal_reason).toBe("timeout");
    // both commands were judged against the pattern: the near-miss ran, the match was denied
    expect(out.permission_denials).toHaveLength(1);
    expect(out.permission_denials[0].reason).toContain("CHATCLI_AGENT_DENYLIST");
    expect(out.permission_denials[0].input).toBe("echo aab");
    expect(llm.requests.length).toBe(2);
  }, 60_000);

  test("a workspace config's deny glob with many stars: evaluated, and SIGTERM ends the run (143)", async () => {
    requireBinary();
    await using home = await tempDir();
    await using ws = await workspace();
    await using llm = await startMockLlm();
    await mkdir(join(ws.path, ".chatcli"));
    const glob = `run_command(${"*a".repeat(12)}*b)`;
    await writeFile(
      join(ws.path, ".chatcli", "config.json"),
      JSON.stringify({ permissions: { deny: [glob] } }),
    );
    llm.push(
      { tool_calls: [run(`echo ${"a".repeat(80)}!`), run(`echo ${"a".repeat(12)}b`)] },
      { stall: true },
    );
    const child = spawnChatcli(["agent", "go", "--jsonl", "--ephemeral"], {
      env: baseEnv(home.path, llm.env("openai")),
      cwd: ws.path,
    });
    await llm.waitForHits(2);
    child.proc.kill("SIGTERM");
    const done = await child.done;
    expect(done.code).toBe(143);
    const result = JSON.parse(done.stdout.trimEnd().split("\n").at(-1) as string);
    expect(result.terminal_reason).toBe("cancelled");
    expect(result.permission_denials).toHaveLength(1);
    expect(result.permission_denials[0].reason).toContain(`denied by rule ${glob}`);
  }, 60_000);

  test("the model's web_fetch filter (a+)+$ runs over the page and --timeout 2s still ends the run", async () => {
    requireBinary();
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const site = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Response(`${`${A}!\n`.repeat(200)}keep aaa\n`),
    });
    try {
      llm.push(
        {
          tool_calls: [
            {
              name: "web_fetch",
              arguments: { url: `http://127.0.0.1:${site.port}/`, filter: "(a+)+$" },
            },
          ],
        },
        { stall: true },
      );
      const r = await runChatcli(
        ["agent", "go", "--json", "--ephemeral", "--timeout", "2s", "--permission-mode", "auto"],
        { env: baseEnv(home.path, llm.env("openai")), cwd: home.path },
      );
      expect(r.code).toBe(124);
      const sent = JSON.stringify(llm.requests[1]?.body);
      expect(sent).toContain("keep aaa");
      expect(sent).not.toContain(`${A}!`);
    } finally {
      site.stop(true);
    }
  }, 60_000);

  test("a pattern RE2 cannot compile (a backreference) is reported, never run by a backtracking engine", async () => {
    requireBinary();
    await using home = await tempDir();
    await using ws = await workspace();
    await using llm = await startMockLlm();
    await writeFile(join(ws.path, ".env"), "CHATCLI_AGENT_DENYLIST=(a)\\1\n");
    llm.push({ text: "done" });
    const r = await runChatcli(["agent", "go", "--json", "--ephemeral"], {
      env: baseEnv(home.path, llm.env("openai")),
      cwd: ws.path,
    });
    expect(r.code).toBe(0);
    const warnings = JSON.parse(r.stdout).warnings as Array<{ code: string; message: string }>;
    expect(warnings.some((w) => w.message.includes("CHATCLI_AGENT_DENYLIST pattern"))).toBe(true);
  }, 30_000);
});
