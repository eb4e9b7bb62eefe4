/**
 * `chatcli config`: the effective settings and where each came from. The values come from
 * loadSettings (the one place that layers the configuration); this module only reads the same layers
 * again to say which one won. Secrets are reported as set/unset, never their value.
 */
import { join } from "node:path";
import { readConfined } from "../core/confined.ts";
import type { Ctx, Env } from "../core/ctx.ts";
import { parseDotenvFile } from "../core/dotenv.ts";
import { readTextIfExists } from "../core/fs.ts";
import { expandHome, globalConfigPath } from "../core/paths.ts";
import { configuredSecrets, redactDeep } from "../core/redact.ts";
import { type ChatcliConfig, loadSettings } from "../core/settings.ts";
import { modelLabel, resolveModel } from "../llm/models.ts";
import { keyVariables, providerVariables } from "../llm/provider-list.ts";
import { resolvePermissionMode } from "../policy/permissions.ts";

export type Source = "flag" | "env" | ".env" | "workspace config" | "user config" | "default";

export interface LayerFile {
  kind: ".env" | "workspace config" | "user config";
  path: string;
  exists: boolean;
  /** Read into the settings; false for a file that exists but was not applied (an untrusted workspace). */
  applied: boolean;
  /** Its keys an untrusted workspace could not set (`OPENAI_API_KEY`, `permissions.mode`). */
  ignored_keys?: string[];
}

export interface Variable {
  name: string;
  /** The value, or "set"/"unset" for a secret. */
  value: string;
  secret: boolean;
  source: Source | "unset";
  /** Lower layers that also define it (overridden). */
  overrides: Source[];
  /** Defined only in a file that was not applied. */
  ignored_in?: Source;
}

export interface ConfigReport {
  workspace: string;
  model: { value: string | null; source: Source | "auto"; error?: string; variables: string[] };
  permission_mode: { value: string | null; source: Source; warning?: string; error?: string };
  permissions: {
    allow: { rule: string; source: Source }[];
    deny: { rule: string; source: Source }[];
  };
  files: LayerFile[];
  variables: Variable[];
  warnings: string[];
}

const SECRET = /(KEY|TOKEN|SECRET|PASSWORD)$/i;
const RELEVANT =
  /^(CHATCLI_|LLM_PROVIDER$|MOCK_MODEL$)|_(API_KEY|MODEL|BASE_URL|API_URL|MAX_TOKENS|OAUTH_TOKEN)$/;
/** Always listed (as unset when missing): each provider's key (lib/llm's one table). */
const ALWAYS = keyVariables();
/** Any variable a provider reads (GITHUB_MODELS_TOKEN, BEDROCK_REGION …) is reported when set. */
const PROVIDER_VARS = providerVariables();

/** A file's text; with `root`, only when it stays inside the workspace (as loadSettings reads it). */
async function readText(path: string, root?: string): Promise<string | undefined> {
  if (root === undefined) return readTextIfExists(path).catch(() => undefined);
  const read = readConfined(path, root);
  return read.kind === "ok" ? read.raw.toString("utf8") : undefined;
}

async function readJson(path: string, root?: string): Promise<ChatcliConfig | undefined> {
  const text = await readText(path, root);
  if (!text?.trim()) return text === undefined ? undefined : {};
  try {
    return JSON.parse(text) as ChatcliConfig;
  } catch {
    return undefined; // loadSettings already failed on it (exit 3)
  }
}

function envOf(config: ChatcliConfig | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(config?.env ?? {})) if (typeof v === "string") out[k] = v;
  return out;
}

