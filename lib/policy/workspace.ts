import { realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** Resolves symlinks of the longest existing prefix, so a path through a link shows where it lands. */
export function realPathLoose(path: string): string {
  const abs = resolve(path);
  const rest: string[] = [];
  let current = abs;
  for (;;) {
    try {
      const real = realpathSync(current);
      return rest.length ? join(real, ...rest.reverse()) : real;
    } catch {
      const parent = dirname(current);
      if (parent === current) return abs;
      rest.push(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      current = parent;
    }
  }
}

/** The absolute path a tool argument names (relative to cwd), without resolving links. */
export function toAbsolute(cwd: string, path: string, home?: string): string {
  if (home && (path === "~" || path.startsWith("~/"))) return join(home, path.slice(1));
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/** Whether `path` (links resolved) lies inside `root` (links resolved). */
export function isInside(root: string, path: string): boolean {
  const r = realPathLoose(root);
  const p = realPathLoose(path);
  const rel = relative(r, p);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Path shown to humans and matched by rules: relative to the root when inside it. */
export function displayPath(root: string, abs: string): string {
  const rel = relative(realPathLoose(root), realPathLoose(abs));
  if (rel === "") return ".";
  return rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
}

/** Like displayPath, but the last component is not followed (a symlink is shown as itself). */
export function displayEntry(root: string, abs: string): string {
  const dir = displayPath(root, dirname(abs));
  const name = abs.slice(dirname(abs).length).replace(/^\//, "");
  return dir === "." ? name : join(dir, name);
}

const SENSITIVE = [
  /^\/etc\/(shadow|gshadow|sudoers)/,
  /^\/(proc|sys|dev|boot)\//,
  /\/\.ssh(\/|$)/,
  /\/\.gnupg(\/|$)/,
  /\/\.aws\/credentials$/,
  /\/\.kube\/config$/,
];

/** Files no tool reads or writes without bypass: credentials and kernel interfaces. */
export function isSensitivePath(abs: string): boolean {
  const p = realPathLoose(abs);
  return SENSITIVE.some((re) => re.test(p) || re.test(abs));
}

/**
 * Workspace files a write would turn into code execution or a permission change: anything inside
 * a `.git` directory (hooks, config with core.fsmonitor …) and the project's `.chatcli/config.json`.
 */
export function isProtectedWrite(abs: string): boolean {
  const check = (p: string) => /\/\.git(\/|$)/.test(p) || /\/\.chatcli\/config\.json$/.test(p);
  return check(abs) || check(realPathLoose(abs));
}
