import type { Env } from "../core/ctx.ts";

/** *KEY*, *TOKEN*, *SECRET*, *PASSWORD* (the contract) and their usual cousins (DB_PASS, MYSQL_PWD …). */
const SECRET_NAME =
  /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|AUTH(?!OR)|COOKIE|_PASS$|_PWD$|^PGPASS|^AWS_|^AZURE_|^GOOGLE_APPLICATION|^CLOUDSDK_|^VAULT_|^NPM_CONFIG__AUTH/i;

/** Variables that hand a child a live credential through a socket or a ticket, not a value. */
const AGENT_HANDLES = new Set([
  "SSH_AUTH_SOCK",
  "SSH_AGENT_PID",
  "GPG_AGENT_INFO",
  "DBUS_SESSION_BUS_ADDRESS",
  "KRB5CCNAME",
  "DOCKER_HOST",
  "XAUTHORITY",
]);

/** Values that carry a secret whatever the variable's name: URLs with a password, known key shapes. */
const SECRET_VALUE =
  /:\/\/[^/\s:@]+:[^/\s@]+@|\b(sk-[A-Za-z0-9_-]{16,}|sk-ant-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,})|-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/** Whether a variable is kept out of child processes (unless passed by name with --pass-env). */
export function isSecretVariable(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || AGENT_HANDLES.has(name) || SECRET_VALUE.test(value);
}

/**
 * Variables that make a program run code of the caller's choosing (the dynamic loader, runtimes'
 * preload options, shells' start-up files, git's and ripgrep's config and program paths, the
 * search PATH itself). A value for one of them that did not come from the process environment
 * came from a file — a checkout's `.env` or `.chatcli/config.json` — and must not reach a process
 * chatcli starts: `LD_PRELOAD=./evil.so` or `PATH=./bin:…` ran committed code unconfined.
 */
const INJECTING =
  /^(LD_|DYLD_|GLIBC_TUNABLES$|GCONV_PATH$|BUN_|NODE_OPTIONS$|NODE_PATH$|GIT_|RIPGREP_CONFIG_PATH$|PATH$|BASH_ENV$|ENV$|SHELLOPTS$|BASHOPTS$|PS4$|PROMPT_COMMAND$|IFS$|PYTHONSTARTUP$|PYTHONPATH$|PYTHONHOME$|PERL5OPT$|PERL5LIB$|PERLLIB$|RUBYOPT$|RUBYLIB$|JAVA_TOOL_OPTIONS$|_JAVA_OPTIONS$|JDK_JAVA_OPTIONS$|NPM_CONFIG_|PAGER$|EDITOR$|VISUAL$|LESSOPEN$|LESSCLOSE$)/;

/**
 * `env` (settings: process env over files) with every code-injecting variable taken from the
 * process environment `processEnv` alone: what a file set for one of them is dropped.
 */
export function withoutFileInjected(
  env: Readonly<Record<string, string | undefined>>,
  processEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (INJECTING.test(name) && processEnv[name] !== value) {
      const own = processEnv[name];
      if (own !== undefined) out[name] = own;
      continue;
    }
    out[name] = value;
  }
  return out;
}

/**
 * The environment a child process gets: variables that look like credentials are removed, except the
 * names in `pass` (`--pass-env NAME`). chatcli's own home is not announced to children either.
 */
export function scrubEnv(env: Env, pass: readonly string[] = []): Record<string, string> {
  const keep = new Set(pass);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (!keep.has(name) && (isSecretVariable(name, value) || name === "CHATCLI_HOME")) continue;
    out[name] = value;
  }
  return out;
}

/**
 * Config that no repository may set for a git chatcli starts: programs it would run (fsmonitor,
 * hooks, pager, signature verification) and implicit use of a bare repository found in the tree
 * (a committed `evil.git/`). `diff.external` cannot be neutralised this way (an empty value makes
 * git fail); chatcli's git tools pass `--no-ext-diff`, and the sandbox confines the rest.
 */
export const GIT_SAFE_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["gpg.program", "false"],
  ["gpg.ssh.program", "false"],
  ["gpg.x509.program", "false"],
  ["log.showSignature", "false"],
  ["safe.bareRepository", "explicit"],
  ["protocol.ext.allow", "never"],
];

/** `-c key=value` pairs for git's command line. */
export function gitSafeArgs(extra: ReadonlyArray<readonly [string, string]> = []): string[] {
  return [...GIT_SAFE_CONFIG, ...extra].flatMap(([k, v]) => ["-c", `${k}=${v}`]);
}

/**
 * The same overrides as environment (GIT_CONFIG_COUNT/KEY_n/VALUE_n), so every git a sandboxed shell
 * runs gets them too; entries already in `env` are kept and ours come after (the last one wins).
 */
export function gitSafeEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_PAGER: "cat",
    GIT_TERMINAL_PROMPT: "0",
  };
  const given = Number.parseInt(env["GIT_CONFIG_COUNT"] ?? "0", 10);
  let n = Number.isFinite(given) && given > 0 ? given : 0;
  for (const [key, value] of GIT_SAFE_CONFIG) {
    out[`GIT_CONFIG_KEY_${n}`] = key;
    out[`GIT_CONFIG_VALUE_${n}`] = value;
    n++;
  }
  out["GIT_CONFIG_COUNT"] = String(n);
  return out;
}
