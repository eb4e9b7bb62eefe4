import type { Tool, ToolContext, ToolOutcome } from "../types.ts";
import { fileKind, num, resolvePath, str, toolError } from "./common.ts";
import { scrubEnv, spawnCapture } from "./process.ts";

async function git(
  args: string[],
  dir: string | undefined,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const resolved = resolvePath(ctx, dir ?? ".");
  if (typeof resolved === "string") return toolError(resolved);
  if ((await fileKind(resolved.abs)) !== "dir") return toolError(`${dir} is not a directory`);
  // A repository's own config must not run programs from a "read" tool (core.fsmonitor runs on status).
  const safe = ["-c", "core.fsmonitor=false", "-c", "core.pager=cat"];
  const result = await spawnCapture(["git", "--no-pager", ...safe, ...args], {
    cwd: resolved.abs,
    env: { ...scrubEnv(ctx.env), GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" },
    timeoutMs: 60_000,
    signal: ctx.signal,
  });
  if (result.exitCode !== 0) {
    // `git log` on a repository without commits is not a failure the model should fix.
    if (args[0] === "log" && /does not have any commits yet/.test(result.stderr)) {
      return { output: "(no commits yet)", exitCode: 0 };
    }
    return {
      ...toolError(result.stderr.trim() || `git exited ${result.exitCode}`),
      exitCode: result.exitCode,
    };
  }
  const out = result.stdout.trimEnd();
  return {
    output: out || "(no output)",
    exitCode: 0,
    summary: `${out ? out.split("\n").length : 0} lines`,
  };
}

const dirProp = {
  type: "string",
  description: "repository (default: cwd)",
};

/** git_status: short status with branch. */
export const gitStatusTool: Tool = {
  name: "git_status",
  description: "`git status --short --branch`.",
  input_schema: { type: "object", properties: { dir: dirProp } },
  kind: "read",
  subject: (args) => str(args, "dir") ?? ".",
  execute: (args, ctx) => git(["status", "--short", "--branch"], str(args, "dir"), ctx),
};

/** git_diff: working-tree or staged diff, optionally names only or one path. */
export const gitDiffTool: Tool = {
  name: "git_diff",
  description: "Working-tree diff (staged=true: the index), optionally of one path.",
  input_schema: {
    type: "object",
    properties: {
      dir: dirProp,
      staged: { type: "boolean" },
      name_only: { type: "boolean" },
      path: { type: "string" },
      context: { type: "integer", minimum: 0, description: "context lines (default 3)" },
    },
  },
  kind: "read",
  subject: (args) => str(args, "path") ?? ".",
  execute(args, ctx) {
    const argv = ["diff", "--no-color", "--no-ext-diff", "--no-textconv"];
    argv.push(`-U${num(args, "context") ?? 3}`);
    if (args["staged"] === true) argv.push("--staged");
    if (args["name_only"] === true) argv.push("--name-only");
    const path = str(args, "path");
    if (path) argv.push("--", path);
    return git(argv, str(args, "dir"), ctx);
  },
};

/** git_log: one line per commit. */
export const gitLogTool: Tool = {
  name: "git_log",
  description: "Recent commits, one line each: hash, date, subject.",
  input_schema: {
    type: "object",
    properties: {
      dir: dirProp,
      limit: { type: "integer", minimum: 1, description: "commits (default 20)" },
      path: { type: "string" },
    },
  },
  kind: "read",
  subject: (args) => str(args, "path") ?? ".",
  execute(args, ctx) {
    const argv = [
      "log",
      "--no-color",
      `-n${num(args, "limit") ?? 20}`,
      "--format=%h %ad %s",
      "--date=short",
    ];
    const path = str(args, "path");
    if (path) argv.push("--", path);
    return git(argv, str(args, "dir"), ctx);
  },
};
