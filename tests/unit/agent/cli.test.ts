import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type AgentCliOptions, runAgentCli } from "../../../commands/agent.ts";
import type { Sink } from "../../../lib/core/ctx.ts";
import { defaultMaxTurns } from "../../../lib/run/open.ts";
import { run, tempDir, testCtx } from "../../support/ctx.ts";
import { cliOptions, git, ScriptedProvider, writeTree } from "./support.ts";

function options(provider: ScriptedProvider, extra: Partial<AgentCliOptions> = {}) {
  return cliOptions(provider, extra, "fix the failing test");
}

const env = (dir: string) => ({
  PATH: process.env["PATH"] ?? "/usr/bin:/bin",
  HOME: dir,
  CHATCLI_HOME: join(dir, ".home"),
});

describe("chatcli coder/agent end to end (scripted provider)", () => {
  test("fix the failing test: read, patch, run tests, pass; envelope lists the change; exit 0", async () => {
    await using d = await tempDir();
    await writeTree(d.path, {
      "sum.ts": "export function sum(a: number, b: number): number {\n  return a - b;\n}\n",
      "sum.test.ts":
        'import { expect, test } from "bun:test";\nimport { sum } from "./sum.ts";\ntest("adds", () => expect(sum(2, 3)).toBe(5));\n',
    });
    git(d.path, "init", "-q");
    git(d.path, "add", ".");
    git(d.path, "commit", "-qm", "init");
    const testCmd = `${process.execPath} test`;
    const provider = new ScriptedProvider([
      { text: "Reading the code.", calls: [{ name: "read_file", arguments: { file: "sum.ts" } }] },
      {
        calls: [
          {
            name: "patch_file",
            arguments: { file: "sum.ts", search: "return a - b;", replace: "return a + b;" },
          },
        ],
      },
      { calls: [{ name: "run_tests", arguments: { cmd: testCmd } }] },
      (req) => {
        const last = req.messages.at(-1)?.content ?? "";
        return {
          text: last.includes("exit code: 0")
            ? "Fixed: sum() now adds; 1 test passes."
            : "Tests still fail.",
        };
      },
    ]);
    const ctx = testCtx({ cwd: d.path, env: env(d.path) });
    const code = await runAgentCli(
      ctx,
      "coder",
      options(provider, { permissionMode: "edit", allowTool: [`run_tests(${testCmd})`] }),
    );
    const envelope = JSON.parse(ctx.out());
    expect(ctx.out().trim().split("\n")).toHaveLength(1);
    expect(code).toBe(0);
    expect(envelope).toMatchObject({
      type: "result",
      command: "coder",
      status: "success",
      is_error: false,
      exit_code: 0,
      terminal_reason: "completed",
      result: "Fixed: sum() now adds; 1 test passes.",
      model: "mock:script",
      num_turns: 4,
      total_cost_usd: 0,
      tools: {
        calls: 3,
        failed: 0,
        denied: 0,
        by_name: { read_file: 1, patch_file: 1, run_tests: 1 },
      },
      permission_denials: [],
      files_changed: [{ path: "sum.ts", change: "modified" }],
      error: null,
    });
    expect(envelope.usage.input_tokens).toBeGreaterThan(0);
    expect(await readFile(join(d.path, "sum.ts"), "utf8")).toContain("return a + b;");
    expect(git(d.path, "status", "--short")).toBe(" M sum.ts\n");
  });

  test("--on-ask fail → exit 6 with a complete envelope and the allowing flag on stderr", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      { calls: [{ name: "run_command", arguments: { cmd: "npm publish" } }] },
    ]);
    const ctx = testCtx({ cwd: d.path, env: env(d.path) });
    const code = await runAgentCli(ctx, "agent", options(provider, { onAsk: "fail" }));
    const envelope = JSON.parse(ctx.out());
    expect(code).toBe(6);
    expect(envelope).toMatchObject({
      status: "error",
      is_error: true,
      exit_code: 6,
      terminal_reason: "permission_denied",
      error: { code: "permission_denied" },
    });
    expect(envelope.permission_denials).toMatchObject([
      { tool: "run_command", input: "npm publish", turn: 1 },
    ]);
    expect(ctx.err()).toContain("--allow-tool 'run_command(npm publish)'");
  });

  test("SIGTERM mid-tool → exit 143, envelope still printed as the last stream line", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      { calls: [{ name: "run_command", arguments: { cmd: "sleep 30" } }] },
    ]);
    const base = testCtx({ cwd: d.path, env: env(d.path) });
    const lines: string[] = [];
    const stdout: Sink = {
      isTTY: false,
      write(text) {
        lines.push(text);
        if (text.includes('"type":"tool.started"')) base.abort("SIGTERM");
        return true;
      },
    };
    const code = await runAgentCli(
      { ...base, stdout },
      "agent",
      options(provider, { format: "stream-json", permissionMode: "auto" }),
    );
    expect(code).toBe(143);
    const events = lines
      .join("")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events[0].type).toBe("session.started");
    expect(events.at(-1)).toMatchObject({
      type: "result",
      exit_code: 143,
      terminal_reason: "cancelled",
      num_turns: 1,
    });
    expect(events.some((e) => e.type === "tool.completed" && e.output.includes("cancelled"))).toBe(
      true,
    );
  });

  test("text mode: only the final answer on stdout; --max-turns → exit 4", async () => {
    await using d = await tempDir();
    await writeTree(d.path, { "a.txt": "x\n" });
    const ok = testCtx({ cwd: d.path, env: env(d.path) });
    await runAgentCli(
      ok,
      "agent",
      options(
        new ScriptedProvider([
          { calls: [{ name: "read_file", arguments: { file: "a.txt" } }] },
          { text: "All good." },
        ]),
        { format: "text" },
      ),
    );
    expect(ok.out()).toBe("All good.\n");
    expect(ok.err()).toContain("▸ read_file a.txt → 1 line (");
    const limited = testCtx({ cwd: d.path, env: env(d.path) });
    const provider = new ScriptedProvider(
      [
        (req) => ({
          calls: [{ name: "read_file", arguments: { file: "a.txt", head: req.messages.length } }],
        }),
      ],
      { repeatLast: true },
    );
    const code = await runAgentCli(
      limited,
      "agent",
      options(provider, { format: "json", maxTurns: 2 }),
    );
    expect(code).toBe(4);
    expect(JSON.parse(limited.out())).toMatchObject({
      terminal_reason: "max_turns",
      num_turns: 2,
      exit_code: 4,
    });
  });

  test("CHATCLI_AGENT_PLUGIN_MAX_TURNS: invalid/≤0 → 50, capped at 200", () => {
    expect(defaultMaxTurns({})).toBe(50);
    expect(defaultMaxTurns({ CHATCLI_AGENT_PLUGIN_MAX_TURNS: "7" })).toBe(7);
    expect(defaultMaxTurns({ CHATCLI_AGENT_PLUGIN_MAX_TURNS: "-1" })).toBe(50);
    expect(defaultMaxTurns({ CHATCLI_AGENT_PLUGIN_MAX_TURNS: "999" })).toBe(200);
  });
});

