/** Anthropic Messages API through `@anthropic-ai/sdk`, streaming, with prompt-cache breakpoints. */
import Anthropic from "@anthropic-ai/sdk";
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages/messages";
import type { ModelRef } from "../models.ts";
import type { LlmEvent, LlmRequest, Provider, ProviderDeps } from "../types.ts";
import { toAnthropicBody } from "./anthropic-format.ts";
import { anthropicEvents } from "./anthropic-stream.ts";
import { guardRequest } from "./request-guard.ts";
import { captureConsole, reportSdkLines } from "./sdk-output.ts";

const DEFAULT_BASE_URL = "https://api.anthropic.com";

/** Builds the Anthropic provider for a resolved model. */
export function createProvider(ref: ModelRef, deps: ProviderDeps): Provider {
  const baseURL = (ref.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
  return {
    name: ref.provider,
    model: ref.model,
    async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
      const guard = guardRequest(signal, {
        provider: ref.provider,
        fetch: deps.fetch,
        idleTimeoutMs: deps.idleTimeoutMs,
        authHint: "check ANTHROPIC_API_KEY (or ANTHROPIC_OAUTH_TOKEN, ANTHROPIC_BASE_URL)",
        warn: deps.warn,
      });
      // Credentials are always explicit so the SDK never reads process env or config files.
      const client = new Anthropic({
        apiKey: ref.apiKey ?? (ref.authToken ? null : "none"),
        authToken: ref.authToken ?? null,
        webhookKey: null,
        baseURL,
        fetch: guard.fetch,
        maxRetries: 0,
        logger: guard.logger,
        logLevel: "warn",
      });
      const body = toAnthropicBody({
        ...request,
        model: request.model || ref.model,
        maxTokens: request.maxTokens ?? ref.maxTokens,
      });
      try {
        // the SDK prints deprecation notices itself (console.warn): they become model_deprecated
        const created = captureConsole(() =>
          client.messages.create(body as unknown as MessageCreateParamsStreaming, {
            signal: guard.signal,
          }),
        );
        reportSdkLines(created.lines, deps.warn);
        const stream = await created.value;
        yield* anthropicEvents(stream, ref.provider, guard.touch, guard.signal);
      } catch (error) {
        throw guard.toError(error);
      } finally {
        guard.dispose();
      }
    },
  };
}
