/**
 * Where MCP servers come from, and `mcp add|remove` on the Go ChatCLI's file. Sources, in order:
 * `~/.chatcli/mcp_servers.json` (global; `CHATCLI_MCP_CONFIG` moves it, as in Go), the workspace's
 * `.mcp.json` and `.chatcli/mcp_servers.json` (they come with the checkout: nothing of theirs starts
 * until the workspace is trusted), and `--mcp-config FILE` (flag). A later source's server replaces
 * an earlier one of the same name.
 */
import { mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { readWorkspaceText } from "../../core/confined.ts";
import type { Env } from "../../core/ctx.ts";
import { ConfigError, UsageError } from "../../core/errors.ts";
import { readTextIfExists, withLock, writeFileAtomic } from "../../core/fs.ts";
import { chatcliHome, expandHome } from "../../core/paths.ts";
import type { Warning } from "../../core/warning.ts";
import { type McpScope, type McpServerConfig, parseServers, rawEntries } from "./config.ts";

export interface McpSources {
  /** Servers that may start, by name (the last source wins). */
  servers: McpServerConfig[];
  /** Workspace servers that do not start because the workspace is not trusted. */
  untrusted: McpServerConfig[];
  warnings: Array<{ code: string; message: string }>;
}

export interface McpSourceOptions {
  env: Env;
  workspaceRoot: string;
  trusted: boolean;
  /** `--mcp-config FILE` (repeatable). */
  configFiles?: readonly string[];
  /** `--strict-mcp-config`: only the flag's files. */
  strict?: boolean;
  cwd: string;
}

/** `~/.chatcli/mcp_servers.json`, or `CHATCLI_MCP_CONFIG` (Go's override). */
export function globalMcpPath(env: Env): string {
  const override = env["CHATCLI_MCP_CONFIG"]?.trim();
  return override ? expandHome(override, env) : join(chatcliHome(env), "mcp_servers.json");
}

export function workspaceMcpPaths(workspaceRoot: string): string[] {
  return [join(workspaceRoot, ".mcp.json"), join(workspaceRoot, ".chatcli", "mcp_servers.json")];
}

async function readDoc(
  path: string,
  confine?: { root: string; warnings: Warning[] },
): Promise<{ doc?: unknown; problem?: string }> {
  let text: string | undefined;
  try {
    // a file the checkout ships is read only inside the workspace (`link_outside_workspace`)
    text = confine
      ? readWorkspaceText(path, confine.root, confine.warnings)
      : await readTextIfExists(path);
  } catch (error) {
    return { problem: `cannot read ${path}: ${(error as Error).message}` };
  }
  if (text === undefined || text.trim() === "") return {};
  try {
    return { doc: JSON.parse(text) };
  } catch (error) {
    return {
      problem: `${path} is not valid JSON (${(error as Error).message}); its servers were not loaded`,
    };
  }
}

/** Every configured server with its scope, and what the workspace's untrusted files would add. */
export async function loadMcpSources(options: McpSourceOptions): Promise<McpSources> {
  const warnings: McpSources["warnings"] = [];
  const files: Array<{ path: string; scope: McpScope }> = [];
  const globalPath = globalMcpPath(options.env);
  if (!options.strict) {
    files.push({ path: globalPath, scope: "global" });
    for (const path of workspaceMcpPaths(options.workspaceRoot))
      if (resolve(path) !== resolve(globalPath)) files.push({ path, scope: "workspace" });
  }
  for (const f of options.configFiles ?? [])
    files.push({ path: resolve(options.cwd, expandHome(f, options.env)), scope: "flag" });
  const byName = new Map<string, McpServerConfig>();
  const untrusted: McpServerConfig[] = [];
  for (const { path, scope } of files) {
    const { doc, problem } = await readDoc(
      path,
      scope === "workspace" ? { root: options.workspaceRoot, warnings } : undefined,
    );
    if (problem) {
      if (scope === "flag")
        throw new UsageError(`--mcp-config: ${problem}`, { reason: "bad_input" });
      warnings.push({ code: "mcp_config_invalid", message: problem });
      continue;
    }
    if (doc === undefined) {
      if (scope === "flag")
        throw new UsageError(`--mcp-config: ${path} does not exist or is empty`, {
          reason: "bad_input",
        });
      continue;
    }
    const parsed = parseServers(doc, path, scope);
    for (const p of parsed.problems) warnings.push({ code: "mcp_config_invalid", message: p });
    if (scope === "workspace" && !options.trusted) {
      untrusted.push(...parsed.servers.filter((s) => s.enabled));
      continue;
    }
    for (const s of parsed.servers) byName.set(s.name, s);
  }
  if (untrusted.length) {
    const names = untrusted.map((s) => s.name).join(", ");
    const from = [...new Set(untrusted.map((s) => s.source))].join(", ");
    warnings.push({
      code: "untrusted_workspace_setting",
      message: `MCP servers ${names} from ${from} were not started: the workspace is not trusted (pass --trust-workspace, set CHATCLI_TRUST_WORKSPACE=1 or add it to trusted_workspaces in ~/.chatcli/config.json)`,
    });
  }
  return { servers: [...byName.values()], untrusted, warnings };
}

/** A new entry as Go writes it (its field order). */
export interface NewServer {
  name: string;
  transport: "stdio" | "http" | "sse";
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  enabled?: boolean;
}

async function rewrite(
  path: string,
  change: (doc: Record<string, unknown>) => boolean,
): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await withLock(path, async () => {
    const { doc, problem } = await readDoc(path);
    // a file that does not parse is never overwritten (the user's servers would be lost)
    if (problem) throw new ConfigError(problem, { hint: `fix or move ${path}` });
    const base =
      doc === undefined ? { mcpServers: [] } : (doc as Record<string, unknown> | undefined);
    if (!base || typeof base !== "object" || Array.isArray(base))
      throw new ConfigError(`${path}: not a JSON object`, { hint: `fix or move ${path}` });
    if (!change(base)) return;
    await writeFileAtomic(path, `${JSON.stringify(base, null, 2)}\n`, { mode: 0o600 });
  });
}

