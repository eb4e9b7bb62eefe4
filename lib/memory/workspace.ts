import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Reference §1.1: nearest ancestor with a `.agent` or `.git` directory, else `cwd`. */
export function detectWorkspace(cwd: string): string {
  let dir = resolve(cwd);
  for (;;) {
    if (isDir(`${dir}/.agent`) || isDir(`${dir}/.git`)) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(cwd);
    dir = parent;
  }
}
