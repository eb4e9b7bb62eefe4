import { join } from "node:path";
import type { Env } from "./ctx.ts";

/**
 * The user's home directory: HOME from env, else the OS's idea of it. node:os is loaded only then:
 * it costs ~0.2 ms of every start, and HOME is nearly always set (issue 23).
 */
export function userHome(env: Env): string {
  return env["HOME"] || (require("node:os") as typeof import("node:os")).homedir();
}

/** Expands a leading `~/` against the user's home. */
export function expandHome(path: string, env: Env): string {
  if (path === "~") return userHome(env);
  if (path.startsWith("~/")) return join(userHome(env), path.slice(2));
  return path;
}

/** `~/.chatcli`, or `CHATCLI_HOME`. Evaluated per call, never at import. */
export function chatcliHome(env: Env): string {
  const override = env["CHATCLI_HOME"];
  if (override) return expandHome(override, env);
  return join(userHome(env), ".chatcli");
}

export function memoryDir(env: Env): string {
  return join(chatcliHome(env), "memory");
}

export function sessionsDir(env: Env): string {
  return join(chatcliHome(env), "sessions");
}

/** The global bootstrap dir: `CHATCLI_BOOTSTRAP_DIR` replaces only this one. */
export function bootstrapGlobalDir(env: Env): string {
  const override = env["CHATCLI_BOOTSTRAP_DIR"];
  return override ? expandHome(override, env) : chatcliHome(env);
}

export function globalConfigPath(env: Env): string {
  return join(chatcliHome(env), "config.json");
}
