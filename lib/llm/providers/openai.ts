/** OpenAI Chat Completions (and every OpenAI-compatible endpoint) through the `openai` SDK. */
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { chatReasoningEffort } from "../effort.ts";
import { kindFromStatus, ProviderError } from "../errors.ts";
import type { ModelRef } from "../models.ts";
import { providerInfo } from "../provider-table.ts";
import type { LlmEvent, LlmRequest, Provider, ProviderDeps } from "../types.ts";
import { OpenAICompatible } from "./openai-client.ts";
import { toOpenAIBody } from "./openai-format.ts";
import { OpenAIStreamReader } from "./openai-stream.ts";
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
        warn: deps.warn,
      });
      const client = new OpenAICompatible({
        apiKey: ref.apiKey ?? "none",
        baseURL: endpoint.baseURL,
        organization: null,
        project: null,
        webhookSecret: null,
        fetch: guard.fetch,
        maxRetries: 0,
        logger: guard.logger,
        logLevel: "warn",
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
      const reader = new OpenAIStreamReader();
      const provider = ref.provider;
      try {
        const stream = await client.chat.completions.create(
          body as unknown as ChatCompletionCreateParamsStreaming,
          { signal: guard.signal },
        );
        for await (const chunk of stream) {
          const out = reader.read(chunk);
          if ("error" in out) {
            const { message, status } = out.error;
            throw new ProviderError(
              status ? kindFromStatus(status, message) : "server",
              `${provider}: ${status ? `${status} ` : ""}${message}`,
              { provider, status },
            );
          }
          if (out.text) {
            yield { type: "text", text: out.text };
            guard.touch();
          }
          if (out.reasoning) yield { type: "reasoning", text: out.reasoning };
        }
        // the SDKs end a stream quietly when it is aborted: that is a cancel or a stall, not an answer
        if (guard.signal.aborted) throw guard.signal.reason;
      } catch (error) {
        throw guard.toError(error);
      } finally {
        guard.dispose();
      }
      if (reader.finishReason === "error") {
        // OpenRouter ends a failed generation with finish_reason "error" (and, usually, an error chunk)
        throw new ProviderError(
          "server",
          `${provider}: the provider ended the stream with finish_reason "error"`,
          { provider },
        );
      }
      // only the absence of both finish_reason and [DONE] is a cut-off stream
      if (!reader.finished && !guard.sawDone) {
        throw new ProviderError(
          "truncated",
          `${provider}: the stream ended without finish_reason or [DONE] (the connection dropped mid-answer)`,
          { provider, hint: "the answer is incomplete; ask again" },
        );
      }
      if (reader.refusalText || reader.finishReason === "content_filter") {
        const why = reader.refusalText
          ? `the model refused: ${reader.refusalText}`
          : "the provider's content filter stopped the answer (finish_reason content_filter)";
        // a refused answer is still billed: its usage goes into the totals
        if (reader.finalUsage) yield { type: "usage", usage: reader.finalUsage };
        throw new ProviderError("refused", `${provider}: ${why}`, { provider });
      }
      const calls = reader.tools.finish();
      for (const call of calls) yield { type: "tool_call", call };
      const usage = reader.finalUsage;
      if (usage) yield { type: "usage", usage };
      yield { type: "done", stop: reader.stopReason(calls.length) };
    },
  };
}
