/**
 * Reads an OpenAI Responses API event stream into chatcli's events (pure: no IO).
 *
 * Message items carry a `phase` on gpt-5.3-codex and later (documented values `commentary` and
 * `final_answer`; absent or null before): commentary is progress the model narrates around its tool
 * calls, not the answer, so its deltas stream as reasoning (never on stdout, never in `result`) and the
 * text goes back on the next request as an assistant message with its phase (carried, like reasoning
 * items, on the turn's first tool call). `final_answer` and unphased messages are the answer. A phase
 * this code does not know is treated like commentary — unless the response has nothing else to say:
 * a response with no answer text and no calls answers with its commentary, so nothing is lost.
 * A message whose text arrives only whole (in output_item.done, without deltas) still counts.
 */
import type { LlmEvent, StopReason, ThinkingBlock, ToolCall, Usage } from "../types.ts";
import { parseToolArguments } from "./openai-format.ts";
import {
  incompleteStop,
  type ResponsesUsageWire,
  usageFromResponses,
} from "./openai-responses-format.ts";

interface OutputItem {
  type?: string;
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  encrypted_content?: string | null;
  phase?: string | null;
  content?: Array<{ type?: string; text?: string; refusal?: string }>;
}

export interface ResponsesEvent {
  type: string;
  delta?: string;
  item?: OutputItem;
  output_index?: number;
  code?: string | null;
  message?: string;
  response?: {
    usage?: ResponsesUsageWire | null;
    incomplete_details?: { reason?: string | null } | null;
    error?: { code?: string | null; message?: string } | null;
  };
}

/** An error carried by the stream (`error`, `response.failed`) in the shape the guard classifies. */
export function streamError(code: string | null | undefined, message: string | undefined): unknown {
  // an `error` event without a code still says what it is in OpenAI's words
  const named =
    code ?? (/exceeded your current quota/i.test(message ?? "") ? "insufficient_quota" : null);
  return {
    error: { type: named ?? "server_error", code: named, message: message ?? "response failed" },
    message,
  };
}

/** Whether a message item's phase makes it the answer (final_answer, or no phase at all). */
function isAnswer(phase: string | null | undefined): boolean {
  return phase === undefined || phase === null || phase === "final_answer";
}

export class ResponsesStreamReader {
  private readonly calls = new Map<number, ToolCall & { args: string }>();
  /** Reasoning items and commentary messages, in output order: sent back with the turn's calls. */
  private readonly carried: ThinkingBlock[] = [];
  /** The phase of each message item, by output index (from output_item.added). */
  private readonly phases = new Map<number, string | null | undefined>();
  /** Indexes whose text arrived as deltas. */
  private readonly streamed = new Set<number>();
  private readonly commentary: string[] = [];
  private answered = false;
  private refusal = "";
  usage: Usage | undefined;
  stop: StopReason | undefined;

  /** The events one stream event yields; throws the stream's own error (`response.failed`, `error`). */
  read(event: ResponsesEvent): LlmEvent[] {
    const index = event.output_index ?? 0;
    switch (event.type) {
      case "response.output_text.delta":
        if (!event.delta) return [];
        this.streamed.add(index);
        return [this.message(index, event.delta)];
      case "response.refusal.delta":
        this.refusal += event.delta ?? "";
        return [];
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        return event.delta ? [{ type: "reasoning", text: event.delta }] : [];
      case "response.output_item.added":
        if (event.item?.type === "message") this.phases.set(index, event.item.phase);
        else if (event.item?.type === "function_call") this.openCall(index, event.item);
        return [];
      case "response.function_call_arguments.delta": {
        const call = this.calls.get(index);
        if (call && event.delta) call.args += event.delta;
        return [];
      }
      case "response.output_item.done":
        return event.item ? this.itemDone(index, event.item) : [];
      case "response.completed":
        if (event.response?.usage) this.usage = usageFromResponses(event.response.usage);
        this.stop = "end";
        return [];
      case "response.incomplete":
        if (event.response?.usage) this.usage = usageFromResponses(event.response.usage);
        this.stop = incompleteStop(event.response?.incomplete_details?.reason);
        return [];
      case "response.failed":
        throw streamError(event.response?.error?.code, event.response?.error?.message);
      case "error":
        throw streamError(event.code, event.message);
      default:
        return [];
    }
  }

  /** Text of a message item: the answer, or (commentary, unknown phases) progress shown as reasoning. */
  private message(index: number, text: string): LlmEvent {
    const phase = this.phases.get(index);
    if (isAnswer(phase)) {
      this.answered = true;
      return { type: "text", text };
    }
    this.commentary[index] = (this.commentary[index] ?? "") + text;
    return { type: "reasoning", text };
  }

  private openCall(index: number, item: OutputItem): void {
    this.calls.set(index, {
      id: item.call_id ?? item.id ?? `call_${index}`,
      type: "function",
      name: item.name ?? "",
      arguments: {},
      args: item.arguments ?? "",
    });
  }

  private itemDone(index: number, item: OutputItem): LlmEvent[] {
    if (item.type === "function_call") {
      if (!this.calls.has(index)) this.openCall(index, { ...item, arguments: "" });
      const call = this.calls.get(index) as ToolCall & { args: string };
      // the done event carries the whole arguments text: it wins over the deltas
      if (typeof item.arguments === "string") call.args = item.arguments;
      if (item.name) call.name = item.name;
      return [];
    }
    if (item.type === "reasoning") {
      if (item.id && item.encrypted_content) {
        this.carried.push({
          type: "reasoning",
          id: item.id,
          encrypted_content: item.encrypted_content,
        });
      }
      return [];
    }
    if (item.type !== "message") return [];
    if (!this.phases.has(index)) this.phases.set(index, item.phase);
    const out: LlmEvent[] = [];
    if (!this.streamed.has(index)) {
      // the text came whole, not as deltas (some servers): it still counts
      const text = (item.content ?? [])
        .map((c) => (c.type === "output_text" ? (c.text ?? "") : ""))
        .join("");
      if (text) out.push(this.message(index, text));
    }
    const said = this.commentary[index];
    if (said)
      this.carried.push({
        type: "commentary",
        phase: String(item.phase ?? this.phases.get(index)),
        text: said,
      });
    return out;
  }

  /** The model refused instead of answering (`refusal` content), with no answer text. */
  get refusalText(): string {
    return this.answered ? "" : this.refusal.trim();
  }

  /** After the stream: the calls (carrying reasoning and commentary), a commentary-only answer, usage, the stop. */
  finish(): LlmEvent[] {
    const out: LlmEvent[] = [];
    const done = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
    for (const [i, { args, ...call }] of done.entries()) {
      const parsed: ToolCall = { ...call, ...parseToolArguments(args) };
      if (i === 0 && this.carried.length) parsed.thinking = [...this.carried];
      out.push({ type: "tool_call", call: parsed });
    }
    if (done.length === 0 && !this.answered) {
      // only commentary (or a phase unknown here): that is what the model said, so it is the answer
      const said = this.commentary.filter(Boolean).join("\n\n");
      if (said) out.push({ type: "text", text: said });
    }
    if (this.usage) out.push({ type: "usage", usage: this.usage });
    const stop = this.stop ?? "end";
    out.push({ type: "done", stop: done.length > 0 && stop === "end" ? "tool_use" : stop });
    return out;
  }
}
