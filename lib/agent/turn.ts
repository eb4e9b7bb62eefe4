import { ERROR_TABLE, ProviderError } from "../llm/errors.ts";
import type {
  ChatMessage,
  LlmRequest,
  Provider,
  StopReason,
  ToolCall,
  Usage,
} from "../llm/types.ts";
import { addUsage, emptyUsage } from "../llm/types.ts";
import { type Emit, ev } from "../output/events.ts";
import { createStreamStripper } from "../output/terminal.ts";
import type { CallResult } from "./run-tools.ts";
import { normaliseToolName, parseToolCalls } from "./toolcall-parser.ts";
import type { Tool } from "./types.ts";

/** One model reply: its text, the tool calls (native or parsed from text), usage and stop reason. */
export interface TurnReply {
  text: string;
  /** The text as shown: escape sequences stripped from the joined text (the deltas' concatenation). */
  shown: string;
  calls: ToolCall[];
  native: boolean;
  usage: Usage;
  stop: StopReason;
}

const FEEDBACK_TAIL =
  "(If the task is done, reply only with a final summary. Otherwise send the next tool_call.)";

/**
 * Iterates a stream but stops as soon as the signal aborts, even when the producer ignores it (a
 * stalled SDK stream must not outlive --timeout or Ctrl-C).
 */
export async function* abortable<T>(
  source: AsyncIterable<T>,
  signal: AbortSignal,
): AsyncIterable<T> {
  const iterator = source[Symbol.asyncIterator]();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === "aborted") throw signal.reason ?? new Error("aborted");
      if (next.done) return;
      yield next.value;
    }
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
    // Do not await: a stalled producer may never settle its return().
    void Promise.resolve(iterator.return?.()).catch(() => {});
  }
}

/** How a turn's deltas are delivered. */
export interface TurnOutput {
  emit: Emit;
  /**
   * Deltas are shown as they arrive (stdout text, stream-json, the REPL): a reply that breaks
   * mid-way cannot be asked again. Otherwise they are held per attempt and a broken reply is asked
   * once more from the start, so the events never hold a discarded attempt.
   */
  live: boolean;
  /** The sub-agent this loop runs for (its deltas are not shown: parallel ones would interleave). */
  parentId: string | null;
  /** How the warning names what was restarted ("the answer", "turn 2's reply"). */
  noun: string;
}

/** What arrived of a reply before its stream failed (attached to the thrown error). */
export interface PartialReply {
  text: string;
  usage: Usage;
}

