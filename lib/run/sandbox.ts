/** The run's OS sandbox from `--sandbox`, `--pass-env`, `--allow-network` and CHATCLI_SANDBOX. */
import type { Ctx, Env } from "../core/ctx.ts";
import { UsageError } from "../core/errors.ts";
import { knownSecrets } from "../core/secrets.ts";
import { type Emit, ev } from "../output/events.ts";
import type { PermissionMode } from "../policy/permissions.ts";
import { parseSandboxSetting } from "../sandbox/detect.ts";
import { ENV_POLICIES, type EnvPolicy } from "../sandbox/env.ts";
import { type NetEntry, parseNetAllow } from "../sandbox/net-hosts.ts";
import { Sandbox } from "../sandbox/sandbox.ts";

function parseEnvPolicy(value: string): EnvPolicy {
  if (!ENV_POLICIES.includes(value as EnvPolicy))
    throw new UsageError(`--env-policy must be core or all (got ${JSON.stringify(value)})`);
  return value as EnvPolicy;
}

export interface RunSandboxFlags {
  sandbox?: string;
  passEnv?: string[];
  envPolicy?: string;
  allowNetwork?: boolean;
  /** `--allow-network HOST,…`: the items as given (each may hold several, comma-separated). */
  allowNetworkHosts?: string[];
  /** Values from the user's config and the workspace's files whose secrets the proxy also refuses. */
  secretEnv?: Env;
  /** `--allow-git-writes`: commands may write the workspace's `.git` in edit/auto. */
  allowGitWrites?: boolean;
  /** `--allow-read PATH` (repeatable): shown in the otherwise empty HOME. */
  allowRead?: string[];
}

/** `--allow-read` entries: absolute or `~/…` (a relative path names nothing for sure). */
export function checkAllowRead(entries: readonly string[]): string[] {
  for (const e of entries)
    if (!e.trim() || !(e.trim().startsWith("/") || e.trim() === "~" || e.trim().startsWith("~/")))
      throw new UsageError(`--allow-read takes an absolute path or ~/… (got ${JSON.stringify(e)})`);
  return [...entries];
}

/**
 * Opens the sandbox of one agent run and reports on it: `--sandbox off` (in a mode that would have
 * one) is warning `sandbox_off`; `auto` without a sandbox says once that shell tools are refused.
 * Reads the process env only: a checkout's .env or config never chooses its own sandbox.
 */
export async function openRunSandbox(
  ctx: Pick<Ctx, "env" | "signal"> & Partial<Pick<Ctx, "selfArgv">>,
  flags: RunSandboxFlags,
  permissionMode: PermissionMode,
  workspaceRoot: string,
  emit: Emit,
): Promise<Sandbox> {
  const warn = (code: string, message: string) => emit(ev("warning", { code, message }));
  const raw = flags.sandbox ?? ctx.env["CHATCLI_SANDBOX"];
  const setting = parseSandboxSetting(raw);
  if (!setting)
    throw new UsageError(
      `${flags.sandbox !== undefined ? "--sandbox" : "CHATCLI_SANDBOX"} must be auto, required or off (got ${JSON.stringify(raw)})`,
    );
  let hosts: NetEntry[];
  try {
    hosts = parseNetAllow(flags.allowNetworkHosts ?? [], "--allow-network");
  } catch (error) {
    throw new UsageError((error as Error).message, {
      hint: "--allow-network HOST[,HOST…]: host names (*.example.com for subdomains), IP addresses, optionally :PORT",
    });
  }
  if (flags.allowNetwork && permissionMode !== "auto" && permissionMode !== "bypass")
    warn(
      "allow_network_ignored",
      `a bare --allow-network (the whole network) applies to --permission-mode auto; child processes have no network in ${permissionMode} mode except the hosts --allow-network HOST names`,
    );
  const sandbox = await Sandbox.create({
    env: ctx.env,
    setting,
    permissionMode,
    workspaceRoot,
    allowNetwork: flags.allowNetwork,
    allowNetworkHosts: hosts,
    // keys from the process env, the user's config and the workspace's files alike
    secrets: knownSecrets({ ...flags.secretEnv, ...ctx.env }),
    onNetworkDenied: (message) => warn("network_denied", message),
    passEnv: flags.passEnv,
    ...(flags.envPolicy ? { envPolicy: parseEnvPolicy(flags.envPolicy) } : {}),
    allowGitWrites: flags.allowGitWrites,
    allowRead: checkAllowRead(flags.allowRead ?? []),
    signal: ctx.signal,
    // chatcli's own file tools work in a worker inside the sandbox: this binary, started again
    selfArgv: ctx.selfArgv,
  });
  if (setting === "off" && permissionMode !== "bypass")
    warn(
      "sandbox_off",
      "--sandbox off: commands the agent runs are not confined by the OS (only the permission policy stands)",
    );
  else if (sandbox.shellRefusal) warn("sandbox_unavailable", sandbox.shellRefusal);
  if (sandbox.networkUnsupported) warn("allow_network_unsupported", sandbox.networkUnsupported);
  return sandbox;
}
