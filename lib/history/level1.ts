import type { ChatMessage } from "../llm/types.ts";
import {
  headTailKeepingErrors,
  isProtected,
  truncateKeepingErrors,
  withContent,
} from "./blocks.ts";

const THINK_TAGS = ["reasoning", "thinking", "explanation"] as const;
const TOOL_TAG =
  /<(tool_call|tool)((?:\s+[A-Za-z_:-]+\s*=\s*(?:'(?:\\[\s\S]|[^'\\])*'|"(?:\\[\s\S]|[^"\\])*"|[^\s>/]+))*)\s*(\/?)>(?:\s*<\/\1>)?/y;
const ATTR =
  /([A-Za-z_:-]+)\s*=\s*(?:'((?:\\[\s\S]|[^'\\])*)'|"((?:\\[\s\S]|[^"\\])*)"|([^\s>/]+))/g;
const INJECTED_LINE = /^📦 CONTEXT(?:O)?:/m;
const FEEDBACK_PREFIXES = [
  "The tool '",
  "A ferramenta '",
  "--- Resultado da Ação",
  "FORMAT ERROR:",
];
const OPEN = "<tool_output>";
const CLOSE = "</tool_output>";

/** Limits of the level-1 rules (reference §3.3). */
export const LEVEL1 = {
  injectedMax: 3000,
  injectedKeep: 2000,
  toolOutputMax: 5000,
  toolOutputHead: 2000,
  toolOutputTail: 500,
  feedbackMax: 8000,
  /** Native tool results older than the verbatim tail above this size become head + tail. */
  oldToolResultMax: 5000,
  /** Repeated identical tool output at least this long is collapsed to a reference. */
  duplicateMin: 200,
} as const;

