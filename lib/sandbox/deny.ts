import { isAbsolute, join, relative, resolve } from "node:path";
import type { Env } from "../core/ctx.ts";
import { chatcliHome, expandHome, userHome } from "../core/paths.ts";

/** Credential stores under the home directory that nothing the agent runs may read (CONTRACT §5). */
export const HOME_CREDENTIALS = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gcloud",
  ".azure",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".npmrc",
  ".config/gh",
  ".git-credentials",
] as const;

/**
 * The absolute paths no sandboxed process and no chatcli file tool reads: the credential stores,
 * chatcli's own home (memory and sessions go through chatcli), and the user's `sandbox.deny_read`.
 */
export function deniedReadPaths(env: Env, userDenyRead: readonly string[] = []): string[] {
  const home = userHome(env);
  const out = new Set<string>();
  for (const rel of HOME_CREDENTIALS) out.add(join(home, rel));
  out.add(chatcliHome(env));
  for (const raw of userDenyRead) {
    if (typeof raw !== "string" || !raw.trim()) continue;
    const p = expandHome(raw.trim(), env);
    if (isAbsolute(p)) out.add(resolve(p));
  }
  return [...out];
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
