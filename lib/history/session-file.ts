import { join } from "node:path";
import type { Env } from "../core/ctx.ts";
import { UsageError } from "../core/errors.ts";
import { sessionsDir } from "../core/paths.ts";
import type { ChatMessage } from "../llm/types.ts";

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_\-.]{0,254}$/;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Checks a session name for saving (ChatCLI's rule); throws a usage error otherwise. */
export function validateSessionName(name: string): string {
  if (!NAME.test(name) || CONTROL.test(name)) {
    throw new UsageError(
      `invalid session name ${JSON.stringify(name)}: session name must be alphanumeric with dash/underscore/dot only (max 255 chars)`,
    );
  }
  if (name.length > MAX_NAME) {
    throw new UsageError(
      `invalid session name: ${name.length} characters, at most ${MAX_NAME} (its files must fit the file system's 255-byte names)`,
    );
  }
  return name;
}

/** Longest name whose files (`<name>.json.lock`, `<name>.chatcli/`) fit a 255-byte file name. */
const MAX_NAME = 255 - ".json.lock".length;

function fileStem(name: string): string {
  return name.replace(/[/\\]/g, "_");
}

/** `~/.chatcli/sessions/<name>.json` (slashes replaced by `_`, as ChatCLI does). */
export function sessionFilePath(env: Env, name: string): string {
  return join(sessionsDir(env), `${fileStem(name)}.json`);
}

/** chatcli's own per-session folder (checkpoints, snapshots): not a `*.json`, so ChatCLI's listing skips it. */
export function sessionDataDir(env: Env, name: string): string {
  return join(sessionsDir(env), `${fileStem(name)}.chatcli`);
}

/** A session file's content, with keys we do not know kept for the rewrite. */
export interface SessionDoc {
  title: string;
  messages: ChatMessage[];
  /** Top-level keys other than version/title/chat_history/agent_history/coder_history. */
  extra: Record<string, unknown>;
  /** The file was a legacy format (bare array or per-mode histories). */
  legacy: boolean;
}

function isMessage(value: unknown): value is ChatMessage {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { role?: unknown }).role === "string"
  );
}

function messageList(value: unknown): ChatMessage[] | undefined {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) return undefined;
  if (!value.every(isMessage)) return undefined;
  return value.map((m) => (typeof m.content === "string" ? m : { ...m, content: "" }));
}

const KNOWN = new Set(["version", "title", "chat_history", "agent_history", "coder_history"]);

/**
 * Reads a session from parsed JSON: v2 (`version ≥ 2`), a legacy bare array of messages, or a legacy
 * object with per-mode histories (agent, then coder non-system messages appended). undefined when it is
 * not a session (e.g. a cost snapshot).
 */
export function parseSessionDoc(value: unknown): SessionDoc | undefined {
  if (Array.isArray(value)) {
    const messages = messageList(value);
    return messages ? { title: "", messages, extra: {}, legacy: true } : undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const doc = value as Record<string, unknown>;
  if (!("chat_history" in doc) && !("agent_history" in doc) && !("coder_history" in doc)) {
    return undefined;
  }
  const chat = messageList(doc["chat_history"]);
  const agent = messageList(doc["agent_history"]);
  const coder = messageList(doc["coder_history"]);
  if (!chat || !agent || !coder) return undefined;
  const legacy = agent.length > 0 || coder.length > 0 || !(Number(doc["version"]) >= 2);
  const messages = [
    ...chat,
    ...agent.filter((m) => m.role !== "system"),
    ...coder.filter((m) => m.role !== "system"),
  ];
  const extra: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(doc)) if (!KNOWN.has(key)) extra[key] = v;
  const title = typeof doc["title"] === "string" ? doc["title"] : "";
  return { title, messages, extra, legacy };
}

/** ChatCLI's title: first non-empty user message, whitespace collapsed, > 60 runes → 60 + `…`. */
export function deriveTitle(messages: readonly ChatMessage[]): string {
  for (const m of messages) {
    if (m.role !== "user" || m.meta?.is_summary) continue;
    const text = (m.content ?? "").replace(/\s+/g, " ").trim();
    if (!text) continue;
    const runes = Array.from(text);
    return runes.length > 60 ? `${runes.slice(0, 60).join("")}…` : text;
  }
  return "";
}

/** The v2 document to write: version, title, chat_history, then the unknown keys we read. */
export function sessionJson(doc: {
  title: string;
  messages: readonly ChatMessage[];
  extra: Record<string, unknown>;
}): Record<string, unknown> {
  return {
    version: 2,
    title: doc.title || deriveTitle(doc.messages),
    chat_history: doc.messages,
    ...doc.extra,
  };
}
