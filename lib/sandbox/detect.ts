/** Which OS sandbox this machine can start (a probe run), and the user's own sandbox settings. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Env } from "../core/ctx.ts";
import { readTextIfExists } from "../core/fs.ts";
import { globalConfigPath } from "../core/paths.ts";
import { isUnder } from "./deny.ts";
import { realPathOrSelf } from "./plan.ts";
import { spawnCapture } from "./spawn.ts";

export type SandboxSetting = "auto" | "required" | "off";
export type SandboxKind = "bubblewrap" | "seatbelt" | "none";

export interface Detected {
  kind: Exclude<SandboxKind, "none">;
  program: string;
}

/** Parses `--sandbox` / `CHATCLI_SANDBOX`. */
export function parseSandboxSetting(value: string | undefined): SandboxSetting | undefined {
  const v = value?.trim().toLowerCase();
  if (!v) return "auto";
  return v === "auto" || v === "required" || v === "off" ? v : undefined;
}

/** `sandbox` of the user's own ~/.chatcli/config.json (a workspace config never reaches here). */
export async function userSandboxConfig(env: Env): Promise<{
  denyRead: string[];
  allowUnixSockets: boolean;
  passEnv: string[];
  envPolicy?: string;
  allowGitWrites: boolean;
  /** `sandbox.allow_read`: paths under HOME commands and file tools may read (`~/…` or absolute). */
  allowRead: string[];
  /** `sandbox.allow_network`: hosts commands may reach (a list, or one comma-separated string). */
  allowNetwork: string[];
  /** Set when `sandbox.allow_network` is neither. */
  allowNetworkError?: string;
}> {
  const text = await readTextIfExists(globalConfigPath(env)).catch(() => undefined);
  let section: Record<string, unknown> = {};
  try {
    const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    const s = parsed["sandbox"];
    if (s && typeof s === "object" && !Array.isArray(s)) section = s as Record<string, unknown>;
  } catch {
    // loadSettings reports a broken config.json
  }
  const deny = section["deny_read"];
  const pass = section["pass_env"];
  const policy = section["env_policy"];
  const allowRead = section["allow_read"];
  return {
    denyRead: Array.isArray(deny) ? deny.filter((d): d is string => typeof d === "string") : [],
    allowUnixSockets: section["allow_unix_sockets"] === true,
    // names a child gets beyond the core set; the user's own config only (never a workspace's)
    passEnv: Array.isArray(pass) ? pass.filter((d): d is string => typeof d === "string") : [],
    ...(typeof policy === "string" ? { envPolicy: policy } : {}),
    allowGitWrites: section["allow_git_writes"] === true,
    allowRead: (Array.isArray(allowRead) ? allowRead : [allowRead]).filter(
      (d): d is string => typeof d === "string" && d.trim() !== "",
    ),
    ...hostList(section["allow_network"]),
  };
}

function hostList(value: unknown): { allowNetwork: string[]; allowNetworkError?: string } {
  if (value === undefined || value === null) return { allowNetwork: [] };
  const items = Array.isArray(value) ? value : [value];
  if (items.every((v) => typeof v === "string")) return { allowNetwork: items as string[] };
  return {
    allowNetwork: [],
    allowNetworkError: `sandbox.allow_network in ~/.chatcli/config.json must list hosts (got ${JSON.stringify(value).slice(0, 80)})`,
  };
}

/** System directories searched for bwrap before PATH. */
const SYSTEM_BIN = [
  "/usr/bin",
  "/bin",
  "/usr/local/bin",
  "/usr/sbin",
  "/run/current-system/sw/bin",
];

/**
 * bwrap from a system directory first; from PATH only outside the workspace — `npm run` puts
 * `./node_modules/.bin` on PATH, and a committed `node_modules/.bin/bwrap` must not play the sandbox.
 */
function findBwrap(path: string, workspace: string): string | undefined {
  for (const dir of SYSTEM_BIN) if (existsSync(join(dir, "bwrap"))) return join(dir, "bwrap");
  const found = Bun.which("bwrap", { PATH: path });
  if (!found) return undefined;
  return isUnder(realPathOrSelf(found), [realPathOrSelf(workspace)]) ? undefined : found;
}

export async function probe(
  env: Env,
  platform: NodeJS.Platform,
  signal: AbortSignal,
  workspace: string,
): Promise<Detected | string> {
  const path = env["PATH"] ?? "/usr/bin:/bin";
  if (platform === "linux") {
    const override = env["CHATCLI_SANDBOX_BWRAP"];
    const program = override
      ? existsSync(override)
        ? override
        : undefined
      : findBwrap(path, workspace);
    if (!program)
      return "bubblewrap is not installed (apt-get install bubblewrap, dnf install bubblewrap)";
    const r = await spawnCapture(
      [
        program,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--ro-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--",
        "/bin/sh",
        "-c",
        ":",
      ],
      { cwd: "/", env: { PATH: path }, timeoutMs: 10_000, signal },
    );
    if (r.exitCode === 0) return { kind: "bubblewrap", program };
    const why = r.stderr.trim().split("\n").at(-1) ?? `exit ${r.exitCode}`;
    return `bubblewrap cannot create namespaces here (${why}); on Ubuntu 24.04 allow it with an AppArmor profile for bwrap (docs/security.md)`;
  }
  if (platform === "darwin") {
    const program = "/usr/bin/sandbox-exec";
    const r = await spawnCapture([program, "-p", "(version 1)(allow default)", "/usr/bin/true"], {
      cwd: "/",
      env: { PATH: path },
      timeoutMs: 10_000,
      signal,
    });
    if (r.exitCode === 0) return { kind: "seatbelt", program };
    return `sandbox-exec is not usable (${r.stderr.trim() || `exit ${r.exitCode}`})`;
  }
  return `no OS sandbox is supported on ${platform}`;
}
