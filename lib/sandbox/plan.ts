/** The file-system facts a sandbox plan needs, gathered fresh for each process (links resolved). */
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { underEmptied } from "./bwrap.ts";
import { isUnder } from "./deny.ts";

export type PermissionModeName = "read-only" | "edit" | "auto" | "bypass";

function kindOf(path: string): "dir" | "file" | "missing" {
  try {
    return statSync(path).isDirectory() ? "dir" : "file";
  } catch {
    return "missing";
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** `.git/hooks`, `.git/config`, `.chatcli` of the workspace (and of its submodules' git dirs). */
export function protectedInside(workspace: string): { existing: string[]; missingDirs: string[] } {
  const existing: string[] = [];
  const missingDirs: string[] = [];
  const gitPath = join(workspace, ".git");
  let gitIsDir = false;
  try {
    const s = lstatSync(gitPath);
    if (s.isDirectory()) gitIsDir = true;
    // `.git` as a file (a worktree or submodule) names the real git dir: it must not be repointed.
    else existing.push(gitPath);
  } catch {
    // not a git work tree
  }
  const gitDirs = gitIsDir ? [gitPath] : [];
  if (gitIsDir) {
    try {
      for (const e of readdirSync(join(gitPath, "modules"), { withFileTypes: true }))
        if (e.isDirectory()) gitDirs.push(join(gitPath, "modules", e.name));
    } catch {
      // no submodules
    }
  }
  for (const dir of gitDirs) {
    const hooks = join(dir, "hooks");
    if (kindOf(hooks) === "missing") missingDirs.push(hooks);
    else existing.push(hooks);
    for (const f of ["config", "config.worktree"]) {
      const p = join(dir, f);
      if (kindOf(p) !== "missing") existing.push(p);
    }
  }
  const chatcli = join(workspace, ".chatcli");
  if (kindOf(chatcli) === "missing") missingDirs.push(chatcli);
  else existing.push(chatcli);
  return { existing, missingDirs };
}

/**
 * Denied paths that exist, split into directories and files, with links resolved (a mount covers
 * the target). Paths that are hidden anyway (under an emptied dir and not re-exposed) are skipped.
 */
export function existingDenied(
  denied: readonly string[],
  visible: readonly string[],
): { dirs: string[]; files: string[] } {
  const dirs = new Set<string>();
  const files = new Set<string>();
  for (const p of denied) {
    const target = real(p);
    const kind = kindOf(target);
    if (kind === "missing") continue;
    if (underEmptied(target) && !isUnder(target, visible)) continue;
    (kind === "dir" ? dirs : files).add(target);
  }
  return { dirs: [...dirs], files: [...files] };
}

export { real as realPathOrSelf };
