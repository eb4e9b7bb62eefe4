/**
 * OpenAI Responses API streams as the API sends them, for `MockLlm.pushRaw`: `event: <type>` +
 * `data: {…, sequence_number}` frames — response.created / in_progress, then per output item
 * output_item.added (a message item carries its `phase`: `commentary` or `final_answer` on gpt-5.3-codex
 * and later, absent before), content_part.added, output_text.delta…, output_text.done,
 * content_part.done, output_item.done; function_call_arguments.delta/done for calls; reasoning items
 * with encrypted_content; and a terminal response.completed (usage with input_tokens_details.cached_tokens
 * and output_tokens_details.reasoning_tokens), response.incomplete or response.failed
 * (`response.error: {code, message}`), or a bare `error` event (`{code, message, param}`).
 */
import type { RawReply } from "./mock-llm.ts";

// biome-ignore lint/suspicious/noExplicitAny: wire payloads are arbitrary JSON
type Json = any;

export type ResponsesItem =
  | { type: "message"; text: string; phase?: string | null; id?: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string; id?: string }
  | { type: "reasoning"; id: string; encrypted_content: string; summary?: string }
  /** A message item whose content is a refusal (`response.refusal.delta` / `.done`). */
  | { type: "refusal"; refusal: string; id?: string };

export interface ResponsesUsage {
  input: number;
  output: number;
  cached?: number;
  reasoning?: number;
}

export function responsesUsage(u: ResponsesUsage): Json {
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cached ?? 0 },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: u.input + u.output,
  };
}

const MODEL = "gpt-5.4-2026-03-05";

/** The `response` object of the lifecycle events (usage null until the end, as the API sends it). */
export function responseObject(status: string, extra: Json = {}): Json {
  return {
    id: "resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9",
    object: "response",
    created_at: 1764547200,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: MODEL,
    output: [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: "medium", summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage: null,
    metadata: {},
    ...extra,
  };
}

function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The finished form of an item (as in output_item.done and response.output). */
function finished(item: ResponsesItem, index: number): Json {
  if (item.type === "message") {
    return {
      id: item.id ?? `msg_${index}`,
      type: "message",
      status: "completed",
      content: [{ type: "output_text", annotations: [], logprobs: [], text: item.text }],
      ...(item.phase !== undefined ? { phase: item.phase } : {}),
      role: "assistant",
    };
  }
  if (item.type === "refusal") {
    return {
      id: item.id ?? `msg_${index}`,
      type: "message",
      status: "completed",
      content: [{ type: "refusal", refusal: item.refusal }],
      role: "assistant",
    };
  }
  if (item.type === "function_call") {
    return {
      id: item.id ?? `fc_${index}`,
      type: "function_call",
      status: "completed",
      arguments: item.arguments,
      call_id: item.call_id,
      name: item.name,
    };
  }
  return {
    id: item.id,
    type: "reasoning",
    encrypted_content: item.encrypted_content,
    summary: item.summary ? [{ type: "summary_text", text: item.summary }] : [],
  };
}

/** The events of one output item, from output_item.added to output_item.done. */
function itemEvents(item: ResponsesItem, index: number): Json[] {
  const done = finished(item, index);
  const events: Json[] = [];
  if (item.type === "message") {
    const id = done.id;
    events.push({
      type: "response.output_item.added",
      output_index: index,
      item: { ...done, status: "in_progress", content: [] },
    });
    const part = { type: "output_text", annotations: [], logprobs: [], text: "" };
    events.push({
      type: "response.content_part.added",
      item_id: id,
      output_index: index,
      content_index: 0,
      part,
    });
    for (const delta of pieces(item.text)) {
      events.push({
        type: "response.output_text.delta",
        item_id: id,
        output_index: index,
        content_index: 0,
        delta,
        logprobs: [],
      });
    }
    events.push({
      type: "response.output_text.done",
      item_id: id,
      output_index: index,
      content_index: 0,
      text: item.text,
      logprobs: [],
    });
    events.push({
      type: "response.content_part.done",
      item_id: id,
      output_index: index,
      content_index: 0,
      part: { ...part, text: item.text },
    });
  } else if (item.type === "refusal") {
    events.push({
      type: "response.output_item.added",
      output_index: index,
      item: { ...done, status: "in_progress", content: [] },
    });
    for (const delta of pieces(item.refusal)) {
      events.push({
        type: "response.refusal.delta",
        item_id: done.id,
        output_index: index,
        content_index: 0,
        delta,
      });
    }
    events.push({
      type: "response.refusal.done",
      item_id: done.id,
      output_index: index,
      content_index: 0,
      refusal: item.refusal,
    });
  } else if (item.type === "function_call") {
    events.push({
      type: "response.output_item.added",
      output_index: index,
      item: { ...done, status: "in_progress", arguments: "" },
    });
    for (const delta of pieces(item.arguments)) {
      events.push({
        type: "response.function_call_arguments.delta",
        item_id: done.id,
        output_index: index,
        delta,
      });
    }
    events.push({
      type: "response.function_call_arguments.done",
      item_id: done.id,
      output_index: index,
      arguments: item.arguments,
    });
  } else {
    events.push({
      type: "response.output_item.added",
      output_index: index,
      item: { ...done, summary: [] },
    });
    if (item.summary) {
      events.push({
        type: "response.reasoning_summary_text.delta",
        item_id: item.id,
        output_index: index,
        summary_index: 0,
        delta: item.summary,
      });
    }
  }
  events.push({ type: "response.output_item.done", output_index: index, item: done });
  return events;
}

export type ResponsesEnd =
  | { type: "completed"; usage: ResponsesUsage }
  | { type: "incomplete"; reason: string; usage: ResponsesUsage }
  | { type: "failed"; code: string; message: string }
  | { type: "error"; code: string | null; message: string; param?: string | null };

function frame(event: Json): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** A whole streamed response: its items in order, then how it ends. */
export function responsesStream(items: ResponsesItem[], end: ResponsesEnd): RawReply {
  const events: Json[] = [
    { type: "response.created", response: responseObject("in_progress") },
    { type: "response.in_progress", response: responseObject("in_progress") },
  ];
  for (const [index, item] of items.entries()) events.push(...itemEvents(item, index));
  const output = items.map(finished);
  if (end.type === "completed") {
    events.push({
      type: "response.completed",
      response: responseObject("completed", { output, usage: responsesUsage(end.usage) }),
    });
  } else if (end.type === "incomplete") {
    events.push({
      type: "response.incomplete",
      response: responseObject("incomplete", {
        output,
        incomplete_details: { reason: end.reason },
        usage: responsesUsage(end.usage),
      }),
    });
  } else if (end.type === "failed") {
    events.push({
      type: "response.failed",
      response: responseObject("failed", {
        output,
        error: { code: end.code, message: end.message },
      }),
    });
  } else {
    events.push({ type: "error", code: end.code, message: end.message, param: end.param ?? null });
  }
  return {
    headers: { "content-type": "text/event-stream; charset=utf-8", "x-request-id": "req_mock" },
    frames: events.map((e, i) => frame({ ...e, sequence_number: i })),
  };
}
