import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import type { Env } from "./ctx.ts";
import { expandHome } from "./paths.ts";

/**
 * Workspace trust (CONTRACT §5, issue 11 §2). Files that come with a checkout — `.chatcli/config.json`,
 * `./.env` — are untrusted until the user trusts the workspace. An untrusted file may add deny rules,
 * tighten limits and add context; every other setting it makes is ignored with a warning
 * `untrusted_workspace_setting` naming the file and the key.
 */
export type TrustSource = "flag" | "env" | "config" | "prompt" | "none";

export interface WorkspaceTrust {
  trusted: boolean;
  source: TrustSource;
}

export interface Ignored {
  file: string;
  key: string;
}

const TRUE = /^(1|true|yes|on)$/i;

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Whether `root` is listed (itself or under a listed directory) in `trusted_workspaces`. */
export function listedAsTrusted(root: string, list: unknown, env: Env): boolean {
  if (!Array.isArray(list)) return false;
  const target = real(root);
  return list.some((entry) => {
    if (typeof entry !== "string" || !entry.trim()) return false;
    const expanded = expandHome(entry.trim(), env);
    if (!isAbsolute(expanded)) return false;
    const rel = relative(real(expanded), target);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
}

/** Trust from the flag, the process env, or the user's config (never from the workspace itself). */
export function decideTrust(
  root: string,
  processEnv: Env,
  userConfig: Record<string, unknown> | undefined,
  flag: boolean | undefined,
): WorkspaceTrust {
  if (flag) return { trusted: true, source: "flag" };
  if (TRUE.test(processEnv["CHATCLI_TRUST_WORKSPACE"]?.trim() ?? ""))
    return { trusted: true, source: "env" };
  if (listedAsTrusted(root, userConfig?.["trusted_workspaces"], processEnv))
    return { trusted: true, source: "config" };
  return { trusted: false, source: "none" };
}

/** Limits an untrusted file may set only downwards (lower than the user's value, or the default). */
const LIMITS: Record<string, number | undefined> = {
  CHATCLI_AGENT_PLUGIN_MAX_TURNS: 50,
  CHATCLI_MAX_RETRIES: 4,
  MAX_RETRIES: 4,
  CHATCLI_RETRY_MAX_MS: 30_000,
  CHATCLI_STREAM_IDLE_TIMEOUT_MS: 120_000,
  CHATCLI_MEMORY_EXTRACT_TIMEOUT_MS: 15_000,
  CHATCLI_TOOL_RESULT_MAX_CHARS: undefined,
  CHATCLI_TOOL_RESULT_BUDGET_CHARS: undefined,
  CHATCLI_BOOTSTRAP_MAX_BYTES: undefined,
  CHATCLI_WEBFETCH_AUTOSAVE_BYTES: undefined,
};

/** Switches an untrusted file may only turn towards "less": value allowed → what it means. */
const OFF_SWITCHES: Record<string, RegExp> = {
  CHATCLI_MEMORY_ENABLED: /^(0|false|no|off)$/i,
  CHATCLI_SESSION_AUTOSAVE: /^(0|false|no|off)$/i,
  CHATCLI_DISABLE_HISTORY: /^(1|true|yes|on)$/i,
  CHATCLI_AGENT_EARLY_EXIT: /^(1|true|yes|on)$/i,
  NO_COLOR: /.*/,
};

/**
 * Whether an untrusted file may set `name=value`: a tighter limit (`*_MAX_TOKENS`, max turns,
 * retries, timeouts, output caps), a switch turned off, or more deny patterns. Never a provider,
 * endpoint, key, model, CHATCLI_HOME or anything else a child process would inherit.
 */
export function untrustedVarAllowed(name: string, value: string, userEnv: Env): boolean {
  if (name === "CHATCLI_AGENT_DENYLIST") return true; // merged into the user's, never replacing it
  const off = OFF_SWITCHES[name];
  if (off) return off.test(value.trim());
  const isLimit = name in LIMITS || /^[A-Z0-9]+_MAX_TOKENS$/.test(name);
  if (!isLimit) return false;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) return false;
  const mine = userEnv[name] !== undefined ? Number(userEnv[name]) : LIMITS[name];
  return mine === undefined || !Number.isFinite(mine) || n <= mine;
}

const MODE_RANK: Record<string, number> = { "read-only": 0, edit: 1, auto: 2, bypass: 3 };

type Config = Record<string, unknown>;

/**
 * The part of an untrusted workspace config.json that may apply: `permissions.deny`, a
 * `permissions.mode` no higher than the user's, `sandbox.deny_read`, and `env` entries that pass
 * `untrustedVarAllowed`. Everything else is reported in `ignored`.
 */
export function filterUntrustedConfig(
  file: string,
  config: Config,
  user: Config | undefined,
  userEnv: Env,
  ignored: Ignored[],
): Config {
  const out: Config = {};
  for (const [key, value] of Object.entries(config)) {
    if (key === "permissions" && value && typeof value === "object") {
      const p = value as Record<string, unknown>;
      const kept: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(p)) {
        if (k === "deny") kept["deny"] = v;
        else if (k === "mode" && typeof v === "string" && v in MODE_RANK) {
          const userMode = (user?.["permissions"] as Record<string, unknown> | undefined)?.["mode"];
          const ceiling = MODE_RANK[typeof userMode === "string" ? userMode : "read-only"] ?? 0;
          if ((MODE_RANK[v] ?? 0) <= ceiling) kept["mode"] = v;
          else ignored.push({ file, key: `permissions.mode (${v})` });
        } else if (k === "mode")
          kept["mode"] = v; // invalid: still reported as a config error
        else ignored.push({ file, key: `permissions.${k}` });
      }
      out["permissions"] = kept;
    } else if (key === "sandbox" && value && typeof value === "object") {
      const s = value as Record<string, unknown>;
      for (const k of Object.keys(s))
        if (k !== "deny_read") ignored.push({ file, key: `sandbox.${k}` });
      if (s["deny_read"] !== undefined) out["sandbox"] = { deny_read: s["deny_read"] };
    } else if (key === "env" && value && typeof value === "object") {
      const kept: Record<string, string> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (typeof v === "string" && untrustedVarAllowed(k, v, userEnv)) kept[k] = v;
        else ignored.push({ file, key: `env.${k}` });
      }
      out["env"] = kept;
    } else {
      ignored.push({ file, key });
    }
  }
  return out;
}

/** The variables of an untrusted `.env` that may apply (see `untrustedVarAllowed`). */
export function filterUntrustedDotenv(
  file: string,
  vars: Record<string, string>,
  userEnv: Env,
  ignored: Ignored[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(vars)) {
    if (untrustedVarAllowed(k, v, userEnv)) out[k] = v;
    else ignored.push({ file, key: k });
  }
  return out;
}

/** The warning for one ignored setting (CONTRACT §5). */
export function untrustedWarning(item: Ignored): { code: string; message: string } {
  return {
    code: "untrusted_workspace_setting",
    message: `ignored ${item.key} from ${item.file}: the workspace is not trusted (pass --trust-workspace, set CHATCLI_TRUST_WORKSPACE=1 or add it to trusted_workspaces in ~/.chatcli/config.json)`,
  };
}
