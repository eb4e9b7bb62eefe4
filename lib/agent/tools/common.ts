import { lstat, readlink, stat } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { containsProtected, protectedMatch } from "../../policy/protected-paths.ts";
import {
  displayPath,
  isInside,
  isProtectedWrite,
  isSensitivePath,
  realPathLoose,
  toAbsolute,
} from "../../policy/workspace.ts";
import { Sandbox } from "../../sandbox/sandbox.ts";
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

/** Whether a file found while walking a directory is protected (itself, or through a link). */
export function isProtectedEntry(ctx: ToolContext, abs: string): boolean {
  return ctx.protectedPaths !== undefined && protectedMatch(ctx.protectedPaths, abs) !== undefined;
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

/**
 * Where a write to `abs` lands, links followed one by one (a dangling link names where it would
 * create the file). A link whose target leaves the workspace is refused — a committed
 * `notes.txt -> ~/.ssh/authorized_keys` does not turn write_file into a write anywhere — except in
 * bypass mode. The returned target is never a link, so the write cannot be redirected again.
 */
export async function writeTarget(
  ctx: ToolContext,
  abs: string,
  shown: string,
): Promise<{ target: string; nlink: number; exists: boolean } | string> {
  let current = abs;
  for (let hops = 0; ; hops++) {
    if (hops > 40) return `${shown}: too many levels of symbolic links`;
    const s = await lstat(current).catch(() => undefined);
    if (!s) return { target: current, nlink: 0, exists: false };
    if (!s.isSymbolicLink()) {
      if (current !== abs) {
        const refused = linkRefusal(ctx, current, shown);
        if (refused) return refused;
      }
      return { target: current, nlink: s.nlink, exists: true };
    }
    current = resolve(dirname(current), await readlink(current));
    const refused = linkRefusal(ctx, current, shown);
    if (refused) return refused;
  }
}

function linkRefusal(ctx: ToolContext, target: string, shown: string): string | undefined {
  if (ctx.sandbox?.permissionMode === "bypass") return undefined;
  const real = realPathLoose(target);
  if (!isInside(ctx.workspaceRoot, real))
    return `${shown} is a symbolic link to ${target}, outside the workspace; it is not followed (replace the link with a file, or use --permission-mode bypass)`;
  if (isProtectedWrite(real) || isSensitivePath(real) || ctx.sandbox?.refusesRead(real))
    return `${shown} is a symbolic link to the protected path ${target}; it is not followed`;
  return undefined;
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

/** The run's sandbox, or one that confines nothing when a tool runs outside an agent (unit tests). */
export function sandboxOf(ctx: ToolContext): Sandbox {
  return ctx.sandbox ?? Sandbox.none(ctx.env, ctx.workspaceRoot);
}
