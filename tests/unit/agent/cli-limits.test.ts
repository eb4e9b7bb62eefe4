import { describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type AgentCliOptions, runAgentCli } from "../../../commands/agent.ts";
import { createTtyAsk } from "../../../lib/agent/tty-ask.ts";
import { detectWorkspaceRoot } from "../../../lib/bootstrap/workspace.ts";
import { tempDir, testCtx } from "../../support/ctx.ts";
import { cliOptions, ScriptedProvider, writeTree } from "./support.ts";

function options(provider: ScriptedProvider, extra: Partial<AgentCliOptions> = {}) {
  return cliOptions(provider, extra, "do it");
}

const env = (dir: string, extra: Record<string, string> = {}) => ({
  PATH: process.env["PATH"] ?? "/usr/bin:/bin",
  HOME: dir,
  CHATCLI_HOME: join(dir, ".home"),
  ...extra,
});

describe("limits through the command", () => {
  test("--timeout → 124 with a complete envelope", async () => {
    await using d = await tempDir();
    const ctx = testCtx({ cwd: d.path, env: env(d.path) });
    const code = await runAgentCli(
      ctx,
      "agent",
      options(new ScriptedProvider([{ hang: true }]), { timeoutMs: 30 }),
    );
    expect(code).toBe(124);
    const envelope = JSON.parse(ctx.out());
    expect(envelope).toMatchObject({
      exit_code: 124,
      terminal_reason: "timeout",
      status: "error",
      error: { code: "timeout" },
    });
    expect(Object.keys(envelope)).toContain("files_changed");
  });

  test("stagnation → 7 with the hint on stderr", async () => {
    await using d = await tempDir();
    await writeTree(d.path, { "a.txt": "x" });
    const ctx = testCtx({ cwd: d.path, env: env(d.path) });
    const provider = new ScriptedProvider(
      [{ calls: [{ name: "read_file", arguments: { file: "a.txt" } }] }],
      { repeatLast: true },
    );
    const code = await runAgentCli(ctx, "coder", options(provider, { format: "text" }));
    expect(code).toBe(7);
    expect(ctx.out()).toBe("");
    expect(ctx.err()).toContain("stagnation");
    expect(ctx.err()).toContain("CHATCLI_AGENT_EARLY_EXIT=0");
  });

  test("config.json permissions: deny rules from the workspace config apply; flags add to them", async () => {
    await using d = await tempDir();
    await mkdir(join(d.path, ".chatcli"));
    await writeFile(
      join(d.path, ".chatcli", "config.json"),
      JSON.stringify({ permissions: { mode: "auto", deny: ["run_command(git push*)"] } }),
    );
    const provider = new ScriptedProvider([
      {
        calls: [
          { name: "run_command", arguments: { cmd: "echo ok && git push origin main" } },
          { name: "run_command", arguments: { cmd: "echo fine" } },
        ],
      },
      { text: "done" },
    ]);
    const ctx = testCtx({ cwd: d.path, env: env(d.path) });
    expect(await runAgentCli(ctx, "agent", options(provider))).toBe(0);
    const envelope = JSON.parse(ctx.out());
    expect(envelope.permission_denials).toMatchObject([
      { tool: "run_command", reason: "denied by rule run_command(git push*)" },
    ]);
    expect(envelope.tools).toMatchObject({ calls: 2, denied: 1 });
  });

  test("an invalid permissions.mode in config.json is a config error (exit 3)", async () => {
    await using d = await tempDir();
    await mkdir(join(d.path, ".chatcli"));
    await writeFile(
      join(d.path, ".chatcli", "config.json"),
      JSON.stringify({ permissions: { mode: "yolo" } }),
    );
    const ctx = testCtx({ cwd: d.path, env: env(d.path) });
    expect(await runAgentCli(ctx, "agent", options(new ScriptedProvider([{ text: "x" }])))).toBe(3);
    expect(JSON.parse(ctx.out()).error.message).toContain("permissions.mode");
  });

  test("secrets from the environment never reach the envelope or events", async () => {
    await using d = await tempDir();
    const secret = "sk-test-abcdefghijklmnopqrstuvwxyz123456";
    const provider = new ScriptedProvider([{ text: `the key is ${secret}` }]);
    const ctx = testCtx({
      cwd: d.path,
      env: env(d.path, { MY_SERVICE_TOKEN: "plain-value-1234" }),
    });
    await writeFile(join(d.path, ".env"), "OTHER_API_KEY=dotenv-secret-9876\n");
    const p2 = new ScriptedProvider([{ text: "tokens plain-value-1234 and dotenv-secret-9876" }]);
    await runAgentCli(ctx, "agent", options(provider, { format: "stream-json" }));
    expect(ctx.out()).not.toContain(secret);
    const ctx2 = testCtx({
      cwd: d.path,
      env: env(d.path, { MY_SERVICE_TOKEN: "plain-value-1234" }),
    });
    await runAgentCli(ctx2, "agent", options(p2));
    expect(ctx2.out()).not.toContain("plain-value-1234");
    expect(ctx2.out()).not.toContain("dotenv-secret-9876");
    expect(JSON.parse(ctx2.out()).result).toContain("[REDACTED:");
  });

  test("bypass warns on stderr", async () => {
    await using d = await tempDir();
    const ctx = testCtx({ cwd: d.path, env: env(d.path) });
    await runAgentCli(
      ctx,
      "agent",
      options(new ScriptedProvider([{ text: "ok" }]), { permissionMode: "bypass" }),
    );
    expect(ctx.err()).toContain("--permission-mode bypass");
    expect(JSON.parse(ctx.out()).warnings.map((w: { code: string }) => w.code)).toContain(
      "bypass_mode",
    );
  });
});

