import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { realPathLoose } from "./workspace.ts";

function kind(p: string): "file" | "dir" | undefined {
  try {
    const s = statSync(p);
    return s.isFile() ? "file" : s.isDirectory() ? "dir" : undefined;
  } catch {
    return undefined;
  }
}

/** A directory git would take as a (bare) repository: HEAD, objects/ and refs/. */
function looksLikeGitDir(dir: string): boolean {
  return (
    kind(join(dir, "HEAD")) === "file" &&
    kind(join(dir, "objects")) === "dir" &&
    kind(join(dir, "refs")) === "dir"
  );
}

/**
 * A repository git would use from `dir` that is not the workspace's own: a committed bare repository
 * (`evil.git/` with its own `config`: core.fsmonitor, diff.external …) between `dir` and the
 * workspace root, or a `--git-dir` naming one. Its configuration can make `git status` run programs.
 */
export function foreignRepository(
  workspaceRoot: string,
  dir: string,
  gitDirs: string[] = [],
): string | undefined {
  for (const g of gitDirs)
    if (looksLikeGitDir(g) && realPathLoose(g) !== realPathLoose(join(workspaceRoot, ".git")))
      return g;
  const root = realPathLoose(workspaceRoot);
  let current = realPathLoose(dir);
  if (current !== root && !current.startsWith(`${root}/`)) return undefined;
  while (current !== root) {
    if (looksLikeGitDir(current) || looksLikeGitDir(join(current, ".git"))) return current;
    const up = dirname(current);
    if (up === current) break;
    current = up;
  }
  return undefined;
}
