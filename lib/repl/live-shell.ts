import { actionOf } from "../agent/action.ts";

import { runCommandTool, runShell } from "../agent/tools/run-command.ts";
import type { Ctx, Env } from "../core/ctx.ts";
import type { ChatcliConfig } from "../core/settings.ts";
import { stripControl } from "../output/terminal.ts";
import { decide } from "../policy/permissions.ts";
import { buildPolicy } from "../run/policy.ts";
import { openRunSandbox } from "../run/sandbox.ts";
import { userSandboxConfig } from "../sandbox/detect.ts";
import { allowReadPaths } from "../sandbox/home.ts";

/** How long a `!command` may run before it is stopped. */
const SHELL_TIMEOUT_S = 600;

export interface ShellResult {
  /** Why the policy refused it (nothing ran). */
  denied?: string;
  output: string;
  exitCode: number | null;
}

export interface ReplShellInput {
  ctx: Ctx;
  env: Env;
  config: ChatcliConfig;
  workspaceRoot: string;
  command: string;
  signal: AbortSignal;
  /** A dangerous command runs only when the human types the word yes. */
  confirmDangerous(reason: string): Promise<boolean>;
  /** Warnings about the sandbox (unavailable, off). */
  onNotice(line: string): void;
}

/**
 * `!command` in the REPL: the human typed it, so what the policy would ask about runs — but deny rules
 * and protected paths still refuse it, a dangerous command still needs a typed yes, and it runs in the
 * same OS sandbox as the agent's commands (its one approved write in read-only mode included).
 */
export async function runReplShell(input: ReplShellInput): Promise<ShellResult> {
  const { ctx, env } = input;
  // the one policy of every run: a bad permissions.mode is the same config error as headless
  const { policy } = buildPolicy({
    env,
    config: input.config,
    workspaceRoot: input.workspaceRoot,
    cwd: ctx.cwd,
    // the paths the user's config opens in HOME (sandbox.allow_read) are not protected here either
    allowRead: allowReadPaths((await userSandboxConfig(ctx.env)).allowRead, ctx.env),
  });
  const mode = policy.mode;
  const args = { cmd: input.command };
  // its output is offered to the model: credential stores stay out of it (protected paths)
  const decision = decide(policy, actionOf(runCommandTool, args));
  if (decision.verdict === "deny" && !decision.dangerous) {
    return { denied: decision.reason, output: "", exitCode: null };
  }
  if (decision.dangerous && !(await input.confirmDangerous(decision.reason))) {
    return { denied: `${decision.reason} (not confirmed)`, output: "", exitCode: null };
  }
  const sandbox = await openRunSandbox(ctx, {}, mode, input.workspaceRoot, (event) => {
    if (event.type === "warning") input.onNotice(`warning: ${event.message}`);
  });
  try {
    const outcome = await runShell(input.command, undefined, SHELL_TIMEOUT_S, {
      workspaceRoot: input.workspaceRoot,
      cwd: ctx.cwd,
      env,
      signal: input.signal,
      fetch: ctx.fetch,
      now: ctx.now,
      sandbox,
      humanApproved: true,
    });
    // the exit code is shown (and sent) on its own: drop the tool format's first line
    const output = stripControl(outcome.output).replace(/^exit code: \S+\n?/m, "");
    return { output, exitCode: outcome.exitCode ?? null };
  } finally {
    sandbox.dispose();
  }
}
