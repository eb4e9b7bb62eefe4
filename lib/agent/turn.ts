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
import type { Reporter } from "../output/reporter.ts";
import { stripControl } from "../output/terminal.ts";
import type { CallResult } from "./run-tools.ts";
import { normaliseToolName, parseToolCalls } from "./toolcall-parser.ts";
import type { Tool } from "./types.ts";

/** One model reply: its text, the tool calls (native or parsed from text), usage and stop reason. */
export interface TurnReply {
  text: string;
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

/** Streams one request, emitting message.delta events; tool calls come native or parsed from text. */
export async function requestTurn(
  provider: Provider,
  request: LlmRequest,
  signal: AbortSignal,
  reporter: Reporter,
  turn: number,
  tools: ReadonlyMap<string, Tool>,
  useTools: boolean,
): Promise<TurnReply> {
  let text = "";
  let calls: ToolCall[] = [];
  let usage = emptyUsage();
  let stop: StopReason = "end";
  for (let restarted = false; ; restarted = true) {
    try {
      for await (const event of abortable(provider.stream(request, signal), signal)) {
        if (event.type === "text") {
          text += event.text;
          reporter.event("message.delta", { turn, text: stripControl(event.text) });
        } else if (event.type === "reasoning") {
          // reasoning never joins the answer; stream-json shows it only with --show-reasoning
          if (request.showReasoning)
            reporter.event("reasoning.delta", { turn, text: stripControl(event.text) });
        } else if (event.type === "tool_call") calls.push(event.call);
        else if (event.type === "usage") usage = addUsage(usage, event.usage);
        else stop = event.stop;
      }
      break;
    } catch (error) {
      // A stream that stalls or breaks mid-reply is asked once more from the start, unless its
      // deltas already went out as stream-json events (text and json show only complete turns).
      const partial = text !== "" || calls.length > 0;
      if (
        restarted ||
        !partial ||
        signal.aborted ||
        reporter.format === "stream-json" ||
        !(error instanceof ProviderError) ||
        !ERROR_TABLE[error.kind].retry
      ) {
        // what arrived of a reply cut short or refused goes into the envelope's `result`
        if (text && error instanceof ProviderError) Object.assign(error, { partialText: text });
        throw error;
      }
      reporter.warn(
        "answer_restarted",
        `${error.message} after part of turn ${turn}'s reply; asked again from the start`,
      );
      text = "";
      calls = [];
    }
  }
  if (signal.aborted) throw signal.reason ?? new Error("aborted");
  const known = new Set(tools.keys());
  if (calls.length > 0) {
    return {
      text,
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
  if (!useTools || echo) return { text, calls: [], native: false, usage, stop };
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
  return { text, calls: textCalls, native: false, usage, stop };
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
