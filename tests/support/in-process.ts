/**
 * `chatcli ARGS` in-process (STYLE §10): the same argv, env, cwd and stdin as a spawned binary,
 * through runCli with a test Ctx — for e2e tests where the binary adds nothing (no signals, no
 * TTY, no process-level behaviour). Same result shape as binary.ts's runChatcli.
 */
import { runCli } from "../../commands/cli.ts";
import { clockFromEnv } from "../../lib/core/clock.ts";
import { withTestClock } from "./binary.ts";
import { testCtx } from "./ctx.ts";

export async function runInProcess(
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    cwd?: string;
    stdin?: string | Uint8Array;
  } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = withTestClock(options.env as Record<string, string> | undefined) ?? {};
  const ctx = testCtx({
    env,
    now: clockFromEnv(env),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
  });
  const code = await runCli(args, ctx);
  return { code, stdout: ctx.out(), stderr: ctx.err() };
}
