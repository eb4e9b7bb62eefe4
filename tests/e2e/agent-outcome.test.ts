/**
 * A run that could not do what it was asked is not a success: every edit and command denied by the
 * permission policy is `blocked`; every shell command refused for want of a sandbox, or failing for
 * want of network inside it, is `tools_unavailable`. Both exit 6 with the model's words in `result`.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";

const BUGGY = "export const sum = (a: number, b: number) => a - b;\n";

beforeAll(() => {
  requireBinary();
});

async function repo(dir: string): Promise<void> {
  await writeFile(join(dir, "sum.ts"), BUGGY);
  for (const args of [
    ["init", "-q"],
    ["add", "."],
    ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"],
  ])
    Bun.spawnSync(["git", ...args], { cwd: dir });
}

function fixScript(llm: MockLlm, command: string): void {
  llm.push(
    { tool_calls: [{ name: "read_file", arguments: { file: "sum.ts" } }] },
    {
      tool_calls: [
        { name: "patch_file", arguments: { file: "sum.ts", search: "a - b", replace: "a + b" } },
      ],
    },
    { tool_calls: [{ name: "run_command", arguments: { cmd: command } }] },
    { text: "I could not run the tests." },
  );
}

async function agent(dir: string, llm: MockLlm, args: string[], extra: Record<string, string>) {
  const env = baseEnv(dir, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false", ...extra });
  const r = await runChatcli(["agent", "fix the failing tests", "--json", ...args], {
    env,
    cwd: dir,
  });
  return { ...r, envelope: JSON.parse(r.stdout) as Record<string, unknown> };
}

describe("agent: a run that could do nothing it tried is not a success", () => {
  test("read-only: every patch and command denied → exit 6, terminal_reason blocked", async () => {
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await repo(dir.path);
    fixScript(llm, "npm test");
    const r = await agent(dir.path, llm, [], {});
    expect(r.code).toBe(6);
    expect(r.envelope).toMatchObject({
      status: "error",
      is_error: true,
      exit_code: 6,
      terminal_reason: "blocked",
      result: "I could not run the tests.",
      files_changed: [],
      error: { code: "blocked" },
    });
    expect((r.envelope["permission_denials"] as unknown[]).length).toBe(2);
    const message = (r.envelope["error"] as { message: string }).message;
    expect(message).toContain("read-only");
    expect(r.stderr).toMatch(/^chatcli: .*denied/m);
    expect(r.stderr).toMatch(/^hint: .*--permission-mode edit/m);
    expect(await readFile(join(dir.path, "sum.ts"), "utf8")).toBe(BUGGY);
  });

  test("no sandbox: the edit lands but no command could run → exit 6, tools_unavailable", async () => {
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await repo(dir.path);
    fixScript(llm, "npm test");
    const r = await agent(
      dir.path,
      llm,
      ["--permission-mode", "edit", "--allow-tool", "run_command(npm test*)"],
      {
        CHATCLI_SANDBOX_BWRAP: join(dir.path, "no-such-bwrap"),
      },
    );
    expect(r.code).toBe(6);
    expect(r.envelope).toMatchObject({
      status: "error",
      terminal_reason: "tools_unavailable",
      files_changed: [{ path: "sum.ts", change: "modified" }],
      error: { code: "tools_unavailable" },
    });
    expect((r.envelope["error"] as { message: string }).message).toContain("sandbox");
    expect(r.stderr).toMatch(/^hint: .*bubblewrap/m);
  });

  (SANDBOX_MISSING ? test.skip : test)(
    "sandboxed command that fails for want of network (DNS) → exit 6, tools_unavailable",
    async () => {
      await using dir = await tempDir();
      await using llm = await startMockLlm();
      await repo(dir.path);
      const lookup = `node -e "require('dns').lookup('registry.npmjs.org',(e)=>{if(e){console.error('npm ERR! code '+e.code);process.exit(1)}})"`;
      fixScript(llm, lookup);
      const r = await agent(
        dir.path,
        llm,
        ["--permission-mode", "edit", "--allow-tool", "run_command(node *)"],
        {},
      );
      expect(r.envelope["terminal_reason"]).toBe("tools_unavailable");
      expect(r.code).toBe(6);
      expect((r.envelope["error"] as { message: string }).message).toContain("network");
    },
  );

  test("a command that ran and failed (tests red) is work done: completed, exit 0", async () => {
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await repo(dir.path);
    fixScript(llm, "false");
    const r = await agent(
      dir.path,
      llm,
      ["--permission-mode", "edit", "--allow-tool", "run_command(false)", "--sandbox", "off"],
      {},
    );
    expect(r.envelope["terminal_reason"]).toBe("completed");
    expect(r.code).toBe(0);
  });

  test("a read-only question answered from reads alone is completed", async () => {
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await repo(dir.path);
    llm.push(
      { tool_calls: [{ name: "read_file", arguments: { file: "sum.ts" } }] },
      { text: "It subtracts." },
    );
    const r = await agent(dir.path, llm, [], {});
    expect(r.envelope).toMatchObject({ terminal_reason: "completed", exit_code: 0 });
  });
});
