import { filteredNote } from "../../sandbox/env.ts";
import type { Tool, ToolContext, ToolOutcome } from "../types.ts";
import { fileKind, num, resolvePath, sandboxOf, str, toolError } from "./common.ts";
import { formatProcessOutput } from "./process.ts";

const DEFAULT_TIMEOUT_S = 600;

/** Runs `sh -c command` in `dir` inside the run's sandbox, with a timeout and a scrubbed environment. */
export async function runShell(
  command: string,
  dir: string | undefined,
  timeoutS: number,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const resolved = resolvePath(ctx, dir ?? ".");
  if (typeof resolved === "string") return toolError(resolved);
  if ((await fileKind(resolved.abs)) !== "dir") return toolError(`${dir} is not a directory`);
  const timeoutMs = timeoutS * 1000;
  const sandbox = sandboxOf(ctx);
  if (sandbox.shellRefusal) return toolError(sandbox.shellRefusal);
  const result = await sandbox.run(["sh", "-c", command], {
    cwd: resolved.abs,
    env: sandbox.childEnv(ctx.env),
    humanApproved: ctx.humanApproved === true,
    network: true,
    timeoutMs,
    signal: ctx.signal,
  });
  const failed = result.exitCode !== 0;
  // a failure may come from a variable the core environment left out: name them, never values
  const note =
    failed && !result.aborted ? filteredNote(sandbox.filteredEnvNames(ctx.env)) : undefined;
  return {
    output: formatProcessOutput(result, timeoutMs) + (note ? `\n${note}` : ""),
    isError: failed,
    exitCode: result.exitCode,
    summary: result.timedOut ? "timed out" : `exit ${result.exitCode ?? "?"}`,
  };
}

/** run_command: a shell command, judged part by part by the permission policy before it runs. */
export const runCommandTool: Tool = {
  name: "run_command",
  description:
    "Run a shell command (sh -c) and return its exit code and output. The command gets a core environment (PATH, HOME, locale, CI and toolchain variables); other variables only when the user passes them.",
  input_schema: {
    type: "object",
    properties: {
      cmd: { type: "string" },
      dir: { type: "string", description: "default: cwd" },
      timeout: {
        type: "integer",
        minimum: 1,
        description: `seconds (default ${DEFAULT_TIMEOUT_S})`,
      },
    },
    required: ["cmd"],
  },
  kind: "shell",
  subject: (args) => str(args, "cmd") ?? "",
  execute(args, ctx) {
    return runShell(
      str(args, "cmd") as string,
      str(args, "dir"),
      num(args, "timeout") ?? DEFAULT_TIMEOUT_S,
      ctx,
    );
  },
};
