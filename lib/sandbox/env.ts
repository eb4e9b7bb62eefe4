import type { Env } from "../core/ctx.ts";
import { isSecretVariable, looksLikeCredential, SECRET_NAME } from "../core/secrets.ts";

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
 * `--env-policy`: `core` (the default) gives a child the documented core set below and nothing else
 * but `--pass-env` names; `all` restores inheriting chatcli's environment minus every variable that
 * looks like a credential by name or value.
 */
export type EnvPolicy = "core" | "all";

export const ENV_POLICIES: readonly EnvPolicy[] = ["core", "all"];

/**
 * What every child sees by default (docs/security.md "Environment"): the session basics, CI's
 * non-secret facts, and the toolchains' own variables. Names only; a value that looks like a
 * credential is dropped even here (a proxy URL with a password, a token in GOFLAGS).
 */
export const CORE_ENV: ReadonlySet<string> = new Set(
  `PATH HOME USER LOGNAME SHELL LANG LANGUAGE TERM COLORTERM NO_COLOR FORCE_COLOR CLICOLOR TZ
  TMPDIR TEMP TMP PWD SHLVL HOSTNAME COLUMNS LINES DEBIAN_FRONTEND MAKEFLAGS
  CI CONTINUOUS_INTEGRATION BUILD_NUMBER BUILD_ID
  GITHUB_ACTIONS GITHUB_WORKFLOW GITHUB_RUN_ID GITHUB_RUN_NUMBER GITHUB_RUN_ATTEMPT GITHUB_JOB
  GITHUB_ACTION GITHUB_ACTOR GITHUB_REPOSITORY GITHUB_REPOSITORY_OWNER GITHUB_EVENT_NAME GITHUB_SHA
  GITHUB_REF GITHUB_REF_NAME GITHUB_REF_TYPE GITHUB_HEAD_REF GITHUB_BASE_REF GITHUB_WORKSPACE
  GITHUB_SERVER_URL GITHUB_API_URL GITHUB_GRAPHQL_URL RUNNER_OS RUNNER_ARCH RUNNER_TEMP
  RUNNER_TOOL_CACHE RUNNER_DEBUG
  GITLAB_CI CI_SERVER CI_PIPELINE_ID CI_PIPELINE_IID CI_PIPELINE_SOURCE CI_JOB_ID CI_JOB_NAME
  CI_JOB_STAGE CI_COMMIT_SHA CI_COMMIT_SHORT_SHA CI_COMMIT_REF_NAME CI_COMMIT_REF_SLUG
  CI_COMMIT_BRANCH CI_COMMIT_TAG CI_DEFAULT_BRANCH CI_PROJECT_DIR CI_PROJECT_NAME CI_PROJECT_PATH
  CI_PROJECT_NAMESPACE CI_MERGE_REQUEST_IID CI_MERGE_REQUEST_SOURCE_BRANCH_NAME
  CI_MERGE_REQUEST_TARGET_BRANCH_NAME
  CIRCLECI CIRCLE_BRANCH CIRCLE_SHA1 CIRCLE_BUILD_NUM TRAVIS TRAVIS_BRANCH TRAVIS_COMMIT BUILDKITE
  BUILDKITE_BRANCH BUILDKITE_COMMIT BUILDKITE_BUILD_NUMBER TF_BUILD BITBUCKET_BUILD_NUMBER
  BITBUCKET_COMMIT BITBUCKET_BRANCH
  JAVA_HOME JDK_HOME GRADLE_USER_HOME MAVEN_HOME M2_HOME
  GOPATH GOROOT GOCACHE GOMODCACHE GOFLAGS GOOS GOARCH GOPROXY GOPRIVATE GONOSUMDB GOSUMDB
  GOTOOLCHAIN CGO_ENABLED CC CXX CFLAGS CXXFLAGS LDFLAGS PKG_CONFIG_PATH
  CARGO_HOME RUSTUP_HOME RUSTUP_TOOLCHAIN RUSTFLAGS CARGO_TERM_COLOR CARGO_TARGET_DIR
  VIRTUAL_ENV CONDA_PREFIX CONDA_DEFAULT_ENV PYENV_ROOT PYENV_VERSION PYTHONDONTWRITEBYTECODE
  PYTHONUNBUFFERED PYTHONIOENCODING PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_NO_CACHE_DIR UV_CACHE_DIR
  POETRY_HOME NVM_DIR NVM_BIN PNPM_HOME YARN_CACHE_FOLDER COREPACK_HOME DENO_DIR BUN_INSTALL
  GEM_HOME GEM_PATH RBENV_ROOT BUNDLE_PATH BUNDLE_GEMFILE DOTNET_ROOT DOTNET_CLI_TELEMETRY_OPTOUT
  NUGET_PACKAGES ANDROID_HOME ANDROID_SDK_ROOT SDKMAN_DIR
  XDG_CACHE_HOME XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME
  HTTP_PROXY HTTPS_PROXY NO_PROXY ALL_PROXY http_proxy https_proxy no_proxy all_proxy
  SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE CURL_CA_BUNDLE
  GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL`
    .trim()
    .split(/\s+/),
);

/** Families of the core set, by prefix: locale, Node's own (NODE_ENV, NODE_OPTIONS …), npm config. */
const CORE_PREFIX = /^(LC_|NODE_|npm_config_|NPM_CONFIG_|npm_package_|npm_lifecycle_)/;

/** Whether `name` is in the core set (a family member whose name says credential is not). */
export function inCoreSet(name: string): boolean {
  if (CORE_ENV.has(name)) return true;
  return (
    CORE_PREFIX.test(name) && !SECRET_NAME.test(name) && !/auth|token|password|_pass$/i.test(name)
  );
}

export interface ChildEnvOptions {
  policy?: EnvPolicy;
  /** `--pass-env NAME` and `sandbox.pass_env`: passed whatever their name or value. */
  pass?: readonly string[];
}

export interface ChildEnvReport {
  env: Record<string, string>;
  /** Names of the parent's variables the child does not get (sorted): for a failed command's note. */
  filtered: string[];
}

/**
 * The environment a child process gets. `core`: the core set (values that look like credentials
 * dropped) plus the `pass` names; `all`: everything but names and values that look like
 * credentials, plus the `pass` names. chatcli's own home is never announced to children.
 */
export function childEnvironment(env: Env, options: ChildEnvOptions = {}): ChildEnvReport {
  const keep = new Set(options.pass ?? []);
  const all = options.policy === "all";
  const out: Record<string, string> = {};
  const filtered: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const allowed = keep.has(name)
      ? true
      : name === "CHATCLI_HOME"
        ? false
        : all
          ? !isSecretVariable(name, value)
          : inCoreSet(name) && !looksLikeCredential(value);
    if (allowed) out[name] = value;
    else filtered.push(name);
  }
  return { env: out, filtered: filtered.sort() };
}

/** `childEnvironment` with the inherit-minus-secrets policy (`--env-policy all`). */
export function scrubEnv(env: Env, pass: readonly string[] = []): Record<string, string> {
  return childEnvironment(env, { policy: "all", pass }).env;
}

/** The note a failed command's result carries: which of the parent's variables it did not get. */
export function filteredNote(filtered: readonly string[]): string | undefined {
  const names = filtered.filter((n) => !n.startsWith("GIT_CONFIG_"));
  if (!names.length) return undefined;
  const shown = names.slice(0, 40).join(", ");
  const more = names.length > 40 ? ` and ${names.length - 40} more` : "";
  return `[environment: the sandbox passed only its core variables; not passed: ${shown}${more}. If the command needs one, the user can pass it with --pass-env NAME]`;
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
