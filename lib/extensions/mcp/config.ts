/**
 * MCP server configuration, read as the tools that write it do:
 * - the Go ChatCLI's `~/.chatcli/mcp_servers.json`: `{"mcpServers": [{name, command, args, env,
 *   transport, url, enabled, headers, timeout, initTimeout, enabledTools, disabledTools, …}]}` (its
 *   code and docs), also spelled `{"servers": […]}`;
 * - Claude Code's `.mcp.json` / `--mcp-config FILE`: `{"mcpServers": {name: {command, args, env} |
 *   {type: "http"|"sse", url, headers}}}`.
 * Keys chatcli does not know are kept when `mcp add|remove` rewrites the file.
 */
import type { Env } from "../../core/ctx.ts";
import { expandHome } from "../../core/paths.ts";

export type McpTransport = "stdio" | "http" | "sse";
export type McpScope = "global" | "workspace" | "flag";

export interface McpServerConfig {
  name: string;
  transport: McpTransport;
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  enabled: boolean;
  /** Per request (Go: `timeout`, seconds; default 60 s). */
  timeoutMs: number;
  /** The initialize handshake (Go: `initTimeout`, seconds; default 10 s). */
  initTimeoutMs: number;
  /** When non-empty, only these tools (bare names, `*` allowed); else all but `disabledTools`. */
  enabledTools: string[];
  disabledTools: string[];
  description?: string;
  scope: McpScope;
  /** The file it came from. */
  source: string;
}

/** Go's defaults (cli/mcp/config.go): 60 s per request, 10 s for the handshake. */
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_INIT_TIMEOUT_MS = 10_000;

export interface ParsedFile {
  servers: McpServerConfig[];
  /** Entries that were skipped, one line each (a missing command, an unknown transport). */
  problems: string[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function stringMap(value: unknown): Record<string, string> {
  if (!isObject(value)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "string") out[k] = v;
    else if (typeof v === "number" || typeof v === "boolean") out[k] = String(v);
  }
  return out;
}

function seconds(value: unknown, fallbackMs: number): number {
  const n = typeof value === "number" ? value : Number(value);
  return Number.isFinite(n) && n > 0 ? Math.round(n * 1000) : fallbackMs;
}

function transportOf(entry: Json): McpTransport | undefined {
  const raw = String(entry["transport"] ?? entry["type"] ?? "")
    .trim()
    .toLowerCase()
    .replace(/[-_ ]/g, "");
  if (raw === "") return typeof entry["url"] === "string" ? "http" : "stdio";
  if (raw === "stdio") return "stdio";
  if (raw === "sse") return "sse";
  if (raw === "http" || raw === "streamablehttp" || raw === "streamable") return "http";
  return undefined;
}

/** The entries of a file as raw objects, named, whichever of the three shapes it uses. */
export function rawEntries(doc: unknown): Array<{ name: string; entry: Json }> {
  if (!isObject(doc)) return [];
  const list = doc["servers"] ?? doc["mcpServers"];
  if (Array.isArray(list))
    return list.filter(isObject).map((entry) => ({ name: String(entry["name"] ?? ""), entry }));
  if (isObject(list))
    return Object.entries(list)
      .filter((e): e is [string, Json] => isObject(e[1]))
      .map(([name, entry]) => ({ name, entry }));
  return [];
}

/** Parses one config document; `source` and `scope` are recorded on each server. */
export function parseServers(doc: unknown, source: string, scope: McpScope): ParsedFile {
  const servers: McpServerConfig[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const { name, entry } of rawEntries(doc)) {
    const label = name || "(unnamed)";
    if (!name.trim()) {
      problems.push(`${source}: a server without a name was skipped`);
      continue;
    }
    const transport = transportOf(entry);
    if (!transport) {
      problems.push(
        `${source}: server ${label}: unknown transport ${JSON.stringify(entry["transport"] ?? entry["type"])} (stdio, http or sse)`,
      );
      continue;
    }
    const command = typeof entry["command"] === "string" ? entry["command"].trim() : "";
    const url = typeof entry["url"] === "string" ? entry["url"].trim() : "";
    if (transport === "stdio" && !command) {
      problems.push(`${source}: server ${label}: stdio needs a command`);
      continue;
    }
    if (transport !== "stdio" && !url) {
      problems.push(`${source}: server ${label}: ${transport} needs a url`);
      continue;
    }
    if (seen.has(name)) {
      problems.push(`${source}: server ${label} is defined twice; the first one is used`);
      continue;
    }
    seen.add(name);
    const disabled = entry["disabled"] === true;
    servers.push({
      name,
      transport,
      ...(command ? { command } : {}),
      args: strings(entry["args"]),
      env: stringMap(entry["env"]),
      ...(typeof entry["cwd"] === "string" && entry["cwd"] ? { cwd: entry["cwd"] } : {}),
      ...(url ? { url } : {}),
      headers: stringMap(entry["headers"]),
      // Go: `enabled` (a missing key is false in Go's struct; Claude's files have no such key)
      enabled: entry["enabled"] === undefined ? !disabled : entry["enabled"] === true,
      timeoutMs: seconds(entry["timeout"], DEFAULT_TIMEOUT_MS),
      initTimeoutMs: seconds(entry["initTimeout"], DEFAULT_INIT_TIMEOUT_MS),
      enabledTools: strings(entry["enabledTools"]),
      disabledTools: strings(entry["disabledTools"]),
      ...(typeof entry["description"] === "string" ? { description: entry["description"] } : {}),
      scope,
      source,
    });
  }
  return { servers, problems };
}

/** Whether a server's tool is offered (Go's IsToolVisible: enabledTools wins, then disabledTools). */
export function toolVisible(server: McpServerConfig, tool: string): boolean {
  const bare = tool.replace(/^mcp_/, "");
  const hit = (list: string[]) =>
    list.some((e) => {
      const t = e.trim();
      return t === "*" || t === tool || t === bare;
    });
  if (server.enabledTools.length) return hit(server.enabledTools);
  return !hit(server.disabledTools);
}

/**
 * `${VAR}` and `${VAR:-default}` in a value, from the user's environment (Claude Code's .mcp.json
 * expansion); `~/` at the start of a path. Names that are unset expand to "" (or the default).
 */
export function expandVars(value: string, env: Env): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, def) => {
    const v = env[name];
    return v !== undefined && v !== "" ? v : (def ?? "");
  });
}

/** The server with every `${VAR}` expanded (command, args, env, cwd, url, headers). */
export function expandServer(server: McpServerConfig, env: Env): McpServerConfig {
  const x = (v: string) => expandVars(v, env);
  const map = (m: Record<string, string>) =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, x(v)]));
  return {
    ...server,
    ...(server.command ? { command: expandHome(x(server.command), env) } : {}),
    args: server.args.map(x),
    env: map(server.env),
    ...(server.cwd ? { cwd: expandHome(x(server.cwd), env) } : {}),
    ...(server.url ? { url: x(server.url) } : {}),
    headers: map(server.headers),
  };
}
