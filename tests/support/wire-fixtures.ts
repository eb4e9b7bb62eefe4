/**
 * Provider traffic as it really arrives, for `MockLlm.pushRaw`: frames shaped on the documented wire
 * formats (OpenAI Chat Completions SSE, Anthropic Messages SSE) and on the odd shapes real
 * OpenAI-compatible servers send — OpenRouter's `: OPENROUTER PROCESSING` comments and mid-stream
 * error chunks, DeepSeek's `reasoning_content`, Groq's `x_groq.usage`, Mistral's content-part
 * arrays, Ollama's `fp_ollama` chunks, usage-only final chunks with empty `choices`, streams cut off.
 */
import type { RawReply } from "./mock-llm.ts";

// biome-ignore lint/suspicious/noExplicitAny: wire payloads are arbitrary JSON
type Json = any;

export const DONE = "data: [DONE]\n\n";

export function data(payload: Json): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

export function comment(text: string): string {
  return `: ${text}\n\n`;
}

/** One chat.completion.chunk with a single choice (finish_reason null unless given). */
export function chunk(
  delta: Json,
  options: { finish?: string | null; model?: string; id?: string; extra?: Json } = {},
): string {
  return data({
    id: options.id ?? "chatcmpl-9xQ2b7Yh1",
    object: "chat.completion.chunk",
    created: 1764547200,
    model: options.model ?? "gpt-4o-mini-2024-07-18",
    system_fingerprint: "fp_0ba0d124f1",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: options.finish ?? null }],
    ...options.extra,
  });
}

export function openaiUsage(prompt: number, completion: number, extra: Json = {}): Json {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    ...extra,
  };
}

/** The usage-only last chunk of `stream_options.include_usage`: `choices` is empty. */
export function usageChunk(prompt: number, completion: number, model?: string): string {
  return data({
    id: "chatcmpl-9xQ2b7Yh1",
    object: "chat.completion.chunk",
    created: 1764547200,
    model: model ?? "gpt-4o-mini-2024-07-18",
    system_fingerprint: "fp_0ba0d124f1",
    choices: [],
    usage: openaiUsage(prompt, completion),
  });
}

export function sse(frames: string[], extra: Partial<RawReply> = {}): RawReply {
  return { frames, ...extra };
}

/** An OpenAI answer in pieces, with finish_reason, usage chunk and [DONE] as the API sends them. */
export function openaiAnswer(pieces: string[], model?: string): string[] {
  return [
    chunk({ role: "assistant", content: "", refusal: null }, { model }),
    ...pieces.map((p) => chunk({ content: p }, { model })),
    chunk({}, { finish: "stop", model }),
    usageChunk(21, pieces.length * 2, model),
    DONE,
  ];
}

// ---------------------------------------------------------------- Anthropic Messages

export function event(type: string, payload: Json = {}): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
}

export function messageStart(model = "claude-sonnet-4-5-20250929", input = 25): string {
  return event("message_start", {
    message: {
      id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: input,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 1,
      },
    },
  });
}

/** A text block: start, deltas, stop. */
export function textBlock(index: number, pieces: string[]): string[] {
  return [
    event("content_block_start", { index, content_block: { type: "text", text: "" } }),
    ...pieces.map((text) =>
      event("content_block_delta", { index, delta: { type: "text_delta", text } }),
    ),
    event("content_block_stop", { index }),
  ];
}

export function messageDelta(stopReason: string, output: number, extra: Json = {}): string {
  return event("message_delta", {
    delta: { stop_reason: stopReason, stop_sequence: null, ...extra },
    usage: { output_tokens: output },
  });
}

/** A whole Anthropic answer, as the API streams it (ping included). */
export function anthropicAnswer(pieces: string[], model?: string): string[] {
  return [
    messageStart(model),
    event("ping"),
    ...textBlock(0, pieces),
    messageDelta("end_turn", pieces.length * 2),
    event("message_stop"),
  ];
}

export function htmlPage(status: number, title: string): RawReply {
  return {
    status,
    headers: { "content-type": "text/html; charset=utf-8" },
    frames: [
      `<!DOCTYPE html>\n<html>\n<head><title>${title}</title></head>\n<body>\n<center><h1>${title}</h1></center>\n<hr><center>cloudflare</center>\n${"<!-- padding -->\n".repeat(20)}</body>\n</html>\n`,
    ],
  };
}

export function jsonError(
  status: number,
  body: Json,
  headers: Record<string, string> = {},
): RawReply {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    frames: [JSON.stringify(body)],
  };
}
