import type { ChatMessage } from "../llm/types.ts";
import { cutKeepingErrors, headTailKeepingErrors, isProtected, withContent } from "./blocks.ts";
import { isInjectedContext, isToolFeedback } from "./level1.ts";
import { SUMMARY_PREFIXES } from "./level2.ts";
import { CHARS_PER_TOKEN, messageTokens } from "./tokens.ts";

/**
 * The task of a conversation: its first real user message, and later user messages that state or
 * change it. Levels 2 and 3 keep these verbatim (in order, right after the leading system messages),
 * however old they are.
 */

/** Share of the budget the task may take verbatim; a longer task is kept as head + tail. */
export const TASK_SHARE = 0.5;
/** Share of the budget later task-changing messages may take (the most recent win). */
export const TASK_CHANGES_SHARE = 0.2;
/** A single message (a huge tool output) larger than this share of the budget is cut first. */
export const OVERSIZED_SHARE = 0.25;

/** Text the agent loop itself sends as a user message (not the user's words). */
const LOOP_PROMPTS = [
  "Your reply was cut off by the output limit.",
  "[stagnation detected]",
  "FORMAT ERROR:",
];

// Cues that a later user message restates or redirects the task (English and Portuguese, as the
// seeds are written): "actually…", "instead…", "new task", "change of plan", "now do…", "forget…".
const TASK_CHANGE =
  /^\s*(?:actually|instead|new task|change of plan|scratch that|forget (?:that|it|the)|from now on|now (?:please |let'?s |also )?(?:do|make|implement|fix|add|write|change|build|create|refactor|use|switch)|na verdade|em vez disso|nova tarefa|mudan[çc]a de planos?|esque[çc]a)\b|\b(?:the (?:new|real|actual) task|your (?:new|real) task|(?:the )?task (?:is|has changed|changed)|instead of (?:that|this)|nova tarefa|a tarefa (?:agora )?[ée])\b/i;

/** A user message typed by a person: not tool feedback, injected context, a marker or a loop prompt. */
export function isRealUserMessage(message: ChatMessage): boolean {
  if (message.role !== "user" || typeof message.content !== "string") return false;
  if (message.meta?.is_summary || message.meta?.agent_feedback) return false;
  const content = message.content;
  if (content.trim() === "") return false;
  if (SUMMARY_PREFIXES.some((p) => content.startsWith(p))) return false;
  if (LOOP_PROMPTS.some((p) => content.startsWith(p))) return false;
  return !isInjectedContext(content) && !isToolFeedback(content);
}

/** Whether a later user message states or changes the task. */
export function changesTask(message: ChatMessage): boolean {
  return isRealUserMessage(message) && TASK_CHANGE.test(message.content.slice(0, 2000));
}

/** Index of the first real user message in [from, to), or -1. */
export function firstTaskIndex(messages: readonly ChatMessage[], from: number, to: number): number {
  for (let i = from; i < to; i++) if (isRealUserMessage(messages[i] as ChatMessage)) return i;
  return -1;
}

/**
 * Indices in [from, to) of the task messages to keep: the first real user message, then later ones
 * that change the task (or that `isTask` names) while they fit TASK_CHANGES_SHARE of the budget.
 */
export function taskIndices(
  messages: readonly ChatMessage[],
  from: number,
  to: number,
  budgetTokens: number,
  isTask?: (message: ChatMessage) => boolean,
): number[] {
  const first = firstTaskIndex(messages, from, to);
  if (first < 0) return [];
  const later: number[] = [];
  let room = Math.floor(budgetTokens * TASK_CHANGES_SHARE);
  for (let i = to - 1; i > first; i--) {
    const m = messages[i] as ChatMessage;
    if (!(isTask?.(m) && isRealUserMessage(m)) && !changesTask(m)) continue;
    const cost = messageTokens(m);
    if (cost > room) continue;
    room -= cost;
    later.unshift(i);
  }
  return [first, ...later];
}

/** The task message as kept: verbatim, or head + tail with a marker when it alone is too big. */
export function keptTask(message: ChatMessage, budgetTokens: number, share: number): ChatMessage {
  const maxChars = Math.max(800, Math.floor(budgetTokens * share * CHARS_PER_TOKEN));
  if (message.content.length <= maxChars) return message;
  const head = Math.floor((maxChars * 3) / 4);
  return withContent(
    message,
    cutKeepingErrors(message.content, head, maxChars - head, "chars of the task omitted"),
  );
}

/**
 * Before any level runs: a single tool output over OVERSIZED_SHARE of the budget (an 868k-char one) is cut to head + tail, so the verbatim tail and everything else still fit around it.
 * The first task message is left to `keptTask`; system messages are never cut.
 */
export function cutOversized(
  messages: readonly ChatMessage[],
  budgetTokens: number,
  skip: ReadonlySet<number>,
): ChatMessage[] {
  const maxChars = Math.max(2000, Math.floor(budgetTokens * OVERSIZED_SHARE * CHARS_PER_TOKEN));
  let out: ChatMessage[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as ChatMessage;
    if (skip.has(i) || m.role === "system" || m.meta?.is_summary) continue;
    if (typeof m.content !== "string" || m.content.length <= maxChars) continue;
    const toolOutput =
      m.role === "tool" ||
      (m.role === "user" &&
        !isProtected(m) &&
        (m.meta?.agent_feedback || isToolFeedback(m.content)));
    if (!toolOutput) continue;
    const head = Math.floor((maxChars * 4) / 5);
    out ??= messages.slice();
    out[i] = withContent(m, headTailKeepingErrors(m.content, head, maxChars - head));
  }
  return out ?? (messages as ChatMessage[]);
}
