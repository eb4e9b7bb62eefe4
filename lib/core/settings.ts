import { dirname, join, resolve } from "node:path";
import { readWorkspaceText } from "./confined.ts";
import { CREDENTIAL_BINDINGS } from "./credential-bindings.ts";
import type { Ctx, Env } from "./ctx.ts";
import { parseDotenv } from "./dotenv.ts";
import { ConfigError } from "./errors.ts";
import { readTextIfExistsSync, withLock, writeFileAtomic } from "./fs.ts";
import { expandHome, globalConfigPath } from "./paths.ts";
import {
  decideTrust,
  filterUntrustedConfig,
  filterUntrustedDotenv,
  type Ignored,
  untrustedWarning,
  type WorkspaceTrust,
} from "./trust.ts";
import type { Warning } from "./warning.ts";

/** `config.json` (global `~/.chatcli/config.json`, then the workspace's `.chatcli/config.json`). */
export interface ChatcliConfig {
  /** Default model, `provider/model`. */
  model?: string;
  /** Extra environment (same names as the env vars); real env wins. */
  env?: Record<string, string>;
  permissions?: { allow?: string[]; deny?: string[]; mode?: string };
  [key: string]: unknown;
}

export interface Settings {
  /** Process env over `.env` over config.json `env`. Read everything through this. */
  env: Env;
  config: ChatcliConfig;
  /** Files that contributed, for `bootstrap show`/debugging. */
  sources: string[];
  /** Problems worth a warning (an explicit CHATCLI_DOTENV that does not exist). */
  warnings: Array<{ code: string; message: string }>;
  /** Whether the workspace's own files (`.chatcli/config.json`, `./.env`) count (CONTRACT §5). */
  trust: WorkspaceTrust;
  /** `env` plus the values of settings that were ignored, so their secrets are still redacted. */
  redactEnv: Env;
  /** The workspace settings that were not applied (untrusted), by file and key (`env.X`, `permissions.allow`). */
  ignored: Ignored[];
}

export interface LoadSettingsOptions {
  workspaceRoot?: string;
  /** `--trust-workspace`. */
  trustWorkspace?: boolean;
  /**
   * Asked once on a TTY when an untrusted workspace has settings that would be ignored; true is
   * remembered in `trusted_workspaces` of the user's config.
   */
  askTrust?: (question: { workspace: string; ignored: Ignored[] }) => Promise<boolean>;
}

/**
 * Reads a config file; with `confine` (the workspace's own `.chatcli/config.json`) a link leading out
 * of the workspace is not read and warns `link_outside_workspace`.
 */
async function readConfigFile(
  path: string,
  confine?: { root: string; warnings: Warning[] },
): Promise<ChatcliConfig | undefined> {
  const text = confine
    ? readWorkspaceText(path, confine.root, confine.warnings)
    : readTextIfExistsSync(path);
  if (text === undefined || text.trim() === "") return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      throw new Error("not a JSON object");
    }
    return value as ChatcliConfig;
  } catch (error) {
    throw new ConfigError(`cannot read ${path}: ${(error as Error).message}`, {
      hint: "fix the JSON or move the file away",
    });
  }
}

function tryRead(path: string): string | undefined {
  try {
    return readTextIfExistsSync(path);
  } catch {
    return undefined;
  }
}

function readDotenvInside(path: string, root: string, warnings: Warning[]): string | undefined {
  try {
    return readWorkspaceText(path, root, warnings);
  } catch {
    return undefined;
  }
}

/**
 * Layers the configuration: process env > .env > workspace config.json > global config.json. The
 * workspace's files (its `.chatcli/config.json`, `./.env` unless CHATCLI_DOTENV names the file) count
 * fully only when the workspace is trusted; otherwise only what tightens applies (lib/core/trust.ts).
 */
