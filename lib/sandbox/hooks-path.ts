/**
 * `core.hooksPath`: git runs the hooks of the directory it names instead of `.git/hooks`. When that
 * directory lies in the workspace (husky: `core.hooksPath = .husky/_`, whose stubs run
 * `.husky/<hook>`), a command that writes there leaves code for the user's next `git commit`,
 * outside the sandbox. plan.ts keeps it read-only in edit and auto, like `.git/hooks`.
 */
import { lstatSync, readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { Env } from "../core/ctx.ts";
import { expandHome, userHome } from "../core/paths.ts";
import { within } from "./home.ts";

/** The `core.hooksPath` values of one git config text (any spelling of the key; quotes removed). */
export function hooksPathValues(text: string): string[] {
  const out: string[] = [];
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const head = /^\[\s*([^\]\s"]+)[^\]]*\]\s*(.*)$/.exec(line);
    if (head) {
      section = (head[1] as string).toLowerCase();
      // `[core] hooksPath = x` on one line
      if (!head[2]) continue;
    }
    const body = head ? (head[2] as string) : line;
    if (section !== "core") continue;
    const kv = /^hookspath\s*=\s*(.*)$/i.exec(body);
    if (!kv) continue;
    let value = (kv[1] as string).trim();
    if (value.startsWith('"'))
      value = value.slice(1, value.indexOf('"', 1) > 0 ? value.indexOf('"', 1) : undefined);
    else value = value.replace(/\s[#;].*$/, "").trim();
    if (value) out.push(value);
  }
  return out;
}

/** The config files that may set core.hooksPath for a workspace's repository. */
export function hooksPathConfigs(workspace: string, env: Env): string[] {
  const home = userHome(env);
  const xdg = env["XDG_CONFIG_HOME"];
  return [
    "/etc/gitconfig",
    join(home, ".gitconfig"),
    join(xdg && isAbsolute(xdg) ? xdg : join(home, ".config"), "git", "config"),
    join(workspace, ".git", "config"),
    join(workspace, ".git", "config.worktree"),
  ];
}

/**
 * The directories inside `workspace` that a core.hooksPath of these config files names (relative
 * values are relative to the work tree, `~/` to HOME); for husky's `.husky/_`, its parent too. An
 * existing `.husky/` counts even before husky set core.hooksPath (a fresh clone: the user's next
 * `npm install` runs husky's `prepare`, which sets it, and their commit then runs `.husky/<hook>`).
 */
export function hooksPathDirs(workspace: string, configs: readonly string[], env: Env): string[] {
  const ws = resolve(workspace);
  const out = new Set<string>();
  try {
    if (lstatSync(join(ws, ".husky")).isDirectory()) out.add(join(ws, ".husky"));
  } catch {
    // no husky here
  }
  for (const file of configs) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const value of hooksPathValues(text)) {
      const expanded = expandHome(value, env);
      const dir = isAbsolute(expanded) ? resolve(expanded) : resolve(ws, expanded);
      if (!within(dir, ws) || dir === ws) continue;
      out.add(dir);
      if (basename(dir) === "_" && dirname(dir) !== ws) out.add(dirname(dir));
    }
  }
  return [...out];
}
