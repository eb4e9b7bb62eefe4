import { isAbsolute, join, relative, resolve } from "node:path";
import { protectedPaths } from "../agent/protected-paths.ts";
import type { Env } from "../core/ctx.ts";

/**
 * The absolute paths no sandboxed process and no chatcli file tool reads: the credential stores,
 * chatcli's own home (memory and sessions go through chatcli), and the user's `sandbox.deny_read` —
 * the one list of lib/agent/protected-paths.ts, shared with the policy.
 */
export function deniedReadPaths(env: Env, userDenyRead: readonly string[] = []): string[] {
  return protectedPaths(env, { sandbox: { deny_read: userDenyRead } }).paths;
}

/** Whether `path` is one of `denied` or lies under one. */
export function isUnder(path: string, denied: readonly string[]): boolean {
  return denied.some((d) => {
    const rel = relative(d, path);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
}

/** `/proc/<anything>/environ`: another process's environment (chatcli's own holds the API keys). */
export function isProcEnviron(path: string): boolean {
  return /^\/proc\/[^/]+\/(task\/[^/]+\/)?environ$/.test(path);
}

/**
 * Credentials CI leaves in a checkout's git config (actions/checkout's `http.…extraheader =
 * AUTHORIZATION: basic …`, a remote URL with `user:token@`): the lines to blank in the view a sandboxed
 * process gets, and the included files (`[include] path`, `[includeIf …] path`) it must not read.
 */
export function gitConfigSecrets(text: string): { masked: string; includes: string[] } | undefined {
  const lines = text.split("\n");
  let changed = false;
  const includes: string[] = [];
  let section = "";
  const masked = lines.map((line) => {
    const head = /^\s*\[([^\]]+)\]/.exec(line);
    if (head) section = (head[1] as string).toLowerCase();
    const inc = /^\s*path\s*=\s*(.+?)\s*$/i.exec(line);
    if (inc && section.startsWith("include"))
      includes.push((inc[1] as string).replace(/^"|"$/g, ""));
    if (
      /^\s*extraheader\s*=/i.test(line) ||
      /authorization\s*:/i.test(line) ||
      /:\/\/[^/\s:@]+:[^/\s@]+@/.test(line) ||
      /^\s*(password|token|oauth\w*)\s*=/i.test(line)
    ) {
      changed = true;
      return line.replace(/=.*$/, "= [removed by chatcli's sandbox]");
    }
    return line;
  });
  if (!changed && includes.length === 0) return undefined;
  return { masked: masked.join("\n"), includes };
}