function cut(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n - 3)}...` : text;
}

function unescapeQuoted(value: string, quote: string): string {
  return value.replace(/\\\\/g, "\\").replaceAll(`\\${quote}`, quote);
}

/** `<tool_call name="X" args='…'/>` → `[tool: X read main.go]` (reference §3.3). */
export function toolCallReference(name: string, args: string): string {
  const cmd = /"cmd"\s*:\s*"((?:\\.|[^"\\])*)"/.exec(args)?.[1];
  const file = /"file"\s*:\s*"((?:\\.|[^"\\])*)"/.exec(args)?.[1];
  if (file !== undefined) return `[tool: ${[name, cmd, file].filter(Boolean).join(" ")}]`;
  const term = /"term"\s*:\s*"((?:\\.|[^"\\])*)"/.exec(args)?.[1];
  if (term !== undefined) {
    return `[tool: ${[name, cmd, `term="${cut(term, 40)}"`].filter(Boolean).join(" ")}]`;
  }
  if (cmd !== undefined) return `[tool: ${name} ${cut(cmd, 60)}]`;
  return `[tool: ${[name, cut(args, 60)].filter(Boolean).join(" ")}]`;
}

function compactToolXml(text: string): string {
  if (!text.includes("<tool")) return text;
  // Each `<tool` found with indexOf, the tag matched there (sticky): a global regex would be tried
  // at every position of the text, ~5× slower on long assistant messages.
  const parts: string[] = [];
  let from = 0;
  for (let at = text.indexOf("<tool"); at >= 0; at = text.indexOf("<tool", at + 1)) {
    TOOL_TAG.lastIndex = at;
    const m = TOOL_TAG.exec(text);
    if (!m) continue;
    parts.push(text.slice(from, at), toolReference(m[0], m[2] ?? ""));
    from = at + m[0].length;
    at = from - 1;
  }
  if (from === 0) return text;
  parts.push(text.slice(from));
  return parts.join("");
}

function toolReference(whole: string, attrs: string): string {
  let name: string | undefined;
  let args = "";
  ATTR.lastIndex = 0;
  for (let m = ATTR.exec(attrs); m; m = ATTR.exec(attrs)) {
    const raw =
      m[2] !== undefined
        ? unescapeQuoted(m[2], "'")
        : m[3] !== undefined
          ? unescapeQuoted(m[3], '"')
          : (m[4] ?? "");
    if (m[1] === "name") name = raw.trim();
    else if (m[1] === "args") args = raw;
  }
  return name ? toolCallReference(name, args) : whole;
}

/** The one line left where level 1 removed a reasoning block. */
export function reasoningMarker(tag: string, chars: number): string {
  return `[${tag} removed: ${chars} chars]`;
}

/**
 * What `text.replace(/<(reasoning|thinking|explanation)>[\s\S]*?<\/\1>/g, marker)` returns, found
 * with indexOf (the backreference keeps that regex off the JIT: ~10× slower on long messages): the
 * leftmost opening tag whose closing tag follows, up to the first such closing tag, and on from there.
 */
function removeThinkBlocks(text: string): string {
  const opens = THINK_TAGS.map((tag) => text.indexOf(`<${tag}>`));
  if (opens.every((at) => at < 0)) return text;
  const parts: string[] = [];
  let from = 0;
  for (;;) {
    let k = -1;
    for (let j = 0; j < THINK_TAGS.length; j++) {
      const at = opens[j] as number;
      if (at >= 0 && (k < 0 || at < (opens[k] as number))) k = j;
    }
    if (k < 0) break;
    const tag = THINK_TAGS[k] as string;
    const at = opens[k] as number;
    const close = text.indexOf(`</${tag}>`, at + tag.length + 2);
    if (close < 0) {
      opens[k] = -1; // no later block of this tag can close either
      continue;
    }
    const end = close + tag.length + 3;
    parts.push(text.slice(from, at), `${reasoningMarker(tag, end - at)}\n`);
    from = end;
    for (let j = 0; j < THINK_TAGS.length; j++) {
      if ((opens[j] as number) >= 0 && (opens[j] as number) < end) {
        opens[j] = text.indexOf(`<${THINK_TAGS[j]}>`, end);
      }
    }
  }
  if (from === 0) return text;
  parts.push(text.slice(from));
  return parts.join("");
}

/**
 * Assistant text: reasoning/thinking/explanation blocks become a one-line marker, tool-call XML a short
 * reference; blank-line runs are tidied.
 */
export function trimAssistantText(text: string): string {
  let out = removeThinkBlocks(text);
  out = compactToolXml(out);
  if (out === text) return text;
  return out.replace(/[ \t]*\n{3,}/g, "\n\n").trim();
}

/** Injected context: `[MEMORY CONTEXT — loaded from …]` or a line starting `📦 CONTEXT:`. */
export function isInjectedContext(content: string): boolean {
  if (content.startsWith("[MEMORY CONTEXT — loaded from ")) return true;
  return content.includes("📦 CONTEXT") && INJECTED_LINE.test(content);
}

/** Tool feedback sent back as a user message (text tool-call mode). */
export function isToolFeedback(content: string): boolean {
  return FEEDBACK_PREFIXES.some((p) => content.startsWith(p)) || content.includes("<tool_output>");
}

function trimInjected(content: string): string {
  if (content.length <= LEVEL1.injectedMax) return content;
  const lines = content.split("\n");
  const header = lines.slice(0, 3).join("\n");
  const body = lines.slice(3).join("\n");
  const omitted = content.length - LEVEL1.injectedKeep;
  return `${header}\n\n${body.slice(0, LEVEL1.injectedKeep)}\n\n... [${omitted} chars of context omitted during compaction] ...`;
}

function trimFeedback(content: string): string {
  if (content.includes(OPEN)) {
    // <tool_output>…</tool_output> bodies, found with indexOf (a regex is ~20× slower on big ones)
    const parts: string[] = [];
    let from = 0;
    for (let open = content.indexOf(OPEN); open >= 0; open = content.indexOf(OPEN, from)) {
      const close = content.indexOf(CLOSE, open + OPEN.length);
      if (close < 0) break;
      const body = content.slice(open + OPEN.length, close);
      parts.push(content.slice(from, open));
      if (body.length <= LEVEL1.toolOutputMax) parts.push(OPEN, body, CLOSE);
      else {
        const short = headTailKeepingErrors(body, LEVEL1.toolOutputHead, LEVEL1.toolOutputTail);
        parts.push(`${OPEN}\n${short}\n${CLOSE}`);
      }
      from = close + CLOSE.length;
    }
    if (from === 0) return content;
    parts.push(content.slice(from));
    return parts.join("");
  }
  return truncateKeepingErrors(content, LEVEL1.feedbackMax);
}

/** Level 1 for one message (identity when nothing changes). */
export function trimMessage(message: ChatMessage): ChatMessage {
  if (isProtected(message) || typeof message.content !== "string") return message;
  const content = message.content;
  if (message.role === "assistant") return withContent(message, trimAssistantText(content));
  if (message.role === "tool") {
    if (content.length <= LEVEL1.oldToolResultMax) return message;
    return withContent(
      message,
      headTailKeepingErrors(content, LEVEL1.toolOutputHead, LEVEL1.toolOutputTail),
    );
  }
  if (message.role !== "user") return message;
  if (isInjectedContext(content)) return withContent(message, trimInjected(content));
  if (isToolFeedback(content)) return withContent(message, trimFeedback(content));
  return message;
}

/**
 * A membership test that remembers what it was asked: whether `text` was seen before. Texts are
 * told apart by length first, and hashed only when two share one: a Map keyed by the text hashed
 * every tool output whole (~2 ms per 7 MB of them, issue 23), though most lengths occur once.
 */
function seenTexts(): (text: string) => boolean {
  const byLength = new Map<number, string | Set<string>>();
  return (text) => {
    const known = byLength.get(text.length);
    if (known === undefined) {
      byLength.set(text.length, text);
      return false;
    }
    if (typeof known === "string") {
      if (known === text) return true;
      byLength.set(text.length, new Set([known, text]));
      return false;
    }
    if (known.has(text)) return true;
    known.add(text);
    return false;
  };
}

/**
 * Level 1, near lossless, no LLM: trims messages in [from, to) (the verbatim tail is left alone),
 * keeps only the last of each run of `FORMAT ERROR:` messages, collapses repeated identical tool output.
 */
export function trimHistory(
  messages: readonly ChatMessage[],
  from: number,
  to: number,
): ChatMessage[] {
  const out: ChatMessage[] = messages.slice(0, from);
  const seen = seenTexts();
  for (let i = from; i < to; i++) {
    const message = messages[i] as ChatMessage;
    const next = messages[i + 1];
    if (
      message.role === "user" &&
      !isProtected(message) &&
      message.content?.startsWith("FORMAT ERROR:") &&
      i + 1 < to &&
      next?.role === "user" &&
      next.content?.startsWith("FORMAT ERROR:")
    ) {
      continue;
    }
    if (
      !isProtected(message) &&
      (message.role === "tool" || (message.role === "user" && isToolFeedback(message.content))) &&
      message.content.length >= LEVEL1.duplicateMin
    ) {
      if (seen(message.content)) {
        // a repeat is replaced whole: trimming it first (an error-line scan of its middle) is waste
        out.push(
          withContent(
            message,
            `[duplicate of an earlier tool output — ${message.content.length} chars omitted]`,
          ),
        );
        continue;
      }
    }
    out.push(trimMessage(message));
  }
  for (let i = to; i < messages.length; i++) out.push(messages[i] as ChatMessage);
  return out;
}
