import { rename, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Env } from "../core/ctx.ts";
import { readTextIfExists, withLock, writeFileAtomic } from "../core/fs.ts";
import { chatcliHome, expandHome } from "../core/paths.ts";
import { configuredSecrets, redact } from "../core/redact.ts";
import { envBool } from "../core/settings.ts";

const KEEP_AFTER_ROTATION = 5000;
const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;

/** Where typed inputs are kept: `HISTORY_FILE`, else `~/.chatcli/.chatcli_history`; undefined when disabled. */
export function inputHistoryPath(env: Env): string | undefined {
  if (envBool(env, "CHATCLI_DISABLE_HISTORY", false)) return undefined;
  const override = env["HISTORY_FILE"];
  if (override) return expandHome(override, env);
  return join(chatcliHome(env), ".chatcli_history");
}

/**
 * The Go ChatCLI's default input history, `.chatcli_history` in the working directory (reference
 * §5.6): read for ↑ recall so a migrating user keeps it, never written. undefined with `HISTORY_FILE`
 * (both tools then share that file) or when history is disabled.
 */
export function goInputHistoryPath(env: Env, cwd: string): string | undefined {
  if (envBool(env, "CHATCLI_DISABLE_HISTORY", false) || env["HISTORY_FILE"]) return undefined;
  return join(cwd, ".chatcli_history");
}

/**
 * Loads the saved inputs, oldest first (one per line; a missing file is an empty history). With a
 * Go history file too, its lines come first (older), and the combined list has no repeated entry.
 */
export async function loadInputHistory(
  path: string | undefined,
  goPath?: string,
): Promise<string[]> {
  const read = async (p: string | undefined) => {
    const text = p ? await readTextIfExists(p).catch(() => undefined) : undefined;
    return text ? text.split("\n").filter((line) => line.trim() !== "") : [];
  };
  const own = await read(path);
  if (!goPath || goPath === path) return own;
  const go = await read(goPath);
  if (go.length === 0) return own;
  const seen = new Set(own);
  return [...go.filter((line) => !seen.has(line)), ...own];
}

/**
 * Appends this session's inputs (secrets redacted, one line each) under a lock, rotating the file
 * to `<file>.bak-<unix>` with the last 5000 lines kept once it reaches `HISTORY_MAX_SIZE`.
 */
export async function appendInputHistory(
  path: string | undefined,
  entries: readonly string[],
  env: Env,
  now: Date,
): Promise<void> {
  if (!path || entries.length === 0) return;
  const secrets = configuredSecrets(env);
  const lines = entries.map((e) => redactHistoryLine(e.replace(/\r?\n/g, " "), secrets));
  await withLock(path, async () => {
    const existing = (await readTextIfExists(path)) ?? "";
    let base = existing === "" || existing.endsWith("\n") ? existing : `${existing}\n`;
    const size = await stat(path).then(
      (s) => s.size,
      () => 0,
    );
    if (size >= maxBytes(env)) {
      await rename(path, `${path}.bak-${Math.floor(now.getTime() / 1000)}`);
      const kept = base.split("\n").filter((l) => l !== "");
      base = `${kept.slice(-KEEP_AFTER_ROTATION).join("\n")}\n`;
    }
    await writeFileAtomic(path, `${base}${lines.join("\n")}\n`);
  });
}

const SECRET_ASSIGNMENT = /((?:password|secret|token|api_key|apikey)(?:=|: ))[^\s"';]+/gi;

/** Redacts API-key shapes, configured key values and `password=…`-style assignments. */
export function redactHistoryLine(line: string, secrets: readonly string[] = []): string {
  return redact(line, secrets).replace(SECRET_ASSIGNMENT, "$1[REDACTED]");
}

function maxBytes(env: Env): number {
  const raw = env["HISTORY_MAX_SIZE"];
  if (!raw) return DEFAULT_MAX_BYTES;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(GB|MB|KB|G|M|K|B)?\s*$/i.exec(raw);
  if (!m) return DEFAULT_MAX_BYTES;
  const unit = (m[2] ?? "B").toUpperCase();
  const mult = unit.startsWith("G")
    ? 1024 ** 3
    : unit.startsWith("M")
      ? 1024 ** 2
      : unit.startsWith("K")
        ? 1024
        : 1;
  const bytes = Number(m[1]) * mult;
  return bytes > 0 ? bytes : DEFAULT_MAX_BYTES;
}