export async function configReport(
  ctx: Pick<Ctx, "env" | "cwd">,
  options: {
    workspaceRoot: string;
    model?: string;
    permissionMode?: string;
    trustWorkspace?: boolean;
  },
): Promise<ConfigReport> {
  const settings = await loadSettings(ctx, {
    workspaceRoot: options.workspaceRoot,
    trustWorkspace: options.trustWorkspace,
  });
  // an untrusted workspace's file is read, but only some of its keys apply (lib/core/trust.ts)
  const skipped = (path: string, key: string) =>
    settings.ignored.some(
      (i) => i.file === path && (i.key === key || i.key.startsWith(`${key} (`)),
    );
  const userPath = globalConfigPath(ctx.env);
  const workspacePath = join(options.workspaceRoot, ".chatcli", "config.json");
  const dotenvPath = ctx.env["CHATCLI_DOTENV"]
    ? expandHome(ctx.env["CHATCLI_DOTENV"], ctx.env)
    : join(ctx.cwd, ".env");
  const user = await readJson(userPath);
  const workspace = await readJson(workspacePath, options.workspaceRoot);
  const dotenvText = await readText(
    dotenvPath,
    ctx.env["CHATCLI_DOTENV"] ? undefined : options.workspaceRoot,
  );
  const file = (
    kind: LayerFile["kind"],
    path: string,
    exists: boolean,
    keys?: string[],
  ): LayerFile => {
    const ignored = [...new Set(settings.ignored.filter((i) => i.file === path).map((i) => i.key))];
    // a file is applied only if something in it counted: every key ignored is not "applied"
    const everyKey =
      keys !== undefined && keys.length > 0 && keys.every((k) => ignored.includes(k));
    return {
      kind,
      path,
      exists,
      applied: settings.sources.includes(path) && !everyKey,
      ...(ignored.length ? { ignored_keys: ignored } : {}),
    };
  };
  const dotenvKeys = dotenvText === undefined ? [] : Object.keys(parseDotenvFile(dotenvText, {}));
  const files = [
    file(".env", dotenvPath, dotenvText !== undefined, dotenvKeys),
    file("workspace config", workspacePath, workspace !== undefined),
    file("user config", userPath, user !== undefined),
  ];
  const applied = (kind: LayerFile["kind"]) => files.find((f) => f.kind === kind)?.applied ?? false;

  // Highest precedence first, as loadSettings layers them.
  const layers: {
    source: Source;
    values: Record<string, string>;
    applied: boolean;
    skips?: (name: string) => boolean;
  }[] = [
    { source: "env", values: relevant(ctx.env), applied: true },
    {
      source: ".env",
      values: dotenvText ? parseDotenvFile(dotenvText, ctx.env) : {},
      applied: applied(".env"),
      skips: (name) => skipped(dotenvPath, name),
    },
    {
      source: "workspace config",
      values: envOf(workspace),
      applied: applied("workspace config"),
      skips: (name) => skipped(workspacePath, `env.${name}`),
    },
    { source: "user config", values: envOf(user), applied: applied("user config") },
  ];
  const names = new Set([...ALWAYS, ...layers.flatMap((l) => Object.keys(l.values))]);
  const variables: Variable[] = [...names].sort().map((name) => {
    const defining = layers.filter((l) => name in l.values);
    const winner = defining.find((l) => l.applied && !l.skips?.(name));
    const secret = SECRET.test(name);
    const raw = winner ? settings.env[name] : undefined;
    const v: Variable = {
      name,
      value: secret ? (raw ? "set" : "unset") : (raw ?? ""),
      secret,
      source: winner?.source ?? "unset",
      overrides: defining
        .filter((l) => l.applied && !l.skips?.(name) && l !== winner)
        .map((l) => l.source),
    };
    const ignored = defining.find((l) => !l.applied || l.skips?.(name));
    if (ignored && !winner) v.ignored_in = ignored.source;
    return v;
  });
  const sourceOf = (name: string) => variables.find((v) => v.name === name)?.source;

  const configSource = (key: "model" | "mode"): Source | undefined => {
    const inWs = key === "model" ? workspace?.model : workspace?.permissions?.mode;
    const inUser = key === "model" ? user?.model : user?.permissions?.mode;
    const wsKey = key === "model" ? "model" : "permissions.mode";
    if (inWs !== undefined && applied("workspace config") && !skipped(workspacePath, wsKey))
      return "workspace config";
    return inUser !== undefined ? "user config" : undefined;
  };

  const model: ConfigReport["model"] = { value: null, source: "auto", variables: [] };
  try {
    const ref = resolveModel(options.model, settings.env, settings.config.model);
    model.value = modelLabel(ref);
  } catch (error) {
    model.error = (error as Error).message;
  }
  if (options.model) model.source = "flag";
  else if (settings.env["LLM_PROVIDER"]) model.source = sourceOf("LLM_PROVIDER") as Source;
  else if (settings.config.model) model.source = configSource("model") ?? "user config";
  const provider = model.value?.split(/[/:]/)[0]?.toUpperCase();
  model.variables = ["LLM_PROVIDER", `${provider}_MODEL`].filter((n) => settings.env[n]);

  const mode = resolvePermissionMode(options.permissionMode, settings.config.permissions?.mode);
  const permission_mode: ConfigReport["permission_mode"] =
    "error" in mode
      ? { value: null, source: "default", error: mode.error }
      : { value: mode.mode, source: "default", ...(mode.warning ? { warning: mode.warning } : {}) };
  permission_mode.source = options.permissionMode ? "flag" : (configSource("mode") ?? "default");

  const rules = (key: "allow" | "deny") => [
    ...(user?.permissions?.[key] ?? []).map((rule) => ({ rule, source: "user config" as Source })),
    ...(applied("workspace config") && !skipped(workspacePath, `permissions.${key}`)
      ? (workspace?.permissions?.[key] ?? [])
      : []
    ).map((rule) => ({
      rule,
      source: "workspace config" as Source,
    })),
  ];
  const report: ConfigReport = {
    workspace: options.workspaceRoot,
    model,
    permission_mode,
    permissions: { allow: rules("allow"), deny: rules("deny") },
    files,
    variables,
    warnings: settings.warnings.map((w) => w.message),
  };
  // A value that is not a secret by name may still hold one (a URL with a key in it).
  return redactDeep(report, configuredSecrets(settings.env));
}

