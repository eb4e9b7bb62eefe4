/** Google Gemini (GOOGLEAI) through `@google/genai`: streaming, function calling, thinking, usage. */
import { GoogleGenAI } from "@google/genai";
import { ProviderError } from "../errors.ts";
import type { ModelRef } from "../models.ts";
import type { ProviderDeps } from "../registry.ts";
import type { LlmEvent, LlmRequest, Provider, StopReason, ToolCall, Usage } from "../types.ts";
import {
  type GeminiPart,
  type GeminiUsageWire,
  mapFinishReason,
  toGeminiRequest,
  usageFromGemini,
} from "./gemini-format.ts";
import { guardRequest } from "./request-guard.ts";

const DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";

interface GeminiChunk {
  candidates?: Array<{ content?: { parts?: GeminiPart[] }; finishReason?: string }>;
  usageMetadata?: GeminiUsageWire;
  promptFeedback?: { blockReason?: string };
}

/**
 * The SDK throws `ApiError{status, message: JSON of the error body}`: give the guard the body's own
 * message and, for a 429, the RetryInfo delay as a retry-after header.
 */
function unwrapApiError(error: unknown): unknown {
  const e = error as { name?: unknown; status?: unknown; message?: unknown };
  if (e?.name !== "ApiError" || typeof e.status !== "number" || typeof e.message !== "string") {
    return error;
  }
  const json = e.message.slice(e.message.indexOf("{"));
  try {
    const body = JSON.parse(json) as {
      error?: { message?: string; status?: string; details?: Array<Record<string, unknown>> };
    };
    const retry = body.error?.details?.find((d) => String(d["@type"]).endsWith("RetryInfo"));
    const delay =
      typeof retry?.["retryDelay"] === "string" ? Number.parseFloat(retry["retryDelay"]) : NaN;
    const headers = new Headers(Number.isFinite(delay) ? { "retry-after": String(delay) } : {});
    const message = body.error?.message ?? e.message;
    return {
      name: "ApiError",
      status: e.status,
      headers,
      message,
      error: { message, type: body.error?.status },
    };
  } catch {
    return error;
  }
}

/** The SDK's constructor reads the process environment for keys and warns when two are set: hush it. */
function createClient(ref: ModelRef, fetch: typeof globalThis.fetch): GoogleGenAI {
  // the SDK's warning goes to the console; silenced for the constructor only
  const sdkConsole = console;
  const warn = sdkConsole.warn;
  sdkConsole.warn = () => {};
  try {
    return new GoogleGenAI({
      apiKey: ref.apiKey ?? "",
      vertexai: false,
      httpOptions: {
        baseUrl: (ref.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, ""),
        headers: ref.headers,
        fetch,
        retryOptions: { attempts: 1 },
      },
    });
  } finally {
    sdkConsole.warn = warn;
  }
}

/** Builds the Gemini provider for a resolved model. */
export function createProvider(ref: ModelRef, deps: ProviderDeps): Provider {
  return {
    name: ref.provider,
    model: ref.model,
    async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
      const guard = guardRequest(signal, {
        provider: ref.provider,
        fetch: deps.fetch,
        idleTimeoutMs: deps.idleTimeoutMs,
        authHint:
          "check GOOGLEAI_API_KEY (or GEMINI_API_KEY / GOOGLE_API_KEY) and GOOGLEAI_BASE_URL",
      });
      const client = createClient(ref, guard.fetch);
      const body = toGeminiRequest({
        ...request,
        model: request.model || ref.model,
        maxTokens: request.maxTokens ?? ref.maxTokens,
      });
      const calls: ToolCall[] = [];
      let usage: Usage | undefined;
      let finish: string | undefined;
      let blocked: string | undefined;
      try {
        const stream = await client.models.generateContentStream({
          model: body.model,
          contents: body.contents,
          config: { ...body.config, abortSignal: guard.signal } as never,
        });
        for await (const raw of stream) {
          const chunk = raw as unknown as GeminiChunk;
          if (chunk.usageMetadata) usage = usageFromGemini(chunk.usageMetadata);
          if (chunk.promptFeedback?.blockReason) blocked = chunk.promptFeedback.blockReason;
          const candidate = chunk.candidates?.[0];
          for (const part of candidate?.content?.parts ?? []) {
            if (part.functionCall) {
              const call: ToolCall = {
                id: part.functionCall.id || `gemini_call_${calls.length + 1}`,
                type: "function",
                name: part.functionCall.name ?? "",
                arguments: part.functionCall.args ?? {},
              };
              if (part.thoughtSignature) call.thought_signature = part.thoughtSignature;
              calls.push(call);
            } else if (part.text && part.thought) {
              yield { type: "reasoning", text: part.text };
              guard.touch();
            } else if (part.text) {
              yield { type: "text", text: part.text };
              guard.touch();
            }
          }
          if (candidate?.finishReason) finish = candidate.finishReason;
        }
        if (guard.signal.aborted) throw guard.signal.reason;
        if (!finish && !blocked) {
          // a stream cut off before its last chunk is not an answer
          throw new ProviderError(
            "network",
            `${ref.provider}: the stream ended before the answer was complete`,
            {
              provider: ref.provider,
            },
          );
        }
      } catch (error) {
        throw guard.toError(unwrapApiError(error));
      } finally {
        guard.dispose();
      }
      for (const call of calls) yield { type: "tool_call", call };
      if (usage) yield { type: "usage", usage };
      const stop: StopReason = blocked ? "other" : mapFinishReason(finish, calls.length > 0);
      yield { type: "done", stop };
    },
  };
}
