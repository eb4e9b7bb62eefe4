/**
 * A producer that never closes stdin (`tail -f build.log | chatcli ask`) must not keep a stopped run
 * alive: --timeout and SIGTERM end the read at once with the usual exit code and a complete envelope
 * (built binary). Synchronisation: the kernel's record of installed signal handlers, not sleeps.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { BINARY, baseEnv, requireBinary, runShell, spawnChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

/** Resolves once the process has a SIGTERM handler installed (bit 15 of SigCgt in /proc). */
async function sigtermHandled(pid: number): Promise<void> {
  for (;;) {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const mask = /SigCgt:\s*([0-9a-f]+)/.exec(status)?.[1] ?? "0";
    if ((BigInt(`0x${mask}`) >> 14n) & 1n) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("stdin that never closes", () => {
  for (const command of ["ask", "agent"]) {
    test(`${command} --timeout: exit 124 with the envelope while stdin is still open`, async () => {
      await using home = await tempDir();
      const run = spawnChatcli([command, "-m", "mock:echo", "--json", "--timeout", "300ms"], {
        env: baseEnv(home.path),
        cwd: home.path,
        stdin: "pipe-open",
      });
      run.proc.stdin.write("2026-11-29 building… (no newline, no EOF)");
      run.proc.stdin.flush();
      const r = await run.done;
      expect(r.code).toBe(124);
      expect(JSON.parse(r.stdout)).toMatchObject({
        command,
        exit_code: 124,
        terminal_reason: "timeout",
        error: { code: "timeout" },
      });
      expect(r.stderr).toContain("--timeout");
    });

    test(`${command}: SIGTERM while reading stdin exits 143 at once with the cancelled envelope`, async () => {
      await using home = await tempDir();
      const run = spawnChatcli([command, "-m", "mock:echo", "--json"], {
        env: baseEnv(home.path),
        cwd: home.path,
        stdin: "pipe-open",
      });
      run.proc.stdin.write("first lines of a log that keeps growing\n");
      run.proc.stdin.flush();
      await sigtermHandled(run.proc.pid);
      run.proc.kill("SIGTERM");
      const r = await run.done;
      expect(r.code).toBe(143);
      expect(JSON.parse(r.stdout)).toMatchObject({
        command,
        exit_code: 143,
        terminal_reason: "cancelled",
        is_error: true,
      });
    });
  }
});

test("agent --jsonl | head -1: exit 141 and nothing on stderr (as ask)", async () => {
  await using home = await tempDir();
  await using llm = await startMockLlm();
  llm.push({ text: "x".repeat(200_000) });
  const script = `"${BINARY}" agent "summarise" --jsonl | head -1 >/dev/null; echo "rc=\${PIPESTATUS[0]}"`;
  const { stdout: out, stderr: err } = await runShell(script, {
    env: baseEnv(home.path, llm.env("openai")),
    cwd: home.path,
  });
  expect(out.trim()).toBe("rc=141");
  expect(err).toBe("");
});
