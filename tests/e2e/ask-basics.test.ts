import { describe, expect, test } from "bun:test";
import { baseEnv, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

describe("ask without a provider, and usage errors (spawned binary)", () => {
  test("--help and --version exit 0", async () => {
    await using home = await tempDir();
    const help = await runChatcli(["--help"], { env: baseEnv(home.path) });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: chatcli");
    const askHelp = await runChatcli(["ask", "--help"], { env: baseEnv(home.path) });
    expect(askHelp.code).toBe(0);
    expect(askHelp.stdout).toContain("--output-format");
    const version = await runChatcli(["--version"], { env: baseEnv(home.path) });
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  test("an unknown flag exits 2 with a suggestion", async () => {
    await using home = await tempDir();
    const r = await runChatcli(["ask", "--jsn", "hi"], { env: baseEnv(home.path) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--jsn'");
    expect(r.stderr).toContain("--json");
    expect(r.stdout).toBe("");
  });

  test("no provider configured: exit 3, the env vars named, one envelope with --json", async () => {
    await using home = await tempDir();
    const r = await runChatcli(["ask", "hi", "--json"], {
      env: baseEnv(home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(3);
    const env = JSON.parse(r.stdout);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(env).toMatchObject({
      type: "result",
      command: "ask",
      status: "error",
      is_error: true,
      exit_code: 3,
      terminal_reason: "config_error",
    });
    expect(env.error.message).toContain("no LLM provider configured");
    expect(r.stderr).toContain("OPENAI_API_KEY");
    expect(r.stderr).toContain("ANTHROPIC_API_KEY");
  });

  test("a key for one provider but LLM_PROVIDER naming another: exit 3 naming the key", async () => {
    await using home = await tempDir();
    const env = baseEnv(home.path, { LLM_PROVIDER: "CLAUDEAI", OPENAI_API_KEY: "sk-test" });
    const r = await runChatcli(["ask", "hi"], { env, cwd: home.path });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("ANTHROPIC_API_KEY");
  });

  test("no prompt and nothing on stdin: exit 2 no_prompt", async () => {
    await using home = await tempDir();
    const r = await runChatcli(["ask", "-m", "mock:echo", "--json"], { env: baseEnv(home.path) });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).terminal_reason).toBe("no_prompt");
  });

  test("binary stdin (NUL bytes) is refused with exit 2", async () => {
    await using home = await tempDir();
    const r = await runChatcli(["ask", "-m", "mock:echo", "what is this"], {
      env: baseEnv(home.path),
      stdin: new Uint8Array([0x50, 0x4b, 0x00, 0x01]),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("binary input");
  });

  test("stdin over --max-input-bytes: exit 2 input_too_large", async () => {
    await using home = await tempDir();
    const r = await runChatcli(
      ["ask", "-m", "mock:echo", "--max-input-bytes", "10", "--json", "x"],
      {
        env: baseEnv(home.path),
        stdin: "0123456789abcdef",
      },
    );
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).terminal_reason).toBe("input_too_large");
  });

  test("conflicting output formats are a usage error", async () => {
    await using home = await tempDir();
    const r = await runChatcli(["ask", "--json", "--output-format", "text", "hi"], {
      env: baseEnv(home.path),
    });
    expect(r.code).toBe(2);
  });
});
