/** OpenAI Chat Completions (and every OpenAI-compatible endpoint) through the `openai` SDK. */
import OpenAI from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { chatReasoningEffort } from "../effort.ts";
import type { ModelRef } from "../models.ts";
import { providerInfo } from "../provider-table.ts";
import type { ProviderDeps } from "../registry.ts";
import type { LlmEvent, LlmRequest, Provider, StopReason, Usage } from "../types.ts";
import {
  mapFinishReason,
  ToolCallAccumulator,
  toOpenAIBody,
  usageFromOpenAI,
} from "./openai-format.ts";
import { guardRequest } from "./request-guard.ts";

const DEFAULT_BASE_URL = "https://api.openai.com/v1";
const CHAT_PATH = /\/chat\/completions\/?$/;

/** Where requests go: a base URL for the SDK, plus an exact URL to rewrite to when OPENAI_API_URL is odd. */
export function endpointOf(ref: ModelRef): { baseURL: string; exactUrl?: string } {
  if (ref.chatUrl) {
    const url = ref.chatUrl.trim();
    if (CHAT_PATH.test(url) && !url.includes("?")) return { baseURL: url.replace(CHAT_PATH, "") };
    return { baseURL: ref.baseURL ?? DEFAULT_BASE_URL, exactUrl: url };
  }
  return { baseURL: (ref.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, "") };
}

function rewritingFetch(base: typeof fetch, exactUrl: string): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    const target = CHAT_PATH.test(new URL(url).pathname) ? exactUrl : url;
    return base(input instanceof Request ? new Request(target, input) : target, init);
  }) as typeof fetch;
}

function authHint(ref: ModelRef): string {
  if (ref.provider === "openai")
    return "check OPENAI_API_KEY (and OPENAI_BASE_URL / OPENAI_API_URL)";
  const keys = providerInfo(ref.provider)?.keyEnvs ?? [];
  return keys.length ? `check ${keys.join(" / ")}` : `check the API key for ${ref.provider}`;
}

/** Builds the OpenAI-protocol provider for a resolved model. */
export function createProvider(ref: ModelRef, deps: ProviderDeps): Provider {
  const endpoint = endpointOf(ref);
  const legacyMaxTokens = ref.provider !== "openai";
  return {
    name: ref.provider,
    model: ref.model,
    async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
      const guard = guardRequest(signal, {
        provider: ref.provider,
        fetch: endpoint.exactUrl ? rewritingFetch(deps.fetch, endpoint.exactUrl) : deps.fetch,
        idleTimeoutMs: deps.idleTimeoutMs,
        authHint: authHint(ref),
      });
      const client = new OpenAI({
        apiKey: ref.apiKey ?? "none",
        baseURL: endpoint.baseURL,
        organization: null,
        project: null,
        webhookSecret: null,
        fetch: guard.fetch,
        maxRetries: 0,
        defaultHeaders: ref.headers,
      });
      const body = toOpenAIBody(
        {
          ...request,
          model: request.model || ref.model,
          maxTokens: request.maxTokens ?? ref.maxTokens,
        },
        {
          legacyMaxTokens,
          reasoningEffort: chatReasoningEffort(
            ref.provider,
            request.model || ref.model,
            request.effort,
          ),
        },
      );
      const tools = new ToolCallAccumulator();
      let stop: StopReason | undefined;
      let usage: Usage | undefined;
      try {
        const stream = await client.chat.completions.create(
          body as unknown as ChatCompletionCreateParamsStreaming,
          { signal: guard.signal },
        );
        for await (const chunk of stream) {
          if (chunk.usage) usage = usageFromOpenAI(chunk.usage);
          for (const choice of chunk.choices ?? []) {
            const delta = choice.delta;
            if (delta?.content) {
              yield { type: "text", text: delta.content };
              guard.touch();
            }
            // DeepSeek-style `reasoning_content` (Moonshot, Z.ai, Ollama's `reasoning`): never answer text
            const thought = delta as
              | { reasoning_content?: unknown; reasoning?: unknown }
              | undefined;
            const reasoning = thought?.reasoning_content ?? thought?.reasoning;
            if (typeof reasoning === "string" && reasoning)
              yield { type: "reasoning", text: reasoning };
            for (const call of delta?.tool_calls ?? []) tools.add(call);
            if (choice.finish_reason) stop = mapFinishReason(choice.finish_reason);
          }
        }
        // the SDKs end a stream quietly when it is aborted: that is a cancel or a stall, not an answer
        if (guard.signal.aborted) throw guard.signal.reason;
      } catch (error) {
        throw guard.toError(error);
      } finally {
        guard.dispose();
      }
      const calls = tools.finish();
      for (const call of calls) yield { type: "tool_call", call };
      if (usage) yield { type: "usage", usage };
      yield { type: "done", stop: stop ?? (calls.length > 0 ? "tool_use" : "end") };
    },
  };
}