describe("inputs of the command", () => {
  test("-s adds a system block; -f attaches files; piped stdin becomes context", async () => {
    await using d = await tempDir();
    await writeTree(d.path, { "notes.md": "remember the milk" });
    const provider = new ScriptedProvider([{ text: "ok" }]);
    const ctx = testCtx({ cwd: d.path, env: env(d.path), stdin: "log line 1\n" });
    const code = await runAgentCli(
      ctx,
      "coder",
      options(provider, { noStdin: false, system: "Answer in French.", files: ["notes.md"] }),
    );
    expect(code).toBe(0);
    const req = provider.requests[0];
    // -f goes into the cached part of the system prompt, -s last (volatile), stdin into the task.
    expect(req?.system.map((b) => [b.id, b.cache])).toEqual([
      ["core", true],
      ["attachments", true],
      ["dynamic", false],
      ["user_system", false],
    ]);
    expect(req?.system[1]?.text).toContain("remember the milk");
    expect(req?.system[3]?.text).toContain("Answer in French.");
    expect(req?.messages[0]?.content).toBe('<stdin bytes="11">\nlog line 1\n</stdin>\n\ndo it');
    expect(req?.tools?.map((t) => t.name)).not.toContain("memory");
  });

  test("workspace root is the nearest .git directory", async () => {
    await using d = await tempDir();
    await mkdir(join(d.path, ".git"));
    await mkdir(join(d.path, "a", "b"), { recursive: true });
    expect(detectWorkspaceRoot(join(d.path, "a", "b"))).toBe(d.path);
  });
});

describe("TTY approval prompt", () => {
  const answer = (text: string) => {
    const ctx = testCtx({
      stdin: {
        kind: "tty",
        chunks: async function* () {
          yield new TextEncoder().encode(text);
        },
      },
    });
    return { ctx, ask: createTtyAsk(ctx) };
  };
  const req = { tool: "run_command", input: "npm install", reason: "needs auto", dangerous: false };

  test("Enter is no; y and yes are yes", async () => {
    expect(await answer("\n").ask(req)).toBe(false);
    expect(await answer("y\n").ask(req)).toBe(true);
    expect(await answer("YES\r\n").ask(req)).toBe(true);
    expect(await answer("n\n").ask(req)).toBe(false);
    const { ctx, ask } = answer("\n");
    await ask(req);
    expect(ctx.err()).toContain("🔒 permission needed: run_command npm install");
  });

  test("dangerous actions need the whole word yes", async () => {
    const danger = { ...req, input: "rm -rf build", dangerous: true };
    expect(await answer("y\n").ask(danger)).toBe(false);
    expect(await answer("yes\n").ask(danger)).toBe(true);
  });
});
