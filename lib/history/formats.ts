import { asId } from "../core/as-text.ts";
import { UsageError } from "../core/errors.ts";
import { toGoJson } from "../core/fs.ts";
import type { ChatMessage, ToolCall } from "../llm/types.ts";
import { jsonErrorOffset, lineColumn } from "./json-position.ts";
import { stringifyPieces } from "./json-stream.ts";
import { SUMMARY_PREFIXES } from "./level2.ts";
import { parseSessionDoc, sessionJson } from "./session-file.ts";

/** The conversation shapes `chatcli compact` reads and writes back unchanged in form. */
export type ConversationFormat =
  | "chatcli-session"
  | "chatcli-messages"
  | "openai-messages"
  | "openai-body"
  | "anthropic-body";

export interface Conversation {
  format: ConversationFormat;
  messages: ChatMessage[];
  /** Writes compacted messages back in the input's format. */
  render(messages: readonly ChatMessage[]): string;
  /** The same text in pieces, message by message (never held whole): joined, they are `render`. */
  parts(messages: readonly ChatMessage[]): Iterable<string>;
}

type Wire = Record<string, unknown>;
type Block = { type?: string; text?: string; [k: string]: unknown };

/** The wire message a converted message came from, carried through copies made by compaction. */
const ORIGIN = Symbol("chatcli.origin");
interface Origin {
  wire: Wire;
  content: string;
  toolCalls: ChatMessage["tool_calls"];
}
type Tagged = ChatMessage & { [ORIGIN]?: Origin };

function tag(message: ChatMessage, wire: Wire): ChatMessage {
  (message as Tagged)[ORIGIN] = { wire, content: message.content, toolCalls: message.tool_calls };
  if (SUMMARY_PREFIXES.some((p) => message.content.startsWith(p))) {
    message.meta = { ...message.meta, is_summary: true };
  }
  return message;
}

function markIfSummary(message: ChatMessage): ChatMessage {
  return SUMMARY_PREFIXES.some((p) => message.content.startsWith(p))
    ? { ...message, meta: { ...message.meta, is_summary: true } }
    : message;
}

function originOf(message: ChatMessage): Origin | undefined {
  return (message as Tagged)[ORIGIN];
}

function badInput(message: string): never {
  throw new UsageError(message, {
    reason: "bad_input",
    hint: "expected a ChatCLI session, a message array, an OpenAI messages array/body or an Anthropic {system, messages} body",
  });
}

/** Parses JSON, reporting the position of a syntax error as a bad_input usage error. */
export function parseJsonStrict(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const offset = jsonErrorOffset(text);
    const at = offset >= 0 ? lineColumn(text, offset) : undefined;
    const where = at ? ` at line ${at.line}, column ${at.column} (offset ${offset})` : "";
    throw new UsageError(`malformed JSON input${where}: ${(error as Error).message}`, {
      reason: "bad_input",
    });
  }
}

/** The text of a message content: a string, or the text parts of a parts array joined by newlines. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Block[])
    .map((b) =>
      typeof b === "string" ? b : b?.type === "text" && typeof b.text === "string" ? b.text : "",
    )
    .filter(Boolean)
    .join("\n");
}

export function isObject(v: unknown): v is Wire {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function hasBlock(messages: Wire[], types: string[]): boolean {
  return messages.some(
    (m) =>
      Array.isArray(m["content"]) &&
      (m["content"] as Block[]).some((b) => types.includes(b?.type ?? "")),
  );
}

function isOpenAIish(messages: Wire[]): boolean {
  return messages.some(
    (m) =>
      m["role"] === "developer" ||
      m["content"] === null ||
      Array.isArray(m["content"]) ||
      (Array.isArray(m["tool_calls"]) &&
        (m["tool_calls"] as Wire[]).some((c) => isObject(c?.["function"]))),
  );
}

/** Tool-call arguments as sent (a JSON string or an object); what did not parse is kept as `raw`. */
export function parseArgs(raw: unknown): { args: Record<string, unknown>; raw?: string } {
  if (typeof raw !== "string") return { args: isObject(raw) ? raw : {} };
  try {
    const v = JSON.parse(raw);
    return isObject(v) ? { args: v } : { args: {}, raw };
  } catch {
    return { args: {}, raw };
  }
}

function fromOpenAI(m: Wire): ChatMessage {
  const role = m["role"] === "developer" ? "system" : m["role"] === "function" ? "tool" : m["role"];
  const out: ChatMessage = { role: role as ChatMessage["role"], content: textOf(m["content"]) };
  if (Array.isArray(m["tool_calls"])) {
    out.tool_calls = (m["tool_calls"] as Wire[]).map((c): ToolCall => {
      const fn = isObject(c["function"]) ? c["function"] : {};
      const { args, raw } = parseArgs(fn["arguments"]);
      return {
        id: asId(c["id"]),
        type: "function",
        name: asId(fn["name"]),
        arguments: args,
        ...(raw ? { raw } : {}),
      };
    });
  }
  if (typeof m["tool_call_id"] === "string") out.tool_call_id = m["tool_call_id"];
  return tag(out, m);
}

