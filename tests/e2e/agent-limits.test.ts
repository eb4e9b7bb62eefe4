import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { baseEnv, requireBinary, runChatcli, spawnChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

const ENVELOPE_KEYS = [
  "schema_version",
  "command",
  "status",
  "exit_code",
  "terminal_reason",
  "num_turns",
  "usage",
  "total_cost_usd",
  "permission_denials",
  "files_changed",
  "tools",
];

function lastLine(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1] as string);
}

/** Processes of process group `pgid` that are not zombies (from /proc/PID/stat: state, pgrp). */
function liveInGroup(pgid: number): string[] {
  const live: string[] = [];
  for (const entry of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z") live.push(entry);
  }
  return live;
}

const list = { tool_calls: [{ name: "list_directory", arguments: {} }] };

describe("agent limits and signals through the binary: exit code and a complete envelope", () => {
  test("--max-budget-usd → exit 5, envelope with the cost", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ ...list, usage: { input_tokens: 1_000_000, output_tokens: 10 } }, list, {
      text: "never",
    });
    const env = baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(
      ["agent", "look", "--json", "--ephemeral", "--max-budget-usd", "0.5"],
      { env, cwd: dir.path },
    );
    expect(r.code).toBe(5);
    const e = JSON.parse(r.stdout);
    for (const k of ENVELOPE_KEYS) expect(e).toHaveProperty(k);
    expect(e).toMatchObject({ exit_code: 5, terminal_reason: "max_budget", num_turns: 1 });
    expect(e.total_cost_usd).toBeGreaterThanOrEqual(0.5);
    expect(llm.requests).toHaveLength(1);
  }, 60_000);

  test("stagnation → exit 7 with a clear message; stream-json ends with the envelope", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    llm.push(list, list, list, list, { text: "never" });
    const env = baseEnv(dir.path, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(["agent", "look", "--output-format", "stream-json", "--ephemeral"], {
      env,
      cwd: dir.path,
    });
    expect(r.code).toBe(7);
    const e = lastLine(r.stdout);
    for (const k of ENVELOPE_KEYS) expect(e).toHaveProperty(k);
    expect(e).toMatchObject({ exit_code: 7, terminal_reason: "stagnation", num_turns: 3 });
    expect(r.stderr).toContain("stagnation");
    expect(llm.requests).toHaveLength(3);
  }, 60_000);

  test("--timeout while the model stalls → exit 124, envelope", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    llm.push(list, { stall: true });
    const env = baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(["agent", "look", "--json", "--ephemeral", "--timeout", "1s"], {
      env,
      cwd: dir.path,
    });
    expect(r.code).toBe(124);
    const e = JSON.parse(r.stdout);
    for (const k of ENVELOPE_KEYS) expect(e).toHaveProperty(k);
    expect(e).toMatchObject({ exit_code: 124, terminal_reason: "timeout" });
    expect(e.tools.by_name).toMatchObject({ list_directory: 1 });
  }, 60_000);

  test("--timeout while a command runs → exit 124; the command's process group is gone", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    const pidFile = `${dir.path}/pid`;
    llm.push({
      tool_calls: [{ name: "run_command", arguments: { cmd: `echo $$ > pid; sleep 30; echo` } }],
    });
    const env = baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(
      ["agent", "wait", "--json", "--ephemeral", "--timeout", "1s", "--permission-mode", "auto"],
      { env, cwd: dir.path },
    );
    expect(r.code).toBe(124);
    expect(JSON.parse(r.stdout)).toMatchObject({ exit_code: 124, terminal_reason: "timeout" });
    // the shell was killed with its whole group (sh and its sleep) before chatcli exited
    const pid = Number((await Bun.file(pidFile).text()).trim());
    expect(pid).toBeGreaterThan(1);
    // only zombies (killed, waiting for init to reap them) may remain in its process group
    expect(liveInGroup(pid)).toEqual([]);
  }, 60_000);

  test("SIGTERM mid-tool → exit 143; stream-json's last line is the cancelled envelope", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ tool_calls: [{ name: "run_command", arguments: { cmd: "sleep 30" } }] });
    const env = baseEnv(dir.path, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" });
    const child = spawnChatcli(
      [
        "agent",
        "wait",
        "--output-format",
        "stream-json",
        "--ephemeral",
        "--permission-mode",
        "auto",
      ],
      { env, cwd: dir.path },
    );
    await child.waitForStdout('"type":"tool.started"');
    child.proc.kill("SIGTERM");
    const r = await child.done;
    expect(r.code).toBe(143);
    const e = lastLine(r.stdout);
    for (const k of ENVELOPE_KEYS) expect(e).toHaveProperty(k);
    expect(e).toMatchObject({ type: "result", exit_code: 143, terminal_reason: "cancelled" });
  }, 60_000);
});