export async function loadSettings(
  ctx: Pick<Ctx, "env" | "cwd">,
  options: LoadSettingsOptions = {},
): Promise<Settings> {
  const sources: string[] = [];
  const globalPath = globalConfigPath(ctx.env);
  const global = await readConfigFile(globalPath);
  if (global) sources.push(globalPath);
  const warnings: Settings["warnings"] = [];
  let workspace: ChatcliConfig | undefined;
  let workspacePath: string | undefined;
  if (options.workspaceRoot) {
    const path = join(options.workspaceRoot, ".chatcli", "config.json");
    // the workspace is the home directory: that file is the user's own config, read once
    if (resolve(path) !== resolve(globalPath)) {
      workspace = await readConfigFile(path, { root: options.workspaceRoot, warnings });
      if (workspace) sources.push(path);
      workspacePath = path;
    }
  }
  const explicitDotenv = Boolean(ctx.env["CHATCLI_DOTENV"]);
  const dotenvPath = explicitDotenv
    ? expandHome(ctx.env["CHATCLI_DOTENV"] as string, ctx.env)
    : join(ctx.cwd, ".env");
  // ./.env comes with the checkout: read only inside the workspace; CHATCLI_DOTENV is the user's own
  const dotenvText = explicitDotenv
    ? tryRead(dotenvPath)
    : readDotenvInside(dotenvPath, options.workspaceRoot ?? ctx.cwd, warnings);
  // godotenv 1.5.1 (the Go ChatCLI's) rejects a malformed file whole: both tools then load nothing
  const parsed = dotenvText === undefined ? undefined : parseDotenv(dotenvText);
  let dotenv = parsed?.ok ? parsed.values : {};
  if (parsed?.ok) sources.push(dotenvPath);
  if (parsed && !parsed.ok) {
    warnings.push({
      code: "dotenv_invalid",
      message: `${dotenvPath}:${parsed.line}: ${parsed.message}; the file is not valid for godotenv (the Go ChatCLI's reader), so no variable was loaded from it`,
    });
  }
  const userEnv: Env = { ...stringRecord(global?.env), ...ctx.env };
  const ignoredValues: Record<string, string> = {};
  const ignoredSettings: Ignored[] = [];
  let trust = decideTrust(
    options.workspaceRoot ?? ctx.cwd,
    ctx.env,
    global,
    options.trustWorkspace,
  );
  if (!trust.trusted) {
    const ignored: Ignored[] = [];
    const filteredConfig =
      workspace && workspacePath
        ? filterUntrustedConfig(workspacePath, workspace, global, userEnv, ignored)
        : undefined;
    // an untrusted file's `${VAR}` never expands the process environment (a key into a kept value)
    const filteredDotenv =
      explicitDotenv || dotenvText === undefined
        ? dotenv
        : filterUntrustedDotenv(dotenvPath, dotenv, userEnv, ignored);
    if (ignored.length && options.askTrust) {
      const root = options.workspaceRoot ?? ctx.cwd;
      if (await options.askTrust({ workspace: root, ignored })) {
        trust = { trusted: true, source: "prompt" };
        await rememberTrusted(globalPath, root);
      }
    }
    if (!trust.trusted) {
      Object.assign(ignoredValues, stringRecord(workspace?.env), explicitDotenv ? {} : dotenv);
      workspace = filteredConfig;
      dotenv = filteredDotenv;
      for (const item of ignored) warnings.push(untrustedWarning(item));
      ignoredSettings.push(...ignored);
    }
  }
  if (dotenvText === undefined && ctx.env["CHATCLI_DOTENV"]) {
    warnings.push({
      code: "dotenv_missing",
      message: `CHATCLI_DOTENV=${ctx.env["CHATCLI_DOTENV"]}: cannot read ${dotenvPath}; no variables were loaded from it`,
    });
  }
  const config: ChatcliConfig = { ...global, ...workspace };
  if (global?.permissions || workspace?.permissions) {
    config.permissions = {
      mode: workspace?.permissions?.mode ?? global?.permissions?.mode,
      allow: [...(global?.permissions?.allow ?? []), ...(workspace?.permissions?.allow ?? [])],
      deny: [...(global?.permissions?.deny ?? []), ...(workspace?.permissions?.deny ?? [])],
    };
  }
  // a workspace's sandbox.deny_read adds to the user's; it never replaces the user's section
  const sandboxes = [global?.["sandbox"], workspace?.["sandbox"]].map((x) =>
    x && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : {},
  );
  if (global?.["sandbox"] !== undefined || workspace?.["sandbox"] !== undefined) {
    const [mine, theirs] = sandboxes as [Record<string, unknown>, Record<string, unknown>];
    const list = (v: unknown) => (Array.isArray(v) ? v : typeof v === "string" ? [v] : []);
    config["sandbox"] = {
      ...theirs,
      ...mine,
      deny_read: [...list(mine["deny_read"]), ...list(theirs["deny_read"])],
    };
  }
  const env: Record<string, string | undefined> = {
    ...stringRecord(global?.env),
    ...stringRecord(workspace?.env),
    ...dotenv,
  };
  if (!trust.trusted) {
    // deny patterns from the workspace add to the user's, never replace them
    const denies = [global?.env, ctx.env].map((e) => stringRecord(e)["CHATCLI_AGENT_DENYLIST"]);
    const mine = denies.filter(Boolean).join(";");
    if (mine && env["CHATCLI_AGENT_DENYLIST"] !== mine)
      env["CHATCLI_AGENT_DENYLIST"] = [mine, env["CHATCLI_AGENT_DENYLIST"]]
        .filter(Boolean)
        .join(";");
  }
  // where each variable came from, for the credential/endpoint rule below
  const origin = new Map<string, string>();
  for (const k of Object.keys(stringRecord(global?.env))) origin.set(k, "user");
  if (workspacePath)
    for (const k of Object.keys(stringRecord(workspace?.env))) origin.set(k, workspacePath);
  for (const k of Object.keys(dotenv)) origin.set(k, explicitDotenv ? "user" : dotenvPath);
  for (const [k, v] of Object.entries(ctx.env)) {
    if (v === undefined) continue;
    if (k !== "CHATCLI_AGENT_DENYLIST" || trust.trusted) env[k] = v;
    origin.set(k, "user");
  }
  warnings.push(...pairCredentials(env, origin, global));
  return {
    env,
    config,
    sources,
    warnings,
    trust,
    redactEnv: { ...ignoredValues, ...env },
    ignored: ignoredSettings,
  };
}

