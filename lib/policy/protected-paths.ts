import { isAbsolute, join, resolve, sep } from "node:path";
import type { Env } from "../core/ctx.ts";
import { chatcliHome, expandHome, userHome } from "../core/paths.ts";
import { realPathLoose } from "./workspace.ts";

/**
 * The paths whose contents nothing the agent starts may read, in every mode but bypass (CONTRACT §5):
 * credential stores, chatcli's own home (memory and sessions go through chatcli, never the shell),
 * every process's environment, and what the user adds with `sandbox.deny_read`. One list, shared by
 * the policy (shell judge, file tools) and the OS sandbox.
 */
export interface ProtectedPaths {
  /** Absolute paths (directories or files); everything under a directory is protected too. */
  paths: string[];
  /** Shapes no read may reach whatever the pid (`/proc/<pid>/environ`). */
  patterns: RegExp[];
  /** Concrete examples of `patterns`, for matching a shell glob (`/pro[c]/$PPID/environ`) against them. */
  samples: string[];
}

/** Credential stores under the home directory (CONTRACT §5). */
export const HOME_CREDENTIAL_PATHS: readonly string[] = [
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
  // git's XDG credential store (`credential.helper store` writes here when ~/.git-credentials is absent)
  ".config/git/credentials",
  // beyond the contract's list: other stores of the same kind (the sandbox hides the same ones)
  ".local/share/keyrings",
  "Library/Keychains",
  ".password-store",
  ".vault-token",
  ".pgpass",
  ".my.cnf",
  ".pypirc",
  ".gem/credentials",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".terraform.d/credentials.tfrc.json",
  ".config/hub",
  ".config/op",
];

/** Root-readable system secrets (chatcli may run as root in a container). */
export const SYSTEM_SECRET_PATHS: readonly string[] = [
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/sudoers",
  "/etc/sudoers.d",
  "/etc/security/opasswd",
  "/etc/ssh/ssh_host_rsa_key",
  "/etc/ssh/ssh_host_ecdsa_key",
  "/etc/ssh/ssh_host_ed25519_key",
  "/etc/ssh/ssh_host_dsa_key",
];

const PROC_ENVIRON = /^\/proc\/[^/]+\/(?:task\/[^/]+\/)?environ$/;
const PROC_SAMPLES = ["/proc/self/environ", "/proc/1/environ", "/proc/1/task/1/environ"];

/**
 * The protected paths for this environment (HOME, XDG_CONFIG_HOME, CHATCLI_HOME) and user config
 * (`{"sandbox": {"deny_read": ["~/secrets", "/opt/keys"]}}`; relative entries are ignored).
 */
export function protectedPaths(
  env: Env,
  userConfig?: unknown,
  allowRead: readonly string[] = [],
): ProtectedPaths {
  const home = userHome(env);
  const paths = HOME_CREDENTIAL_PATHS.map((p) => join(home, p));
  const xdg = env["XDG_CONFIG_HOME"];
  if (xdg && isAbsolute(xdg))
    paths.push(join(xdg, "gcloud"), join(xdg, "gh"), join(xdg, "git", "credentials"));
  paths.push(...SYSTEM_SECRET_PATHS, chatcliHome(env));
  for (const extra of denyReadEntries(userConfig)) {
    // `~/x` and absolute paths; a relative entry names nothing for sure and is ignored
    const expanded = expandHome(extra.trim(), env);
    if (isAbsolute(expanded)) paths.push(resolve(expanded));
  }
  return {
    paths: liftedByAllowRead([...new Set(paths)], allowRead, env),
    patterns: [PROC_ENVIRON],
    samples: PROC_SAMPLES,
  };
}

/**
 * The protected paths left once the user's `--allow-read` / `sandbox.allow_read` (absolute) are
 * applied: an entry under HOME that an allowed path names — itself, or something inside it
 * (`--allow-read ~/.pypirc`, `--allow-read ~/.ssh/known_hosts`) — is the user's to open. Naming a
 * directory above it (`--allow-read ~/.config`) opens nothing protected inside; CHATCLI_HOME and
 * everything outside HOME stay protected whatever is named.
 */
export function liftedByAllowRead(
  paths: readonly string[],
  allowRead: readonly string[],
  env: Env,
): string[] {
  if (allowRead.length === 0) return [...paths];
  const home = resolve(userHome(env));
  const own = resolve(chatcliHome(env));
  return paths.filter((d) => {
    if (!under(home, d) || d === home || under(own, d) || under(d, own)) return true;
    if (allowRead.includes(d)) return false;
    const inside = allowRead.some((a) => a !== d && under(d, a));
    const above = allowRead.some((a) => a !== d && under(a, d));
    return !(inside && !above);
  });
}

function denyReadEntries(config: unknown): string[] {
  if (!config || typeof config !== "object") return [];
  const sandbox = (config as Record<string, unknown>)["sandbox"];
  if (!sandbox || typeof sandbox !== "object") return [];
  const list = (sandbox as Record<string, unknown>)["deny_read"];
  if (!Array.isArray(list)) return [];
  return list.filter((e): e is string => typeof e === "string" && e.trim() !== "");
}

function under(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * The protected entry `abs` reads (itself or through a symlink), if any. A read of a path inside a
 * protected directory, or of the protected file itself, matches; a parent directory does not (see
 * `containsProtected` for recursive readers).
 */
export function protectedMatch(list: ProtectedPaths, abs: string): string | undefined {
  const candidates = [resolve(abs), realPathLoose(abs)];
  for (const p of list.paths) {
    const real = realPathLoose(p);
    if (candidates.some((c) => under(p, c) || under(real, c))) return p;
  }
  for (const re of list.patterns) if (candidates.some((c) => re.test(c))) return abs;
  return undefined;
}

/** The protected entries lying inside directory `abs` (what `grep -r X ~` would read). */
export function containsProtected(list: ProtectedPaths, abs: string): string[] {
  const roots = [resolve(abs), realPathLoose(abs)];
  const inside = list.paths.filter((p) =>
    roots.some((r) => under(r, p) || under(r, realPathLoose(p))),
  );
  if (roots.some((r) => list.samples.some((s) => under(r, s)))) inside.push("/proc/<pid>/environ");
  return inside;
}
