import { stat } from "node:fs/promises";
import { relative } from "node:path";
import { containsProtected, protectedMatch } from "../../policy/protected-paths.ts";
import {
  displayPath,
  isInside,
  isProtectedWrite,
  isSensitivePath,
  toAbsolute,
} from "../../policy/workspace.ts";
import type { FileOps } from "../../sandbox/file-ops.ts";
import { Sandbox } from "../../sandbox/sandbox.ts";
import { Refusal } from "../../sandbox/walk.ts";
import type { ToolContext, ToolOutcome } from "../types.ts";

/** An error result the model can act on. */
export function toolError(message: string): ToolOutcome {
  return { output: `error: ${message}`, isError: true, summary: "error" };
}

/** Resolves a tool's path argument; refuses credentials and kernel files. */
export function resolvePath(
  ctx: ToolContext,
  path: string,
): { abs: string; shown: string } | string {
  const abs = toAbsolute(ctx.cwd, path, ctx.env["HOME"]);
  if (isSensitivePath(abs)) return `${path} is a protected system or credentials path`;
  // HOME by allowlist: the same HOME a command sees (the workspace, the toolchain set, --allow-read)
  const hidden = ctx.sandbox?.homeRefusal(abs);
  if (hidden) return hidden;
  const hit = ctx.protectedPaths && protectedMatch(ctx.protectedPaths, abs);
  if (hit)
    return `${path} is a protected path (${hit}: credentials, chatcli's home or a process environment); it is not read in any mode but bypass`;
  if (ctx.sandbox?.refusesRead(abs)) return `${path} is a protected system or credentials path`;
  return { abs, shown: displayPath(ctx.workspaceRoot, abs) };
}

/** Resolves a path a tool will write: it must stay inside the workspace (links resolved). */
export function resolveWritePath(
  ctx: ToolContext,
  path: string,
  allowOutside: boolean,
): { abs: string; shown: string } | string {
  const resolved = resolvePath(ctx, path);
  if (typeof resolved === "string") return resolved;
  if (!allowOutside && isProtectedWrite(resolved.abs))
    return `${path} is protected (git internals and .chatcli/config.json are not written by tools)`;
  if (!allowOutside && !isInside(ctx.workspaceRoot, resolved.abs)) {
    return `${path} is outside the workspace ${ctx.workspaceRoot}`;
  }
  return resolved;
}

/** ripgrep `--glob '!…'` exclusions for the protected paths inside a search root. */
export function protectedGlobs(ctx: ToolContext, root: string): string[] {
  if (!ctx.protectedPaths) return [];
  const out: string[] = [];
  for (const p of containsProtected(ctx.protectedPaths, root)) {
    const rel = p.startsWith("/proc/<pid>")
      ? `${relative(root, "/proc") || "."}/*/environ`
      : relative(root, p);
    if (!rel || rel.startsWith("..")) continue;
    const clean = rel.replace(/^\.\//, "");
    out.push(`!${clean}`, `!${clean}/**`);
    if (p.startsWith("/proc/<pid>")) out.push(`!${clean.replace(/environ$/, "task/*/environ")}`);
  }
  return out;
}

/** Why a file operation failed, in words: a refusal of the walk as it is, an errno error briefly. */
export function fileErrorText(error: unknown): string {
  if (error instanceof Refusal) return error.message;
  const e = error as NodeJS.ErrnoException;
  if (e?.code === "EROFS") return "read-only in this run's sandbox";
  if (e?.code === "EACCES" || e?.code === "EPERM") return "permission denied";
  return e?.message ?? String(error);
}

/**
 * The error result for a file operation that failed: a refusal of the walk (a link out of the
 * workspace, a protected path) as it is, an errno error with the path the model named.
 */
export function fileError(shown: string, error: unknown): ToolOutcome {
  const why = fileErrorText(error);
  return toolError(error instanceof Refusal ? why : `${shown}: ${why}`);
}

/** What is at a path (links followed). */
export async function fileKind(abs: string): Promise<"file" | "dir" | "missing" | "other"> {
  try {
    const s = await stat(abs);
    return s.isFile() ? "file" : s.isDirectory() ? "dir" : "other";
  } catch {
    return "missing";
  }
}

/** A string argument, or undefined. */
export function str(args: Record<string, unknown>, name: string): string | undefined {
  const v = args[name];
  return typeof v === "string" ? v : undefined;
}

/** A number argument, or undefined. */
export function num(args: Record<string, unknown>, name: string): number | undefined {
  const v = args[name];
  return typeof v === "number" ? v : undefined;
}

/** Directories no listing or search descends into. */
export const SKIP_DIRS = new Set([
  ".git",
  "node_modules",
  ".hg",
  ".svn",
  "dist",
  ".venv",
  "__pycache__",
]);

/**
 * Where a file tool does its file-system work: the run's sandboxed worker (or, without a sandbox,
 * this process through the no-follow walk), refusing the policy's protected paths too.
 */
export function filesOf(ctx: ToolContext, write: boolean): FileOps {
  return sandboxOf(ctx).files({ write, protect: ctx.protectedPaths });
}

/** The run's sandbox, or one that confines nothing when a tool runs outside an agent (unit tests). */
export function sandboxOf(ctx: ToolContext): Sandbox {
  return ctx.sandbox ?? Sandbox.none(ctx.env, ctx.workspaceRoot);
}