/**
 * A credential is sent only to an endpoint from the same place, or to the provider's default
 * (CONTRACT §5): an endpoint a workspace file set — trusted or not — is dropped when any credential
 * its row of the binding table (lib/core/credential-bindings.ts) binds to it came from elsewhere.
 * The user config's value of that endpoint, if any, is used instead.
 */
function pairCredentials(
  env: Record<string, string | undefined>,
  origin: Map<string, string>,
  global: ChatcliConfig | undefined,
): Settings["warnings"] {
  const out: Settings["warnings"] = [];
  for (const binding of CREDENTIAL_BINDINGS) {
    for (const name of binding.endpoints) {
      const from = origin.get(name);
      if (!env[name] || from === undefined || from === "user") continue;
      const foreign = binding.credentials.filter((k) => env[k] && origin.get(k) !== from);
      if (!foreign.length) continue;
      const fallback = stringRecord(global?.env)[name];
      if (fallback === undefined) delete env[name];
      else env[name] = fallback;
      out.push({
        code: "credential_endpoint_mismatch",
        message: `ignored ${name} from ${from}: ${foreign.join(", ")} comes from elsewhere and is only sent to an endpoint set in the same place (or the provider's default)`,
      });
    }
  }
  return out;
}

/** Adds a workspace to `trusted_workspaces` in the user's config (other keys kept). */
async function rememberTrusted(globalPath: string, root: string): Promise<void> {
  // node:fs/promises only here: a start that reads settings never loads it (issue 23)
  const { mkdir } = await import("node:fs/promises");
  await mkdir(dirname(globalPath), { recursive: true });
  // under the lock, so two runs answering at once both land in the list
  await withLock(globalPath, async () => {
    // a file that stopped parsing since it was read is left alone (never overwritten)
    const read = await readConfigFile(globalPath).then(
      (c) => ({ ok: true as const, config: c ?? {} }),
      () => ({ ok: false as const }),
    );
    if (!read.ok) return;
    const current = read.config;
    const list = Array.isArray(current["trusted_workspaces"])
      ? (current["trusted_workspaces"] as unknown[])
      : [];
    if (!list.includes(root)) list.push(root);
    await writeFileAtomic(
      globalPath,
      `${JSON.stringify({ ...current, trusted_workspaces: list }, null, 2)}\n`,
    );
  });
}

function stringRecord(value: unknown): Record<string, string> {
  if (!value || typeof value !== "object") return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (typeof v === "string") out[k] = v;
  return out;
}

/** Reads an integer env knob, falling back when unset or invalid. */
export function envInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

export function envBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  if (["0", "false", "no", "off"].includes(raw)) return false;
  return fallback;
}
