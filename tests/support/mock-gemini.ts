/**
 * The mock LLM's Gemini API: `POST /v1beta/models/{model}:generateContent` (JSON) and
 * `:streamGenerateContent?alt=sse` (SSE, `data: {…}\r\n\r\n` frames as the real API sends), with text,
 * thought parts (with thoughtSignature), functionCall parts, finishReason and usageMetadata
 * (cachedContentTokenCount from the prefix-cache simulation); errors as `{error:{code,message,status}}`,
 * before or inside the stream.
 */
import { type ScriptReply, scriptStop } from "../../lib/llm/providers/script-format.ts";
import type { Json, WireUsage } from "./mock-llm-wire.ts";
import type { ExtraRouteContext } from "./mock-routes.ts";

const GEMINI_PATH =
  /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

function geminiError(status: number, message: string, retryAfter?: number): Json {
  const error: Json = { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" };
  if (retryAfter !== undefined) {
    error.details = [
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retryAfter}s` },
    ];
  }
  return { error };
}

const FINISH: Record<string, string> = {
  end: "STOP",
  tool_use: "STOP",
  max_tokens: "MAX_TOKENS",
  other: "SAFETY",
};

function usageMetadata(u: WireUsage): Json {
  return {
    promptTokenCount: u.input,
    candidatesTokenCount: Math.max(0, u.output - u.reasoning),
    ...(u.reasoning ? { thoughtsTokenCount: u.reasoning } : {}),
    ...(u.cacheRead ? { cachedContentTokenCount: u.cacheRead } : {}),
    totalTokenCount: u.input + u.output,
  };
}

function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The chunks of a streamed answer: thoughts, text in three pieces, the calls, then finish + usage. */
export function geminiChunks(reply: ScriptReply, usage: WireUsage, model: string): Json[] {
  const chunk = (parts: Json[], extra: Json = {}) => ({
    candidates: [{ content: { role: "model", parts }, index: 0, ...extra }],
    modelVersion: model,
    responseId: "mock-gemini-response",
  });
  const chunks: Json[] = [];
  if (reply.reasoning) chunks.push(chunk([{ text: reply.reasoning, thought: true }]));
  for (const piece of pieces(reply.text ?? "")) chunks.push(chunk([{ text: piece }]));
  const calls = (reply.tool_calls ?? []).map((c, i) => ({
    functionCall: { name: c.name, args: c.arguments ?? {} },
    // Gemini 2.5+/3 sign the first call part of a turn; the signature must come back with it
    ...(i === 0 ? { thoughtSignature: `sig-${c.id ?? i}` } : {}),
  }));
  if (calls.length) chunks.push(chunk(calls));
  const last = { finishReason: FINISH[scriptStop(reply)] };
  chunks.push({
    ...chunk(chunks.length ? [] : [{ text: "" }], last),
    usageMetadata: usageMetadata(usage),
  });
  // the last chunk carries the usage of the whole response; earlier ones carry the prompt count
  return chunks.map((c, i) =>
    i < chunks.length - 1 ? { ...c, usageMetadata: { promptTokenCount: usage.input } } : c,
  );
}

/** A non-streaming generateContent response. */
function geminiJson(reply: ScriptReply, usage: WireUsage, model: string): Json {
  const parts: Json[] = [];
  if (reply.reasoning) parts.push({ text: reply.reasoning, thought: true });
  if (reply.text) parts.push({ text: reply.text });
  for (const c of reply.tool_calls ?? [])
    parts.push({ functionCall: { name: c.name, args: c.arguments ?? {} } });
  return {
    candidates: [
      { content: { role: "model", parts }, finishReason: FINISH[scriptStop(reply)], index: 0 },
    ],
    usageMetadata: usageMetadata(usage),
    modelVersion: model,
  };
}

function frame(data: Json): string {
  return `data: ${JSON.stringify(data)}\r\n\r\n`;
}

/** Answers a Gemini route, or returns undefined for any other path. */
export async function geminiRoute(ctx: ExtraRouteContext): Promise<Response | undefined> {
  const match = GEMINI_PATH.exec(ctx.path);
  if (!match || ctx.method !== "POST") return undefined;
  const model = decodeURIComponent(match[2] as string);
  const streaming = match[3] === "streamGenerateContent";
  const reply = await ctx.next();
  const body = ctx.body as Json;
  if (reply.error && !(reply.text && streaming)) {
    return Response.json(
      geminiError(reply.error.status, reply.error.message, reply.error.retry_after),
      {
        status: reply.error.status,
      },
    );
  }
  const cached = ctx.cache.openai({
    tools: body?.tools ?? [],
    messages: [body?.systemInstruction ?? null, ...(body?.contents ?? [])],
  });
  const usage = ctx.usage(reply, cached);
  if (!streaming) return Response.json(geminiJson(reply, usage, model));
  let frames = geminiChunks(reply, usage, model).map(frame);
  if (reply.error) {
    // the answer starts, then an error chunk arrives inside the 200 stream
    frames = [...frames.slice(0, -1), frame(geminiError(reply.error.status, reply.error.message))];
  }
  return ctx.sse(frames, reply.stall ? 1 : undefined);
}