/** Streams one request, emitting message.delta events; tool calls come native or parsed from text. */
export async function requestTurn(
  provider: Provider,
  request: LlmRequest,
  signal: AbortSignal,
  out: TurnOutput,
  turn: number,
  tools: ReadonlyMap<string, Tool>,
  useTools: boolean,
): Promise<TurnReply> {
  let text = "";
  let shown = "";
  let calls: ToolCall[] = [];
  let usage = emptyUsage();
  let stop: StopReason = "end";
  const parent_id = out.parentId;
  const delta = (t: string) => {
    if (t && parent_id === null) out.emit(ev("message.delta", { turn, text: t, parent_id }));
  };
  for (let restarted = false; ; restarted = true) {
    // one stripper over the joined text: an escape sequence split across two deltas is still removed
    const strip = createStreamStripper();
    const thinking = createStreamStripper();
    const held: string[] = [];
    const deliver = (t: string) => {
      if (!t) return;
      shown += t;
      if (out.live) delta(t);
      else held.push(t);
    };
    const flushHeld = () => {
      for (const t of held.splice(0)) delta(t);
    };
    try {
      for await (const event of abortable(provider.stream(request, signal), signal)) {
        if (event.type === "text") {
          text += event.text;
          deliver(strip.push(event.text));
        } else if (event.type === "reasoning") {
          // reasoning never joins the answer; stream-json shows it only with --show-reasoning
          if (request.showReasoning && parent_id === null) {
            const clean = thinking.push(event.text);
            if (clean) out.emit(ev("reasoning.delta", { turn, text: clean, parent_id }));
          }
        } else if (event.type === "tool_call") calls.push(event.call);
        else if (event.type === "usage") usage = addUsage(usage, event.usage);
        else stop = event.stop;
      }
      deliver(strip.flush());
      flushHeld();
      break;
    } catch (error) {
      deliver(strip.flush());
      // A stream that stalls or breaks mid-reply is asked once more from the start, unless its
      // deltas already went out live.
      const partial = text !== "" || calls.length > 0;
      if (
        restarted ||
        !partial ||
        signal.aborted ||
        out.live ||
        !(error instanceof ProviderError) ||
        !ERROR_TABLE[error.kind].retry
      ) {
        flushHeld();
        // what arrived of a reply cut short or refused goes into the envelope's `result`
        if (text && error instanceof ProviderError) Object.assign(error, { partialText: shown });
        if (error && typeof error === "object")
          Object.assign(error, { partialReply: { text: shown, usage } satisfies PartialReply });
        throw error;
      }
      out.emit(
        ev("warning", {
          code: "answer_restarted",
          message: `${error.message} after part of ${out.noun}; asked again from the start`,
        }),
      );
      // the broken attempt's usage stays: it was spent
      text = "";
      shown = "";
      calls = [];
    }
  }
  if (signal.aborted) throw signal.reason ?? new Error("aborted");
  const known = new Set(tools.keys());
  if (calls.length > 0) {
    return {
      text,
      shown,
      calls: calls
        .map((c) => ({ ...c, ...normaliseToolName(c.name, c.arguments, known) }))
        .map(({ args, ...c }) => ({ ...c, arguments: args })),
      native: true,
      usage,
      stop,
    };
  }
  // mock:echo's answer is the request as JSON (tool definitions, the prompt's call example): never a call
  const echo = provider.name === "mock" && provider.model === "echo";
  if (!useTools || echo) return { text, shown, calls: [], native: false, usage, stop };
  const parsed = parseToolCalls(text, known);
  const textCalls = parsed.map((p, i): ToolCall => {
    const norm = normaliseToolName(p.name, typeof p.args === "string" ? {} : p.args, known);
    return {
      id: `text_${turn}_${i + 1}`,
      name: norm.name,
      arguments: norm.args,
      ...(typeof p.args === "string" ? { raw: p.args } : {}),
    };
  });
  return { text, shown, calls: textCalls, native: false, usage, stop };
}

/** What a failed request had streamed (see requestTurn). */
export function partialReplyOf(error: unknown): PartialReply | undefined {
  return (error as { partialReply?: PartialReply } | null)?.partialReply;
}

/** Native calls get one `role: tool` result each; text calls get one feedback user message. */
export function appendResults(
  messages: ChatMessage[],
  reply: TurnReply,
  results: CallResult[],
): void {
  if (reply.native) {
    for (const r of results) {
      messages.push({
        role: "tool",
        tool_call_id: r.call.id,
        content: r.content,
        ...(r.status === "ok" ? {} : { is_error: true }),
      });
    }
    return;
  }
  const blocks = results.map(
    (r, i) => `--- [${i + 1}] ${r.call.name} (${r.status}) ---\n${r.content}`,
  );
  messages.push({
    role: "user",
    content: `Tool results:\n\n${blocks.join("\n\n")}\n\n${FEEDBACK_TAIL}`,
    meta: { agent_feedback: true },
  });
}

/** Closes native calls that will not run, so the history stays valid for the provider. */
export function closeCalls(messages: ChatMessage[], reply: TurnReply, why: string): void {
  if (!reply.native) return;
  for (const call of reply.calls)
    messages.push({ role: "tool", tool_call_id: call.id, content: why, is_error: true });
}
