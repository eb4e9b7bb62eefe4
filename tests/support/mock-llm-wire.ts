/** The mock LLM's wire formats: OpenAI / Anthropic bodies and SSE frames, and prompt-cache simulation. */
import { type ScriptReply, scriptArgumentsText } from "../../lib/llm/providers/script-format.ts";
import type { StopReason } from "../../lib/llm/types.ts";

// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON that tests inspect freely
export type Json = any;

export interface WireUsage {
  /** Whole prompt, cached parts included. */
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheCreation: number;
}

export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

function chunks(text: string, count: number): string[] {
  if (!text) return [];
  const size = Math.max(1, Math.ceil(text.length / count));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function stopOf(reply: ScriptReply): StopReason {
  return reply.stop ?? (reply.tool_calls?.length ? "tool_use" : "end");
}

const OPENAI_FINISH: Record<StopReason, string> = {
  end: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  other: "content_filter",
};

const ANTHROPIC_STOP: Record<StopReason, string> = {
  end: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  other: "refusal",
};

function callId(reply: ScriptReply, i: number, prefix: string): string {
  return reply.tool_calls?.[i]?.id ?? `${prefix}_${i + 1}`;
}

function openaiUsage(u: WireUsage): Json {
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead },
    completion_tokens_details: { reasoning_tokens: u.reasoning },
  };
}

function anthropicUsage(u: WireUsage): Json {
  return {
    input_tokens: Math.max(0, u.input - u.cacheRead - u.cacheCreation),
    output_tokens: u.output,
    cache_creation_input_tokens: u.cacheCreation,
    cache_read_input_tokens: u.cacheRead,
  };
}

/** A non-streaming Chat Completions response. */
export function openaiJson(reply: ScriptReply, usage: WireUsage, model: string): Json {
  const calls = (reply.tool_calls ?? []).map((c, i) => ({
    id: callId(reply, i, "call"),
    type: "function",
    function: { name: c.name, arguments: scriptArgumentsText(c) },
  }));
  return {
    id: "chatcmpl-mock",
    object: "chat.completion",
    created: 0,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text ?? null,
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        finish_reason: OPENAI_FINISH[stopOf(reply)],
      },
    ],
    usage: openaiUsage(usage),
  };
}