function unchanged(m: ChatMessage, origin: Origin): boolean {
  return origin.content === m.content && origin.toolCalls === m.tool_calls;
}

function toOpenAI(m: ChatMessage): Wire {
  const origin = originOf(m);
  if (origin && unchanged(m, origin)) return origin.wire;
  const wire: Wire = origin
    ? { ...origin.wire, content: m.content }
    : { role: m.role, content: m.content };
  if (origin && m.tool_calls && m.tool_calls !== origin.toolCalls) {
    const before = (origin.wire["tool_calls"] as Wire[] | undefined) ?? [];
    wire["tool_calls"] = m.tool_calls.map((c, i) => {
      const old = before[i] ?? { id: c.id, type: "function" };
      const fn = isObject(old["function"]) ? old["function"] : {};
      return { ...old, function: { ...fn, name: c.name, arguments: JSON.stringify(c.arguments) } };
    });
  }
  return wire;
}

function fromAnthropic(m: Wire): ChatMessage {
  const content = m["content"];
  if (!Array.isArray(content)) {
    return tag({ role: m["role"] as ChatMessage["role"], content: textOf(content) }, m);
  }
  const blocks = content as Block[];
  const results = blocks.filter((b) => b?.type === "tool_result");
  const calls = blocks.filter((b) => b?.type === "tool_use");
  const text = textOf(blocks);
  if (results.length > 0) {
    const parts = results.map((r) => textOf(r["content"]));
    if (text) parts.push(text);
    const first = results[0] as Block;
    return tag(
      { role: "tool", content: parts.join("\n"), tool_call_id: asId(first["tool_use_id"]) },
      m,
    );
  }
  const out: ChatMessage = { role: m["role"] as ChatMessage["role"], content: text };
  if (calls.length > 0) {
    out.tool_calls = calls.map((c) => ({
      id: asId(c["id"]),
      name: asId(c["name"]),
      arguments: isObject(c["input"]) ? c["input"] : {},
    }));
  }
  return tag(out, m);
}

function toAnthropic(m: ChatMessage): Wire {
  const origin = originOf(m);
  if (origin && unchanged(m, origin)) return origin.wire;
  if (!origin) return { role: m.role === "assistant" ? "assistant" : "user", content: m.content };
  const wire = origin.wire;
  if (!Array.isArray(wire["content"])) return { ...wire, content: m.content };
  const blocks = wire["content"] as Block[];
  if (m.role === "tool") {
    let first = true;
    const next = blocks
      .filter((b) => b?.type === "tool_result")
      .map((b) => {
        const content = first ? m.content : "[compacted]";
        first = false;
        return { ...b, content };
      });
    return { ...wire, content: next };
  }
  const next: Block[] = [];
  let placed = false;
  const inputs = new Map((m.tool_calls ?? []).map((c) => [c.id, c.arguments]));
  for (const b of blocks) {
    if (b?.type === "tool_use" && inputs.has(asId(b["id"]))) {
      next.push({ ...b, input: inputs.get(asId(b["id"])) });
    } else if (b?.type !== "text") next.push(b);
    else if (!placed) {
      placed = true;
      if (m.content) next.push({ ...b, text: m.content });
    }
  }
  if (!placed && m.content) next.unshift({ type: "text", text: m.content });
  return { ...wire, content: next };
}

function* mapped<T, U>(items: Iterable<T>, f: (item: T) => U): Generator<U> {
  for (const item of items) yield f(item);
}

/** `alternate`, one wire at a time (holds only the last one back, to merge it with the next). */
function* alternating(wires: Iterable<Wire>): Generator<Wire> {
  let last: Wire | undefined;
  for (const wire of wires) {
    if (!last || last["role"] !== wire["role"]) {
      if (last) yield last;
      last = wire;
      continue;
    }
    const blocks = [...blocksOf(last["content"]), ...blocksOf(wire["content"])];
    const results = blocks.filter((b) => b?.type === "tool_result");
    const others = blocks.filter((b) => b?.type !== "tool_result");
    last = { ...last, content: [...results, ...others] };
  }
  if (last) yield last;
}

function blocksOf(content: unknown): Block[] {
  if (Array.isArray(content)) return content as Block[];
  return typeof content === "string" && content !== "" ? [{ type: "text", text: content }] : [];
}

/**
 * Anthropic turns alternate user/assistant: adjacent same-role messages left by compaction (the
 * task, a summary or truncation marker, then a user turn) become one, tool_result blocks first.
 */
