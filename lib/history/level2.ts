import type { ChatMessage } from "../llm/types.ts";

/** Asks a model for a summary; must reject with the signal's reason when aborted. */
export type Summarize = (prompt: string, signal: AbortSignal) => Promise<string>;

const STRUCTURED_INSTRUCTIONS = `You are a precise technical note-taker. Read the conversation segment below and extract only facts that actually appear in it. The notes replace the segment, so they must let the work on the user's task go on without it: what the task asks for is the thing to preserve above all. Write the notes using only these sections, in this order, and leave out any section that would be empty:

## Files Read
- <path> (<line count> lines) - <why it was read>
## Files Modified
- <path>:<lines> - <what changed and why>
## Commands Executed
- <command> → <outcome>
## Key Decisions
- <decision and its rationale>
## Errors & Resolutions
- <error> → <resolution>
## Current Task State
- Task: <the user's task and every requirement or constraint stated for it, including changes made during the segment>
- Done: <what is finished>
- Pending: <what remains>

Rules: give exact paths and line numbers; quote the first line of each error verbatim; refer to code as file:line; never invent anything; a file that was read and then modified goes in both sections; one line per bullet; no code blocks and no XML.`;

const GUIDED_INSTRUCTIONS = `You are a conversation compactor. Summarize the conversation below into a concise structured note.

USER INSTRUCTION: {instruction}

Everything the user asks to keep MUST appear in the note, with its details intact, and so must the user's task (what the conversation is working on); drop everything else. Use a markdown header per topic and bullets under it; keep exact paths, names, numbers and code references; never invent anything.`;

/** Per-message cap inside a summariser prompt (head + tail), as the Go tool does. */
export const PROMPT_MESSAGE = { max: 2000, head: 1500, tail: 300 } as const;

function renderMessage(message: ChatMessage, guided: boolean): string {
  let content = message.content ?? "";
  if (content.length > PROMPT_MESSAGE.max) {
    const marker = guided ? "\n... [truncated] ...\n" : "\n... [truncated for summarization] ...\n";
    content = `${content.slice(0, PROMPT_MESSAGE.head)}${marker}${content.slice(content.length - PROMPT_MESSAGE.tail)}`;
  }
  return `[${message.role}]: ${content}\n\n`;
}

/** The task messages kept verbatim next to the summary, quoted so the notes can refer to them. */
const TASK_NOTE = `THE USER'S TASK (kept verbatim next to your notes — preserve what it asks for; do not copy it):`;

function header(instruction: string | undefined, task: readonly string[] = []): string {
  const quoted = task
    .map((t) => (t.length > TASK_QUOTE_MAX ? `${t.slice(0, TASK_QUOTE_MAX)}\n[...]` : t))
    .map((t) => `<<<\n${t}\n>>>`)
    .join("\n");
  const taskPart = task.length > 0 ? `\n\n${TASK_NOTE}\n${quoted}` : "";
  if (instruction === undefined) {
    return `${STRUCTURED_INSTRUCTIONS}${taskPart}\n\nCONVERSATION SEGMENT TO EXTRACT FROM:\n\n`;
  }
  return `${GUIDED_INSTRUCTIONS.replace("{instruction}", instruction)}${taskPart}\n\nCONVERSATION TO COMPACT:\n\n`;
}

/** How much of each task message the summariser prompt quotes. */
const TASK_QUOTE_MAX = 4000;

/**
 * The summariser prompt(s) for a middle segment. Each message is capped (head + tail); when the whole
 * still exceeds `maxPromptChars` the segment is split into chunks that each fit.
 */
export function buildSummaryPrompts(
  middle: readonly ChatMessage[],
  instruction: string | undefined,
  maxPromptChars: number,
  task: readonly string[] = [],
): string[] {
  const head = header(instruction, task);
  const room = Math.max(PROMPT_MESSAGE.max + 200, maxPromptChars - head.length);
  const prompts: string[] = [];
  let parts: string[] = [];
  let size = 0;
  for (const message of middle) {
    const rendered = renderMessage(message, instruction !== undefined);
    if (size + rendered.length > room && parts.length > 0) {
      prompts.push(head + parts.join(""));
      parts = [];
      size = 0;
    }
    parts.push(rendered);
    size += rendered.length;
  }
  if (parts.length > 0 || prompts.length === 0) prompts.push(head + parts.join(""));
  return prompts;
}

/** Summarises a segment: one call, or one per chunk plus a merge call when the chunks' notes fit. */
export async function summarizeSegment(
  middle: readonly ChatMessage[],
  options: {
    instruction?: string;
    /** The task messages kept beside the summary: named in the prompt as what to preserve. */
    task?: readonly string[];
    maxPromptChars: number;
    summarize: Summarize;
    signal: AbortSignal;
    onChunk?: (index: number, total: number) => void;
  },
): Promise<string> {
  const prompts = buildSummaryPrompts(
    middle,
    options.instruction,
    options.maxPromptChars,
    options.task,
  );
  const notes: string[] = [];
  for (const [index, prompt] of prompts.entries()) {
    options.signal.throwIfAborted();
    options.onChunk?.(index + 1, prompts.length);
    notes.push((await options.summarize(prompt, options.signal)).trim());
  }
  if (notes.length === 1) return notes[0] as string;
  const merged = notes.map((note, i) => ({
    role: "user" as const,
    content: `Notes for part ${i + 1} of ${notes.length}:\n${note}`,
  }));
  const mergePrompts = buildSummaryPrompts(
    merged,
    options.instruction,
    options.maxPromptChars,
    options.task,
  );
  if (mergePrompts.length !== 1) return notes.join("\n\n");
  options.signal.throwIfAborted();
  return (await options.summarize(mergePrompts[0] as string, options.signal)).trim();
}

/** The message that replaces a summarised middle (user role, `meta.is_summary`). */
export function summaryMessage(
  count: number,
  text: string,
  instruction: string | undefined,
): ChatMessage {
  const title =
    instruction === undefined
      ? `[STRUCTURED SUMMARY — covering ${count} earlier messages]`
      : `[COMPACTED CONTEXT — ${count} messages summarized per user instruction: "${instruction}"]`;
  return {
    role: "user",
    content: `${title}\n\n${text}`,
    meta: { is_summary: true, summary_of: count },
  };
}

/** The marker that replaces the middle dropped by level 3. */
export function truncationMessage(count: number): ChatMessage {
  return {
    role: "user",
    content: `[CONTEXT TRUNCATED: ${count} messages removed due to context window limit. Recent context preserved below.]`,
    meta: { is_summary: true, summary_of: count },
  };
}

/** Markers written by compaction, recognised again in formats that cannot carry `meta`. */
export const SUMMARY_PREFIXES = [
  "[STRUCTURED SUMMARY — covering ",
  "[COMPACTED CONTEXT — ",
  "[CONTEXT TRUNCATED: ",
];
