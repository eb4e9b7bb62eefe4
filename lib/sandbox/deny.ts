import { type Dirent, readdirSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { Env } from "../core/ctx.ts";
import { expandHome, userHome } from "../core/paths.ts";
import { protectedPaths } from "../policy/protected-paths.ts";

/**
 * Variables of the process environment that name a credential file or store somewhere else than
 * the default place: chatcli's own dotenv (`CHATCLI_DOTENV`, which holds the API keys), cloud and
 * tool credentials. The variables themselves are scrubbed from a child's env; the files they name
 * are hidden too, or `cat ~/keys/chatcli.env` would read what the scrub removed. (`:`-lists allowed.)
 */
export const CREDENTIAL_PATH_VARS = [
  "CHATCLI_DOTENV",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "CLOUDSDK_CONFIG",
  "AWS_SHARED_CREDENTIALS_FILE",
  "AWS_CONFIG_FILE",
  "AWS_WEB_IDENTITY_TOKEN_FILE",
  "AZURE_CONFIG_DIR",
  "KUBECONFIG",
  "DOCKER_CONFIG",
  "NETRC",
  "NPM_CONFIG_USERCONFIG",
  "GNUPGHOME",
  "PASSWORD_STORE_DIR",
  "VAULT_CONFIG_PATH",
] as const;

/**
 * The absolute paths no sandboxed process and no chatcli file tool reads: the credential stores,
 * chatcli's own home (memory and sessions go through chatcli) and the user's `sandbox.deny_read` — the
 * one list of lib/agent/protected-paths.ts, shared with the policy — plus the files the environment
 * names as credentials (CREDENTIAL_PATH_VARS). `keepVisible` (the workspace): a variable pointing at
 * it or above it is not honoured, or the workspace would vanish. `allowRead` (absolute): entries
 * under HOME the user opened by name (liftedByAllowRead); the files the environment names stay.
 */
export function deniedReadPaths(
  env: Env,
  userDenyRead: readonly string[] = [],
  keepVisible: readonly string[] = [],
  allowRead: readonly string[] = [],
): string[] {
  const out = new Set(
    protectedPaths(env, { sandbox: { deny_read: userDenyRead } }, allowRead).paths,
  );
  const keep = [userHome(env), ...keepVisible].map((p) => resolve(p));
  for (const name of CREDENTIAL_PATH_VARS) {
    for (const raw of (env[name] ?? "").split(":")) {
      if (!raw.trim()) continue;
      const p = resolve(expandHome(raw.trim(), env));
      if (p === "/" || keep.some((k) => isUnder(k, [p]))) continue;
      out.add(p);
    }
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
      /^\s*(password|token|oauth\w*|smtppass)\s*=/i.test(line) ||
      // an inline helper (`helper = "!echo password=…"`) holds the secret itself
      (section.startsWith("credential") && /^\s*helper\s*=\s*"?!/i.test(line))
    ) {
      changed = true;
      return line.replace(/=.*$/, "= [removed by chatcli's sandbox]");
    }
    return line;
  });
  if (!changed && includes.length === 0) return undefined;
  return { masked: masked.join("\n"), includes };
}

/**
 * The git config files of a workspace's git directory that a checkout or CI may leave credentials
 * in: `config`, `config.worktree` (extensions.worktreeConfig), each submodule's `modules/…/config`
 * (nested ones too) and each linked worktree's `config.worktree`. Bounded walk (depth 4, 200 files).
 */
export function gitConfigFiles(gitDir: string): string[] {
  const out = [join(gitDir, "config"), join(gitDir, "config.worktree")];
  const skip = new Set(["objects", "refs", "logs", "hooks", "info", "lfs"]);
  // submodule names may hold slashes (modules/libs/foo/config): every directory is a candidate
  const walk = (dir: string, depth: number) => {
    if (depth > 6 || out.length > 400) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory() || skip.has(e.name)) continue;
      const sub = join(dir, e.name);
      out.push(join(sub, "config"), join(sub, "config.worktree"));
      walk(sub, depth + 1);
    }
  };
  walk(join(gitDir, "modules"), 0);
  try {
    for (const name of readdirSync(join(gitDir, "worktrees")))
      out.push(join(gitDir, "worktrees", name, "config.worktree"));
  } catch {
    // no linked worktrees
  }
  return out;
}

/** Whether `path` is one of the git config files `gitConfigFiles` lists (any workspace). */
export function isGitConfigFile(path: string): boolean {
  return /\/\.git\/(?:modules\/(?:[^/]+\/)+)?config(?:\.worktree)?$|\/\.git\/worktrees\/[^/]+\/config\.worktree$/.test(
    path,
  );
}
