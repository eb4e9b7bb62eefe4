/**
 * `--help` as a CI author reads it: every default that changes a run's outcome is shown, and the
 * exit codes and environment variables a pipeline branches on are listed (built binary).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

/** The help line(s) of one flag, joined (commander wraps descriptions onto indented lines). */
function flagHelp(help: string, flag: string): string {
  const lines = help.split("\n");
  const start = lines.findIndex((l) => new RegExp(`^\\s+(-\\w, )?${flag}\\b`).test(l));
  if (start < 0) throw new Error(`${flag} not in help`);
  const out = [lines[start] as string];
  for (const l of lines.slice(start + 1)) {
    if (!/^\s{20,}\S/.test(l)) break;
    out.push(l);
  }
  return out.map((l) => l.trim()).join(" ");
}

async function help(command: string): Promise<string> {
  await using home = await tempDir();
  const r = await runChatcli([command, "--help"], { env: baseEnv(home.path), cwd: home.path });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  return r.stdout;
}

describe("--help of the commands CI runs", () => {
  test("ask: defaults of the flags that decide whether a job waits, retries or fails", async () => {
    const text = await help("ask");
    expect(flagHelp(text, "--stdin-timeout")).toContain("default 3s");
    expect(flagHelp(text, "--timeout")).toContain("exit 124");
    expect(flagHelp(text, "--max-retries")).toContain(
      "default 10 within the 30 s budget, or CHATCLI_MAX_RETRIES",
    );
    expect(flagHelp(text, "--memory")).toContain("read in CI");
    expect(flagHelp(text, "--max-input-bytes")).toContain("default 8 MiB");
    expect(flagHelp(text, "--output-format")).toContain("default text");
  });

  test("agent and coder: --on-ask, limits and permission defaults with their exit codes", async () => {
    for (const command of ["agent", "coder"]) {
      const text = await help(command);
      expect(flagHelp(text, "--on-ask")).toContain("(exit 6) (default deny)");
      expect(flagHelp(text, "--max-turns")).toContain("(exit 4) (default 50");
      expect(flagHelp(text, "--max-budget-usd")).toContain("exit 5");
      expect(flagHelp(text, "--permission-mode")).toContain("default read-only");
      expect(flagHelp(text, "--max-retries")).toContain("CHATCLI_MAX_RETRIES");
      expect(text).toContain("4 --max-turns   5 --max-budget-usd   6 --on-ask fail");
    }
  });

  test("ask and agent list exit codes and the provider environment", async () => {
    for (const command of ["ask", "agent"]) {
      const text = await help(command);
      expect(text).toContain("Exit codes:");
      for (const code of [
        "0 ok",
        "1 provider/API error",
        "2 usage",
        "3 config or auth",
        "124 --timeout",
      ])
        expect(text).toContain(code);
      for (const name of [
        "LLM_PROVIDER",
        "OPENAI_API_URL",
        "OLLAMA_BASE_URL",
        "CHATCLI_DOTENV",
        "CHATCLI_FALLBACK_PROVIDERS",
        "CHATCLI_STREAM_IDLE_TIMEOUT_MS",
        "CHATCLI_RETRY_MAX_MS",
        "ANTHROPIC_MAX_TOKENS",
      ])
        expect(text).toContain(name);
    }
  });
});

test("ask --max-tokens 0 is a usage error (exit 2) before any request, not a provider 400", async () => {
  await using home = await tempDir();
  const r = await runChatcli(["ask", "-m", "mock:echo", "hi", "--max-tokens", "0", "--json"], {
    env: baseEnv(home.path),
    cwd: home.path,
  });
  expect(r.code).toBe(2);
  expect(JSON.parse(r.stdout).error).toMatchObject({
    code: "usage_error",
    message: "--max-tokens must be a whole number ≥ 1",
  });
});
