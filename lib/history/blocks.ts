import type { ChatMessage } from "../llm/types.ts";
import { omissionNote } from "./error-lines.ts";

/** Number of leading consecutive system messages. */
export function leadingSystemCount(messages: readonly ChatMessage[]): number {
  let i = 0;
  while (i < messages.length && messages[i]?.role === "system") i++;
  return i;
}

/**
 * Moves a cut point left so the kept tail never starts with a tool result: the assistant message that
 * issued the calls comes along with its results (a tool call and its result are never split).
 */
export function snapCut(messages: readonly ChatMessage[], cut: number, floor: number): number {
  let i = cut;
  while (i > floor && i < messages.length && messages[i]?.role === "tool") i--;
  return i;
}

/** Where the verbatim tail starts: the last `keep` messages, snapped to whole tool blocks. */
export function tailStart(messages: readonly ChatMessage[], keep: number, floor: number): number {
  const start = Math.max(floor, messages.length - Math.max(0, keep));
  return snapCut(messages, start, floor);
}

/** Summary and verbatim messages are never trimmed again. */
export function isProtected(message: ChatMessage): boolean {
  return (
    message.role === "system" ||
    message.meta?.is_summary === true ||
    message.meta?.preserve_verbatim === true
  );
}

/** First ⌊2/3·max⌋ + an omission marker + last ⌊max/3⌋ (unchanged when it already fits). */
export function truncatePreservingStructure(content: string, max: number): string {
  if (content.length <= max) return content;
  const head = Math.floor((2 * max) / 3);
  const tail = Math.floor(max / 3);
  const omitted = content.length - head - tail;
  return `${content.slice(0, head)}\n\n... [${omitted} chars omitted for context efficiency] ...\n\n${content.slice(content.length - tail)}`;
}

/** Head + `... [N chars omitted] ...` + tail. */
export function headTail(content: string, head: number, tail: number): string {
  if (content.length <= head + tail) return content;
  const omitted = content.length - head - tail;
  return `${content.slice(0, head)}\n\n... [${omitted} chars omitted] ...\n\n${content.slice(content.length - tail)}`;
}

/**
 * truncatePreservingStructure / headTail for level 1: the same head and tail, and the error lines of
 * the omitted middle (a traceback's last frame and message, `error:` / `FAILED` lines) between them.
 */
export function truncateKeepingErrors(content: string, max: number): string {
  if (content.length <= max) return content;
  const head = Math.floor((2 * max) / 3);
  return cutKeepingErrors(
    content,
    head,
    Math.floor(max / 3),
    "chars omitted for context efficiency",
  );
}

export function headTailKeepingErrors(content: string, head: number, tail: number): string {
  if (content.length <= head + tail) return content;
  return cutKeepingErrors(content, head, tail, "chars omitted");
}

/** Head + `… [N <label>] …` (+ the error lines of the omitted middle) + tail. */
export function cutKeepingErrors(
  content: string,
  head: number,
  tail: number,
  label: string,
): string {
  const middle = content.slice(head, content.length - tail);
  return `${content.slice(0, head)}\n\n${omissionNote(middle, label)}\n\n${content.slice(content.length - tail)}`;
}

/** A copy of a message with new content (keeps every other field, including unknown ones). */
export function withContent(message: ChatMessage, content: string): ChatMessage {
  return content === message.content ? message : { ...message, content };
}

/** Ids of tool calls issued in a list of messages, and ids of tool results present. */
export function orphanToolResults(messages: readonly ChatMessage[]): ChatMessage[] {
  const issued = new Set<string>();
  const orphans: ChatMessage[] = [];
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) issued.add(call.id);
    if (message.role === "tool" && message.tool_call_id && !issued.has(message.tool_call_id)) {
      orphans.push(message);
    }
  }
  return orphans;
}
