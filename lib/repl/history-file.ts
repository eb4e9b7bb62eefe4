import { open, rename, stat } from "node:fs/promises";
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
    return text ? decodeHistory(text).filter((entry) => entry.trim() !== "") : [];
  };
  const own = await read(path);
  if (!goPath || goPath === path) return own;
  const go = await read(goPath);
  if (go.length === 0) return own;
  const seen = new Set(own);
  return [...go.filter((line) => !seen.has(line)), ...own];
}

/**
 * Appends inputs (secrets redacted, see `encodeHistoryEntry`) under a lock, rotating the file to
 * `<file>.bak-<unix>` with the last 5000 entries kept once it reaches `HISTORY_MAX_SIZE`.
 */
export async function appendInputHistory(
  path: string | undefined,
  entries: readonly string[],
  env: Env,
  now: Date,
): Promise<void> {
  if (!path || entries.length === 0) return;
  const secrets = configuredSecrets(env);
  const lines = entries.map((e) => encodeHistoryEntry(redactHistoryLine(e, secrets)));
  await withLock(path, async () => {
    const size = await stat(path).then(
      (s) => s.size,
      () => -1,
    );
    if (size >= maxBytes(env)) {
      const existing = (await readTextIfExists(path)) ?? "";
      await rename(path, `${path}.bak-${Math.floor(now.getTime() / 1000)}`);
      const kept = decodeHistory(existing).filter((e) => e !== "");
      const base = kept.slice(-KEEP_AFTER_ROTATION).map(encodeHistoryEntry);
      await writeFileAtomic(path, `${[...base, ...lines].join("\n")}\n`);
      return;
    }
    if (size <= 0) return writeFileAtomic(path, `${lines.join("\n")}\n`);
    // One append (a single write under the lock): an entry is on disk as soon as it is submitted.
    const handle = await open(path, "a+");
    try {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      const lead = last.toString() === "\n" ? "" : "\n";
      await handle.appendFile(`${lead}${lines.join("\n")}\n`);
    } finally {
      await handle.close();
    }
  });
}

/**
 * One entry in the file's one-entry-per-line format (the Go tool's). A multi-line entry keeps its
 * lines: each but the last ends in a `\` continuation; a line's own trailing backslashes are doubled
 * so they are not read as one. The Go tool, which knows no continuation, sees each line as an entry.
 */
export function encodeHistoryEntry(entry: string): string {
  const lines = entry.split(/\r?\n/).map((line) => line.replace(/\\+$/, (run) => run + run));
  return lines.join("\\\n");
}

/** The entries of a history file (see `encodeHistoryEntry`). */
export function decodeHistory(text: string): string[] {
  const entries: string[] = [];
  let pending: string[] = [];
  for (const raw of text.split("\n")) {
    const run = /\\+$/.exec(raw)?.[0].length ?? 0;
    const continued = run % 2 === 1;
    const body = raw.slice(0, raw.length - run) + "\\".repeat(Math.floor(run / 2));
    pending.push(body);
    if (continued) continue;
    entries.push(pending.join("\n"));
    pending = [];
  }
  if (pending.length > 0) entries.push(pending.join("\n"));
  if (entries.at(-1) === "") entries.pop();
  return entries;
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