/** The SSE frames of a streamed Chat Completions response, framed as the real API does. */
export function openaiFrames(
  reply: ScriptReply,
  usage: WireUsage,
  model: string,
  includeUsage: boolean,
): string[] {
  const base = { id: "chatcmpl-mock", object: "chat.completion.chunk", created: 0, model };
  const frame = (choice: Json) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, finish_reason: null, ...choice }] })}\n\n`;
  const frames = [frame({ delta: { role: "assistant", content: "" } })];
  // reasoning as DeepSeek-style hosts stream it (Moonshot, Z.ai): `reasoning_content` deltas first
  for (const piece of chunks(reply.reasoning ?? "", 2))
    frames.push(frame({ delta: { reasoning_content: piece } }));
  for (const piece of chunks(reply.text ?? "", 3))
    frames.push(frame({ delta: { content: piece } }));
  for (const [i, call] of (reply.tool_calls ?? []).entries()) {
    const head = { index: i, id: callId(reply, i, "call"), type: "function" };
    frames.push(
      frame({ delta: { tool_calls: [{ ...head, function: { name: call.name, arguments: "" } }] } }),
    );
    for (const piece of chunks(scriptArgumentsText(call), 3)) {
      frames.push(frame({ delta: { tool_calls: [{ index: i, function: { arguments: piece } }] } }));
    }
  }
  frames.push(frame({ delta: {}, finish_reason: OPENAI_FINISH[stopOf(reply)] }));
  if (includeUsage) {
    frames.push(`data: ${JSON.stringify({ ...base, choices: [], usage: openaiUsage(usage) })}\n\n`);
  }
  frames.push("data: [DONE]\n\n");
  return frames;
}

/** A non-streaming Messages response. */
export function anthropicJson(reply: ScriptReply, usage: WireUsage, model: string): Json {
  const content: Json[] = [];
  if (reply.text) content.push({ type: "text", text: reply.text });
  for (const [i, call] of (reply.tool_calls ?? []).entries()) {
    content.push({
      type: "tool_use",
      id: callId(reply, i, "toolu"),
      name: call.name,
      input: call.arguments ?? {},
    });
  }
  return {
    id: "msg_mock",
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: ANTHROPIC_STOP[stopOf(reply)],
    stop_sequence: null,
    usage: anthropicUsage(usage),
  };
}

function sse(event: string, data: Json): string {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}

/** The SSE frames of a streamed Messages response, framed as the real API does. */
export function anthropicFrames(reply: ScriptReply, usage: WireUsage, model: string): string[] {
  const wire = anthropicUsage(usage);
  const frames = [
    sse("message_start", {
      message: {
        id: "msg_mock",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...wire, output_tokens: 1 },
      },
    }),
    sse("ping", {}),
  ];
  let index = 0;
  if (reply.reasoning) {
    // extended thinking: a thinking block streamed as thinking_delta, then its signature_delta
    const block = { type: "thinking", thinking: "", signature: "" };
    frames.push(sse("content_block_start", { index, content_block: block }));
    for (const piece of chunks(reply.reasoning, 2)) {
      frames.push(
        sse("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }),
      );
    }
    const signature = `sig-${Buffer.from(reply.reasoning).toString("base64")}`;
    frames.push(
      sse("content_block_delta", { index, delta: { type: "signature_delta", signature } }),
    );
    frames.push(sse("content_block_stop", { index }));
    index++;
  }
  if (reply.text) {
    frames.push(sse("content_block_start", { index, content_block: { type: "text", text: "" } }));
    for (const piece of chunks(reply.text, 3)) {
      frames.push(
        sse("content_block_delta", { index, delta: { type: "text_delta", text: piece } }),
      );
    }
    frames.push(sse("content_block_stop", { index }));
    index++;
  }
  for (const [i, call] of (reply.tool_calls ?? []).entries()) {
    const block = { type: "tool_use", id: callId(reply, i, "toolu"), name: call.name, input: {} };
    frames.push(sse("content_block_start", { index, content_block: block }));
    for (const piece of chunks(scriptArgumentsText(call), 3)) {
      frames.push(
        sse("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        }),
      );
    }
    frames.push(sse("content_block_stop", { index }));
    index++;
  }
  frames.push(
    sse("message_delta", {
      delta: { stop_reason: ANTHROPIC_STOP[stopOf(reply)], stop_sequence: null },
      usage: { output_tokens: wire.output_tokens },
    }),
  );
  frames.push(sse("message_stop", {}));
  return frames;
}

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

/** An error body in each API's shape. */
export function errorJson(api: "openai" | "anthropic", status: number, message: string): Json {
  if (api === "anthropic") {
    const type =
      ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
    return { type: "error", error: { type, message } };
  }
  const code = /context length|maximum context/i.test(message) ? "context_length_exceeded" : null;
  return { error: { message, type: status === 429 ? "requests" : "invalid_request_error", code } };
}

/** An error event inside a streamed (HTTP 200) response, framed as each API does. */
export function errorFrame(api: "openai" | "anthropic", status: number, message: string): string {
  if (api === "anthropic") return sse("error", { error: errorJson(api, status, message).error });
  const type =
    status === 429
      ? "rate_limit_exceeded"
      : status >= 500
        ? "server_error"
        : "invalid_request_error";
  return `data: ${JSON.stringify({ error: { message, type, code: null } })}\n\n`;
}

function commonPrefixLength(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Deterministic prompt-cache simulation over the requests one server has seen. */
export class CacheSimulator {
  private readonly openaiSeen: string[] = [];
  private readonly anthropicSeen = new Set<string>();

  /** OpenAI: tokens of the longest prefix shared with an earlier request, floored to 64 from 1024 chars. */
  openai(body: Json): { input: number; cacheRead: number } {
    const text = JSON.stringify({ tools: body.tools ?? [], messages: body.messages ?? [] });
    let best = 0;
    for (const earlier of this.openaiSeen) best = Math.max(best, commonPrefixLength(text, earlier));
    this.openaiSeen.push(text);
    const cacheRead = best >= 1024 ? Math.floor(estimateTokens(best) / 64) * 64 : 0;
    return { input: estimateTokens(text.length), cacheRead };
  }

  /**
   * Anthropic: the prompt is tools → system → message blocks; the longest prefix ending at a
   * `cache_control` breakpoint that an earlier request wrote is read, the rest up to the last
   * breakpoint is written.
   */
  anthropic(body: Json): { input: number; cacheRead: number; cacheCreation: number } {
    const units: { text: string; mark: boolean }[] = [];
    const add = (value: Json, role?: string) => {
      const { cache_control, ...rest } = value;
      units.push({
        text: JSON.stringify(role ? { role, ...rest } : rest),
        mark: Boolean(cache_control),
      });
    };
    for (const tool of body.tools ?? []) add(tool);
    const system =
      typeof body.system === "string" ? [{ type: "text", text: body.system }] : body.system;
    for (const block of system ?? []) add(block);
    for (const message of body.messages ?? []) {
      const content =
        typeof message.content === "string"
          ? [{ type: "text", text: message.content }]
          : message.content;
      for (const block of content) add(block, message.role);
    }
    const prefixes: string[] = [];
    const breakpoints: number[] = [];
    let prefix = "";
    for (const [i, unit] of units.entries()) {
      prefix += unit.text;
      prefixes.push(prefix);
      if (unit.mark) breakpoints.push(i);
    }
    // like the real API: each breakpoint also looks back up to 20 blocks for an earlier cache entry
    let read = "";
    for (const bp of breakpoints) {
      for (let i = bp; i >= Math.max(0, bp - 19); i--) {
        const candidate = prefixes[i] as string;
        if (this.anthropicSeen.has(candidate)) {
          if (candidate.length > read.length) read = candidate;
          break;
        }
      }
    }
    for (const bp of breakpoints) this.anthropicSeen.add(prefixes[bp] as string);
    const last = breakpoints.length ? (prefixes[breakpoints.at(-1) as number] as string) : "";
    const cacheRead = estimateTokens(read.length);
    const cacheCreation = estimateTokens(last.length) - cacheRead;
    return { input: estimateTokens(prefix.length), cacheRead, cacheCreation };
  }
}
