import { describe, expect, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

const BUGGY = "export function sum(a: number, b: number): number {\n  return a - b;\n}\n";
const TEST =
  'import { expect, test } from "bun:test";\nimport { sum } from "./sum.ts";\ntest("adds", () => expect(sum(2, 3)).toBe(5));\n';

async function repo(dir: string): Promise<void> {
  await writeFile(join(dir, "sum.ts"), BUGGY);
  await writeFile(join(dir, "sum.test.ts"), TEST);
  for (const args of [
    ["init", "-q"],
    ["add", "."],
    ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"],
  ]) {
    Bun.spawnSync(["git", ...args], { cwd: dir });
  }
}

/** The scripted model of a "fix the failing test" run. */
function fixScript(testCmd: string) {
  return [
    { text: "Let me look.", tool_calls: [{ name: "read_file", arguments: { file: "sum.ts" } }] },
    {
      tool_calls: [
        {
          name: "patch_file",
          arguments: { file: "sum.ts", search: "return a - b;", replace: "return a + b;" },
        },
      ],
    },
    { tool_calls: [{ name: "run_tests", arguments: { cmd: testCmd } }] },
    { text: "Fixed sum(): it subtracted instead of adding. The test passes." },
  ];
}

describe("agent/coder against the mock LLM (spawned binary, real SDKs)", () => {
  test("fix the failing test: patched, tests pass, envelope lists the change, cache reads from request 2; rewind restores", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await repo(dir.path);
    const testCmd = `${process.execPath} test`;
    llm.push(...fixScript(testCmd));
    const env = baseEnv(dir.path, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(
      [
        "coder",
        "fix the failing test",
        "--json",
        "--session",
        "fix",
        "--permission-mode",
        "edit",
        "--allow-tool",
        `run_tests(${testCmd})`,
      ],
      { env, cwd: dir.path },
    );
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout);
    expect(envelope).toMatchObject({
      command: "coder",
      status: "success",
      exit_code: 0,
      session_id: "fix",
      num_turns: 4,
      result: "Fixed sum(): it subtracted instead of adding. The test passes.",
      files_changed: [{ path: "sum.ts", change: "modified" }],
    });
    expect(envelope.tools.by_name).toMatchObject({ read_file: 1, patch_file: 1, run_tests: 1 });
    expect(await readFile(join(dir.path, "sum.ts"), "utf8")).toContain("return a + b;");
    // The tool result of run_tests reached the model with the passing exit code.
    const fourth = JSON.stringify(llm.requests[3]?.body);
    expect(fourth).toContain("exit code: 0");
    // The stable prefix is cached: every request after the first reads from the cache.
    expect(envelope.usage.cache_read_input_tokens).toBeGreaterThan(0);
    // Checkpoints persisted with the session: rewinding to the first restores the file.
    const rewind = await runChatcli(
      ["rewind", "--session", "fix", "--to", "1", "--both", "--json"],
      { env, cwd: dir.path },
    );
    expect(rewind.code).toBe(0);
    expect(await readFile(join(dir.path, "sum.ts"), "utf8")).toBe(BUGGY);
  }, 60_000);

  test("files a shell command writes are snapshotted: rewind --code restores them and removes what it created", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await repo(dir.path);
    llm.push(
      {
        tool_calls: [
          {
            name: "run_command",
            arguments: { cmd: "sed -i 's/a - b/a * b/' sum.ts && echo made > new.txt" },
          },
        ],
      },
      { text: "Done." },
    );
    const env = baseEnv(dir.path, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(
      ["agent", "change things", "--json", "--session", "sh", "--permission-mode", "auto"],
      {
        env,
        cwd: dir.path,
      },
    );
    expect(r.code).toBe(0);
    expect(await readFile(join(dir.path, "sum.ts"), "utf8")).toContain("a * b");
    expect(await Bun.file(join(dir.path, "new.txt")).exists()).toBe(true);
    const rewind = await runChatcli(["rewind", "--session", "sh", "--to", "1", "--code"], {
      env,
      cwd: dir.path,
    });
    expect(rewind.code).toBe(0);
    expect(await readFile(join(dir.path, "sum.ts"), "utf8")).toBe(BUGGY);
    expect(await Bun.file(join(dir.path, "new.txt")).exists()).toBe(false);
  }, 60_000);

  test("OpenAI: tools sorted on the wire; text mode prints only the final answer; --max-turns → 4", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await repo(dir.path);
    llm.push(
      { tool_calls: [{ name: "list_directory", arguments: {} }] },
      { tool_calls: [{ name: "read_file", arguments: { file: "sum.ts" } }] },
    );
    const env = baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(["agent", "look around", "--max-turns", "2", "--ephemeral"], {
      env,
      cwd: dir.path,
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("▸ list_directory");
    const body = llm.requests[0]?.body as { tools: Array<{ function: { name: string } }> };
    const tools = body.tools.map((t) => t.function.name);
    expect(tools).toEqual([...tools].sort());
    expect(tools).toContain("run_command");
  }, 60_000);

  test("no TTY: a command the policy would ask about is denied at once, never waits; --on-ask fail → 6", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await repo(dir.path);
    llm.push({ tool_calls: [{ name: "run_command", arguments: { cmd: "touch made-by-agent" } }] });
    const env = baseEnv(dir.path, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(
      ["agent", "make a file", "--json", "--on-ask", "fail", "--ephemeral"],
      { env, cwd: dir.path },
    );
    expect(r.code).toBe(6);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.terminal_reason).toBe("permission_denied");
    expect(envelope.permission_denials[0]).toMatchObject({ tool: "run_command" });
    expect(r.stderr).toContain("--permission-mode");
    expect(await Bun.file(join(dir.path, "made-by-agent")).exists()).toBe(false);
  }, 60_000);
});
