import type { Env } from "../../core/ctx.ts";
import { childEnvironment } from "../../sandbox/env.ts";

/**
 * What a program chatcli starts for the user (an MCP server, a hook) inherits: the same core set as
 * a sandboxed command (lib/sandbox/env.ts), never a provider key or an ambient secret. Anything else
 * it needs, the user names in its config (`env` of mcp_servers.json / .mcp.json).
 */
export function coreEnv(env: Env): Record<string, string> {
  return childEnvironment(env, { policy: "core" }).env;
}

/** The core set plus what the config names (the config wins: the user asked for it). */
export function serverEnv(env: Env, named: Record<string, string>): Record<string, string> {
  return { ...coreEnv(env), ...named };
}
