/** Google Gemini (GOOGLEAI) through `@google/genai`: streaming, function calling, thinking, usage. */
import { GoogleGenAI } from "@google/genai";
import { ProviderError } from "../errors.ts";
import type { ModelRef } from "../models.ts";
import type {
  LlmEvent,
  LlmRequest,
  Provider,
  ProviderDeps,
  StopReason,
  ToolCall,
  Usage,
} from "../types.ts";
import { geminiError } from "./gemini-errors.ts";
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
        throw geminiError(error, guard, ref.provider);
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
