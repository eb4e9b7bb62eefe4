/**
 * The run's permission policy, built in one place for every front end (agent, coder, the REPL's
 * /agent and !command): the mode (flag > config > read-only), the rules (config + flags), protected
 * paths. A mode that is not one of the four is an error everywhere — a usage error for the flag
 * (exit 2), a config error for config.json (exit 3) — never a silent read-only.
 */
import type { Env } from "../core/ctx.ts";
import { ConfigError, UsageError } from "../core/errors.ts";
import type { KnownSecret } from "../core/secrets.ts";
import type { ChatcliConfig } from "../core/settings.ts";
import { invalidDenylist } from "../policy/command-safety.ts";
import {
  invalidRules,
  type PermissionMode,
  type PermissionPolicy,
  resolvePermissionMode,
} from "../policy/permissions.ts";
import { protectedPaths } from "../policy/protected-paths.ts";

export interface PolicyInput {
  env: Env;
  config: ChatcliConfig;
  workspaceRoot: string;
  cwd: string;
  /** `--permission-mode` (undefined: config, else read-only). */
  flag?: string;
  allowTool?: readonly string[];
  denyTool?: readonly string[];
  onAsk?: string;
  /** `--allow-read` + the user config's `sandbox.allow_read`, absolute: protected paths they open. */
  allowRead?: readonly string[];
  /** Values no outbound request may carry (lib/core/secrets.ts knownSecrets), in every mode. */
  secrets?: readonly KnownSecret[];
}

export interface RunPolicy {
  policy: PermissionPolicy;
  /** Warnings to report (a config bypass taken as auto, rules that do not parse). */
  warnings: Array<{ code: string; message: string }>;
}

/** The mode alone, with the same errors (for `chatcli config` and the REPL banner). */
export function runPermissionMode(
  flag: string | undefined,
  config: ChatcliConfig,
): { mode: PermissionMode; warning?: string } {
  const resolved = resolvePermissionMode(flag, config.permissions?.mode);
  if ("error" in resolved) {
    if (flag) throw new UsageError(resolved.error);
    throw new ConfigError(`config.json permissions.mode: ${resolved.error}`);
  }
  return resolved;
}

/** The one policy literal. Throws UsageError / ConfigError for a bad mode or --on-ask. */
export function buildPolicy(input: PolicyInput): RunPolicy {
  const resolved = runPermissionMode(input.flag, input.config);
  const onAsk = input.onAsk ?? "deny";
  if (onAsk !== "deny" && onAsk !== "fail") throw new UsageError("--on-ask must be deny or fail");
  const rules = input.config.permissions;
  const warnings: RunPolicy["warnings"] = [];
  if (resolved.warning) warnings.push({ code: "config_bypass_ignored", message: resolved.warning });
  for (const bad of invalidRules([...(rules?.allow ?? []), ...(rules?.deny ?? [])]))
    warnings.push({
      code: "invalid_permission_rule",
      message: `ignored .chatcli/config.json rule ${bad}`,
    });
  for (const bad of invalidDenylist(input.env["CHATCLI_AGENT_DENYLIST"]))
    warnings.push({
      code: "invalid_permission_rule",
      message: `ignored CHATCLI_AGENT_DENYLIST pattern ${bad}`,
    });
  return {
    policy: {
      mode: resolved.mode,
      allow: [...(rules?.allow ?? []), ...(input.allowTool ?? [])],
      deny: [...(rules?.deny ?? []), ...(input.denyTool ?? [])],
      onAsk,
      workspaceRoot: input.workspaceRoot,
      cwd: input.cwd,
      home: input.env["HOME"],
      denylist: input.env["CHATCLI_AGENT_DENYLIST"],
      protectedPaths: protectedPaths(input.env, input.config, input.allowRead),
      ...(input.secrets ? { secrets: input.secrets } : {}),
    },
    warnings,
  };
}