function relevant(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env))
    if (v !== undefined && (RELEVANT.test(k) || PROVIDER_VARS.has(k))) out[k] = v;
  return out;
}

/** The report as a person reads it: one setting a line, the source on the right. */
export function renderConfig(report: ConfigReport): string {
  const lines: string[] = [];
  const row = (a: string, b: string, c: string) =>
    lines.push(`  ${a.padEnd(22)} ${b.padEnd(30)} ${c}`.trimEnd());
  lines.push(`workspace ${report.workspace}`, "");
  const m = report.model;
  row(
    "model",
    m.value ?? "(none)",
    m.error
      ? `error: ${m.error}`
      : `${m.source}${m.variables.length ? ` (${m.variables.join(", ")})` : ""}`,
  );
  const p = report.permission_mode;
  row("permission mode", p.value ?? "(invalid)", p.error ? `error: ${p.error}` : p.source);
  for (const key of ["allow", "deny"] as const)
    for (const r of report.permissions[key]) row(`permissions.${key}`, r.rule, r.source);
  lines.push("", "files (highest precedence first, after the process environment)");
  for (const f of report.files) {
    const ignored = f.ignored_keys?.join(", ");
    const state = !f.exists
      ? "not found"
      : f.applied
        ? ignored
          ? `applied, except ${ignored} (untrusted workspace)`
          : "applied"
        : `NOT applied (untrusted workspace${ignored ? `: ${ignored} ignored` : ""})`;
    row(f.kind, f.path, state);
  }
  lines.push("", "variables");
  for (const v of report.variables) {
    const from =
      v.source === "unset"
        ? v.ignored_in
          ? `only in ${v.ignored_in}, not applied`
          : ""
        : `${v.source}${v.overrides.length ? ` (overrides ${v.overrides.join(", ")})` : ""}`;
    row(v.name, v.source === "unset" && !v.secret ? "unset" : v.value, from);
  }
  for (const w of [...report.warnings, ...(p.warning ? [p.warning] : [])])
    lines.push(`warning: ${w}`);
  return `${lines.join("\n")}\n`;
}