export function alternate(wires: Wire[]): Wire[] {
  const out: Wire[] = [];
  for (const wire of wires) {
    const last = out.at(-1);
    if (!last || last["role"] !== wire["role"]) {
      out.push(wire);
      continue;
    }
    const blocks = [...blocksOf(last["content"]), ...blocksOf(wire["content"])];
    const results = blocks.filter((b) => b?.type === "tool_result");
    const others = blocks.filter((b) => b?.type !== "tool_result");
    out[out.length - 1] = { ...last, content: [...results, ...others] };
  }
  return out;
}

function indentOf(text: string): number | undefined {
  const m = /^\s*[[{]\s*?\n([ \t]+)/.exec(text);
  return m ? (m[1] as string).length : undefined;
}

/** Reads a conversation in any supported format (malformed or unknown input → exit 2). */
export function parseConversation(input: string): Conversation {
  const text = input.replace(/^\uFEFF/, "");
  return conversationOf(parseJsonStrict(text), indentOf(text));
}

/** The conversation in a parsed JSON document; `indent` is the input's, for writing it back. */
function conversationOf(value: unknown, indent: number | undefined): Conversation {
  const dump = (v: unknown) => JSON.stringify(v, null, indent);
  if (Array.isArray(value)) {
    if (!value.every((m) => isObject(m) && typeof m["role"] === "string")) {
      badInput("the JSON array is not a list of messages (each needs a role)");
    }
    const wires = value as Wire[];
    if (hasBlock(wires, ["tool_use", "tool_result"])) {
      return {
        format: "anthropic-body",
        messages: wires.map(fromAnthropic),
        render: (ms) => dump(alternate(ms.map(toAnthropic))),
        parts: (ms) =>
          stringifyPieces(undefined, undefined, alternating(mapped(ms, toAnthropic)), indent),
      };
    }
    if (isOpenAIish(wires)) {
      return {
        format: "openai-messages",
        messages: wires.map(fromOpenAI),
        render: (ms) => dump(ms.map(toOpenAI)),
        parts: (ms) => stringifyPieces(undefined, undefined, mapped(ms, toOpenAI), indent),
      };
    }
    const doc = parseSessionDoc(value);
    if (!doc) badInput("the JSON array is not a list of messages");
    // A plain [{role, content}] array keeps its schema: no `meta` on the way out (compaction's own
    // metadata is in the envelope); markers are still recognised on the way in. A bare array in
    // ChatCLI's own message shape (tool_calls, meta, …) is a legacy session and keeps `meta`.
    const hasMeta = !wires.every((m) =>
      Object.keys(m).every((k) => k === "role" || k === "content"),
    );
    const messages = hasMeta ? doc.messages : doc.messages.map(markIfSummary);
    const bare = (m: ChatMessage) => {
      if (!("meta" in m)) return m;
      const { meta: _meta, ...rest } = m;
      return rest;
    };
    return {
      format: "chatcli-messages",
      messages,
      render: (ms) => dump(hasMeta ? ms : ms.map(bare)),
      parts: (ms) => stringifyPieces(undefined, undefined, hasMeta ? ms : mapped(ms, bare), indent),
    };
  }
  if (!isObject(value)) badInput("input is not a conversation");
  const session = parseSessionDoc(value);
  if (session) {
    return {
      format: "chatcli-session",
      messages: session.messages,
      render: (ms) =>
        toGoJson(sessionJson({ title: session.title, messages: ms, extra: session.extra })),
      parts: (ms) =>
        stringifyPieces(
          sessionJson({ title: session.title, messages: ms, extra: session.extra }),
          "chat_history",
          ms,
          2,
        ),
    };
  }
  const list = value["messages"];
  if (!Array.isArray(list) || !list.every((m) => isObject(m) && typeof m["role"] === "string")) {
    badInput('input has no "messages" array of {role, content} objects');
  }
  const wires = list as Wire[];
  if ("system" in value || hasBlock(wires, ["tool_use", "tool_result", "thinking"])) {
    const system = value["system"];
    const head: ChatMessage[] = system ? [{ role: "system", content: textOf(system) }] : [];
    return {
      format: "anthropic-body",
      messages: [...head, ...wires.map(fromAnthropic)],
      render: (ms) =>
        dump({
          ...value,
          messages: alternate(ms.filter((m) => !head.includes(m)).map(toAnthropic)),
        }),
      parts: (ms) =>
        stringifyPieces(
          value,
          "messages",
          alternating(
            mapped(
              ms.filter((m) => !head.includes(m)),
              toAnthropic,
            ),
          ),
          indent,
        ),
    };
  }
  return {
    format: "openai-body",
    messages: wires.map(fromOpenAI),
    render: (ms) => dump({ ...value, messages: ms.map(toOpenAI) }),
    parts: (ms) => stringifyPieces(value, "messages", mapped(ms, toOpenAI), indent),
  };
}
