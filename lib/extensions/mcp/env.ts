import type { Env } from "../../core/ctx.ts";
import { isSecretVariable } from "../../sandbox/env.ts";

/**
 * What a program chatcli starts for the user (an MCP server, a hook) inherits: a core set that lets
 * it find its tools and its home, never a provider key or an ambient secret. Anything else it needs,
 * the user names in its config (`env` of mcp_servers.json / .mcp.json).
 */
const CORE = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
  "XDG_RUNTIME_DIR",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "CI",
]);

/** The core environment: the names above (and LC_*) whose values do not look like credentials. */
export function coreEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (!CORE.has(name) && !name.startsWith("LC_")) continue;
    if (isSecretVariable(name, value)) continue; // a proxy URL with a password
    out[name] = value;
  }
  return out;
}

/** The core set plus what the config names (the config wins: the user asked for it). */
export function serverEnv(env: Env, named: Record<string, string>): Record<string, string> {
  return { ...coreEnv(env), ...named };
}
