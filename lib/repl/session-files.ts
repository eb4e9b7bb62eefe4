/**
 * Interim session files for the REPL (ChatCLI format v2 in `~/.chatcli/sessions/`), used until
 * lib/history's `openSession` lands; the format is the reference's §5.3 so the two agree on disk.
 */
import { readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Env } from "../core/ctx.ts";
import { isNotFound, readJsonFile, toGoJson, withLock, writeFileAtomic } from "../core/fs.ts";
import { sessionsDir } from "../core/paths.ts";
import { configuredSecrets, redactDeep } from "../core/redact.ts";
import type { ChatMessage } from "../llm/types.ts";
import type { SessionEntry } from "./services.ts";

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_\-.]{0,254}$/;
export const INVALID_NAME =
  "session name must be alphanumeric with dash/underscore/dot only (max 255 chars)";

/** Whether a name may be saved under (§5.3: alphanumeric start, then `_ - .`, ≤ 255, no controls). */
export function isValidSessionName(name: string): boolean {
  return NAME.test(name);
}

/** The file of a session name: `/` and `\` become `_`, `.json` appended. */
export function sessionPath(env: Env, name: string): string {
  return join(sessionsDir(env), `${name.replace(/[/\\]/g, "_")}.json`);
}

/** Title rule of §5.3: first non-empty user message, whitespace collapsed, 60 runes + `…`. */
export function sessionTitle(history: readonly ChatMessage[]): string {
  const first = history.find((m) => m.role === "user" && m.content.trim() !== "");
  if (!first) return "";
  const text = first.content.replace(/\s+/g, " ").trim();
  const runes = Array.from(text);
  return runes.length > 60 ? `${runes.slice(0, 60).join("")}…` : text;
}

/** Saves atomically (under the session's lock), secrets redacted, unknown keys of the old file kept. */
export async function saveSessionFile(
  env: Env,
  name: string,
  history: readonly ChatMessage[],
): Promise<void> {
  if (!NAME.test(name)) throw new Error(INVALID_NAME);
  const path = sessionPath(env, name);
  await withLock(path, async () => {
    const previous = await readJsonFile<Record<string, unknown>>(path);
    const kept = previous.kind === "ok" && isObject(previous.value) ? previous.value : {};
    const chat = redactDeep([...history], configuredSecrets(env));
    const doc = {
      ...kept,
      version: 2,
      title: sessionTitle(history),
      chat_history: chat.length > 0 ? chat : null,
    };
    delete (doc as Record<string, unknown>)["agent_history"];
    delete (doc as Record<string, unknown>)["coder_history"];
    await writeFileAtomic(path, toGoJson(doc));
  });
}

/** Loads a session: v2 object or legacy bare array; legacy agent/coder histories are merged. */
export async function loadSessionFile(env: Env, name: string): Promise<ChatMessage[] | undefined> {
  const read = await readJsonFile<unknown>(sessionPath(env, name));
  if (read.kind === "missing") return undefined;
  if (read.kind === "corrupt") throw new Error(`session '${name}' is not valid JSON`);
  const doc = read.value;
  if (Array.isArray(doc)) return doc as ChatMessage[];
  if (!isObject(doc)) throw new Error(`session '${name}' has an unknown format`);
  const out = [...((doc["chat_history"] as ChatMessage[] | null) ?? [])];
  for (const key of ["agent_history", "coder_history"]) {
    const legacy = (doc[key] as ChatMessage[] | null | undefined) ?? [];
    out.push(...legacy.filter((m) => m.role !== "system"));
  }
  return out;
}

/** Every saved session, name-sorted, with its title when the file has one. */
export async function listSessionFiles(env: Env): Promise<SessionEntry[]> {
  let names: string[];
  try {
    names = (await readdir(sessionsDir(env))).filter((n) => n.endsWith(".json")).sort();
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
  const out: SessionEntry[] = [];
  for (const file of names) {
    const name = file.slice(0, -".json".length);
    const read = await readJsonFile<unknown>(join(sessionsDir(env), file));
    if (read.kind !== "ok") continue;
    const doc = read.value;
    if (Array.isArray(doc)) out.push({ name });
    else if (isObject(doc) && typeof doc["version"] === "number") {
      const title = typeof doc["title"] === "string" && doc["title"] ? doc["title"] : undefined;
      out.push(title ? { name, title } : { name });
    }
  }
  return out;
}

/** Deletes a session file; a missing one is an error the user sees. */
export async function removeSessionFile(env: Env, name: string): Promise<void> {
  try {
    await unlink(sessionPath(env, name));
  } catch (error) {
    if (isNotFound(error)) throw new Error(`session '${name}' not found`);
    throw error;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
