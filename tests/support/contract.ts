import { expect } from "bun:test";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, runChatcli } from "./binary.ts";
import type { TempDir } from "./ctx.ts";
import { runInProcess } from "./in-process.ts";

/** Assertions on the public contract (CONTRACT §2): envelopes, documents, control characters. */

export const ENVELOPE_KEYS = [
  "type",
  "schema_version",
  "chatcli_version",
  "command",
  "status",
  "is_error",
  "exit_code",
  "terminal_reason",
  "result",
  "session_id",
  "model",
  "num_turns",
  "duration_ms",
  "duration_api_ms",
  "usage",
  "total_cost_usd",
  "cost_is_estimate",
  "tools",
  "permission_denials",
  "files_changed",
  "checkpoints",
  "memory",
  "bootstrap_files",
  "compaction",
  "warnings",
  "error",
];

/** Exactly one JSON document and a newline on stdout. */
export function oneJson(stdout: string): unknown {
  expect(stdout.endsWith("\n")).toBe(true);
  expect(stdout.slice(0, -1)).not.toContain("\n");
  return JSON.parse(stdout);
}

/** One envelope with every field present and `is_error == (exit_code != 0) == (status == "error")`. */
export function envelope(stdout: string, code: number): Record<string, unknown> {
  const env = oneJson(stdout) as Record<string, unknown>;
  for (const key of ENVELOPE_KEYS) expect(Object.keys(env)).toContain(key);
  expect(env["type"]).toBe("result");
  expect(env["exit_code"]).toBe(code);
  expect(env["is_error"]).toBe(code !== 0);
  expect(env["status"]).toBe(code !== 0 ? "error" : "success");
  expect(controls(env)).toBe(0);
  return env;
}

/** `chatcli ARGS` in-process in `home` (also its cwd), as `chatcli` below. */
export async function chatcliInProcess(home: TempDir, args: string[], stdin?: string, extra = {}) {
  return runInProcess(args, {
    env: baseEnv(home.path, extra),
    cwd: home.path,
    ...(stdin === undefined ? {} : { stdin }),
  });
}

/** Runs dist/chatcli in `home` (also its cwd), stdin piped and closed when given. */
export async function chatcli(home: TempDir, args: string[], stdin?: string, extra = {}) {
  return runChatcli(args, {
    env: baseEnv(home.path, extra),
    cwd: home.path,
    ...(stdin === undefined ? {} : { stdin }),
  });
}

/** How many strings inside a parsed JSON value hold a control character other than \n and \t. */
export function controls(value: unknown): number {
  if (typeof value === "string") return /[\u0000-\u0008\u000b-\u001f\u007f]/.test(value) ? 1 : 0;
  if (value && typeof value === "object")
    return Object.values(value).reduce((n: number, v) => n + controls(v), 0);
  return 0;
}

/** Every file under dir, recursively. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}
