import { join } from "node:path";
import type { Ctx, Env } from "./ctx.ts";
import { parseDotenvFile } from "./dotenv.ts";
import { ConfigError } from "./errors.ts";
import { readTextIfExists } from "./fs.ts";
import { expandHome, globalConfigPath } from "./paths.ts";

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
}

/** Parses a dotenv file: KEY=VALUE, `export KEY=VALUE`, quotes, `#` comments. */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1] as string;
    let value = (m[2] as string).trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, "\n").replace(/\\"/g, '"');
    } else {
      const hash = value.search(/\s#/);
      if (hash >= 0) value = value.slice(0, hash).trim();
    }
    out[key] = value;
  }
  return out;
}

async function readConfigFile(path: string): Promise<ChatcliConfig | undefined> {
  const text = await readTextIfExists(path);
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

/** Layers the configuration: process env > .env > workspace config.json > global config.json. */
export async function loadSettings(
  ctx: Pick<Ctx, "env" | "cwd">,
  options: { workspaceRoot?: string } = {},
): Promise<Settings> {
  const sources: string[] = [];
  const globalPath = globalConfigPath(ctx.env);
  const global = await readConfigFile(globalPath);
  if (global) sources.push(globalPath);
  let workspace: ChatcliConfig | undefined;
  if (options.workspaceRoot) {
    const path = join(options.workspaceRoot, ".chatcli", "config.json");
    workspace = await readConfigFile(path);
    if (workspace) sources.push(path);
  }
  const dotenvPath = ctx.env["CHATCLI_DOTENV"]
    ? expandHome(ctx.env["CHATCLI_DOTENV"], ctx.env)
    : join(ctx.cwd, ".env");
  const dotenvText = await readTextIfExists(dotenvPath).catch(() => undefined);
  const dotenv = dotenvText === undefined ? {} : parseDotenvFile(dotenvText, ctx.env);
  if (dotenvText !== undefined) sources.push(dotenvPath);
  const warnings: Settings["warnings"] = [];
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
  const env: Record<string, string | undefined> = {
    ...stringRecord(global?.env),
    ...stringRecord(workspace?.env),
    ...dotenv,
  };
  for (const [k, v] of Object.entries(ctx.env)) if (v !== undefined) env[k] = v;
  return { env, config, sources, warnings };
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