/** Adds a server to the global file (other servers and unknown keys kept). */
export async function addServer(env: Env, server: NewServer): Promise<string> {
  const path = globalMcpPath(env);
  await rewrite(path, (doc) => {
    if (rawEntries(doc).some((e) => e.name === server.name))
      throw new UsageError(`an MCP server named ${server.name} already exists in ${path}`, {
        reason: "bad_input",
        hint: `remove it first: chatcli mcp remove ${server.name}`,
      });
    const entry: Record<string, unknown> = { name: server.name };
    if (server.command) entry["command"] = server.command;
    if (server.args?.length) entry["args"] = server.args;
    if (server.env && Object.keys(server.env).length) entry["env"] = server.env;
    entry["transport"] = server.transport;
    if (server.url) entry["url"] = server.url;
    if (server.headers && Object.keys(server.headers).length) entry["headers"] = server.headers;
    entry["enabled"] = server.enabled ?? true;
    const key = "servers" in doc && !("mcpServers" in doc) ? "servers" : "mcpServers";
    const list = doc[key];
    if (Array.isArray(list)) list.push(entry);
    else if (list && typeof list === "object") {
      // Claude's object shape: keyed by name, no `name` inside
      const { name, ...rest } = entry;
      (list as Record<string, unknown>)[name as string] = rest;
    } else doc[key] = [entry];
    return true;
  });
  return path;
}

/** Removes a server from the global file; false when it was not there. */
export async function removeServer(env: Env, name: string): Promise<boolean> {
  const path = globalMcpPath(env);
  let removed = false;
  if ((await readTextIfExists(path)) === undefined) return false;
  await rewrite(path, (doc) => {
    for (const key of ["servers", "mcpServers"]) {
      const list = doc[key];
      if (Array.isArray(list)) {
        const kept = list.filter(
          (e) => !(e && typeof e === "object" && (e as Record<string, unknown>)["name"] === name),
        );
        removed ||= kept.length !== list.length;
        doc[key] = kept;
      } else if (list && typeof list === "object" && name in list) {
        delete (list as Record<string, unknown>)[name];
        removed = true;
      }
    }
    return removed;
  });
  return removed;
}
