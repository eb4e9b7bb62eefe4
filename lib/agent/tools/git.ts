import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { isInside, realPathLoose } from "../../policy/workspace.ts";
import { gitSafeArgs } from "../../sandbox/env.ts";
import type { Tool, ToolContext, ToolOutcome } from "../types.ts";
import { fileKind, num, resolvePath, sandboxOf, str, toolError } from "./common.ts";

/** A directory that is a git repository of its own: a `.git` entry, or a bare repository's layout. */
function isRepository(dir: string): boolean {
  if (existsSync(join(dir, ".git"))) return true;
  return ["HEAD", "objects", "refs"].every((f) => existsSync(join(dir, f)));
}

/**
 * Refuses a `dir` that is another repository inside the workspace (a committed `evil.git/` or a
 * vendored checkout): its config, not the user's, would decide what git runs.
 */
export function nestedRepository(workspaceRoot: string, dir: string): string | undefined {
  const root = realPathLoose(workspaceRoot);
  let current = realPathLoose(dir);
  if (!isInside(root, current)) return undefined;
  while (current !== root) {
    if (isRepository(current)) return current;
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return undefined;
}

/** `-c filter.NAME.clean=` … for every filter driver the repository configures (status runs them). */
async function filterOverrides(
  run: (argv: string[]) => Promise<{ stdout: string; exitCode: number | null }>,
): Promise<Array<[string, string]>> {
  const r = await run([
    "config",
    "--name-only",
    "--get-regexp",
    "^(filter\\..*\\.(clean|smudge|process)|diff\\..*\\.(textconv|command))$",
  ]);
  if (r.exitCode !== 0) return [];
  const out: Array<[string, string]> = [];
  for (const key of r.stdout
    .split("\n")
    .map((k) => k.trim())
    .filter(Boolean)) {
    out.push([key, ""]);
    if (key.startsWith("filter.")) out.push([key.replace(/\.[a-z]+$/, ".required"), "false"]);
  }
  return out;
}

async function git(
  args: string[],
  dir: string | undefined,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const resolved = resolvePath(ctx, dir ?? ".");
  if (typeof resolved === "string") return toolError(resolved);
  if ((await fileKind(resolved.abs)) !== "dir") return toolError(`${dir} is not a directory`);
  const nested = nestedRepository(ctx.workspaceRoot, resolved.abs);
  if (nested)
    return toolError(
      `${resolved.shown} is inside another repository (${nested}); chatcli's git tools only read the workspace's own repository`,
    );
  const sandbox = sandboxOf(ctx);
  // A repository's own config must not run programs from a "read" tool (core.fsmonitor runs on
  // status, filters on status and diff, gpg on signatures); the sandbox confines whatever is left.
  const env = {
    ...sandbox.childEnv(ctx.env),
    GIT_OPTIONAL_LOCKS: "0",
    // discovery stops at the workspace: a repository above it (a dotfiles $HOME) is not ours to read
    GIT_CEILING_DIRECTORIES: dirname(realPathLoose(ctx.workspaceRoot)),
  };
  const spawnGit = (argv: string[]) =>
    sandbox.run(["git", "--no-pager", ...gitSafeArgs(), ...argv], {
      cwd: resolved.abs,
      env,
      timeoutMs: 60_000,
      signal: ctx.signal,
    });
  const overrides = await filterOverrides(spawnGit);
  const result = await spawnGit([...overrides.flatMap(([k, v]) => ["-c", `${k}=${v}`]), ...args]);
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
      "--no-show-signature",
      "--no-ext-diff",
      "--format=%h %ad %s",
      "--date=short",
    ];
    const path = str(args, "path");
    if (path) argv.push("--", path);
    return git(argv, str(args, "dir"), ctx);
  },
};