describe("chatcli agent flags (CLI)", () => {
  test("no task and no stdin → exit 2 no_prompt, JSON envelope", async () => {
    await using d = await tempDir();
    const r = await run(["agent", "--json"], { cwd: d.path, env: env(d.path) });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toMatchObject({
      command: "agent",
      exit_code: 2,
      terminal_reason: "no_prompt",
      is_error: true,
    });
  });

  test("bad flag values are usage errors; --help exits 0", async () => {
    await using d = await tempDir();
    expect(
      (await run(["coder", "--permission-mode", "yolo", "x"], { cwd: d.path, env: env(d.path) }))
        .code,
    ).toBe(2);
    expect(
      (await run(["agent", "--on-ask", "maybe", "x"], { cwd: d.path, env: env(d.path) })).code,
    ).toBe(2);
    expect(
      (await run(["agent", "--max-budget-usd", "-1", "x"], { cwd: d.path, env: env(d.path) })).code,
    ).toBe(2);
    // a malformed rule is never silently dropped (a lost --deny-tool would allow what it meant to stop)
    const badRule = await run(["agent", "--deny-tool", "run command(rm*)", "x"], {
      cwd: d.path,
      env: env(d.path),
    });
    expect(badRule.code).toBe(2);
    expect(badRule.err).toContain('--deny-tool "run command(rm*)" is not a rule');
    const help = await run(["agent", "--help"], { cwd: d.path, env: env(d.path) });
    expect(help.code).toBe(0);
    expect(help.out).toContain("--permission-mode");
  });

  test("a task on stdin is read when no argument is given; missing provider → exit 3", async () => {
    await using d = await tempDir();
    const r = await run(["agent", "--json"], { cwd: d.path, env: env(d.path), stdin: "fix it" });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.out)).toMatchObject({ terminal_reason: "config_error" });
  });
});
