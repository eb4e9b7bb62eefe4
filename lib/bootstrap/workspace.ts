import { statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** No exception for a missing path: walking up to / would otherwise throw (and cost) at every level. */
function isDir(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/**
 * The nearest ancestor of `cwd` (itself included) holding a `.agent` or `.git` *directory*, or
 * undefined. A `.git` file (worktree, submodule) does not count, as in the Go tool.
 */
export function findProjectDir(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    if (isDir(join(dir, ".agent")) || isDir(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The workspace root: the nearest `.agent`/`.git` directory's parent walking up from cwd, else cwd. */
export function detectWorkspaceRoot(cwd: string): string {
  return findProjectDir(cwd) ?? resolve(cwd);
}
