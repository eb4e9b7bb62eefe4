/**
 * OpenAI's Responses API through the `openai` SDK (OPENAI_USE_RESPONSES=true, or a model only served
 * there): streamed text, function calls, reasoning summaries and encrypted reasoning items, message
 * phases (commentary vs final answer), usage; the events are read by ResponsesStreamReader.
 */
import OpenAI from "openai";
import { ProviderError } from "../errors.ts";
import type { ModelRef } from "../models.ts";
import type { LlmEvent, LlmRequest, Provider, ProviderDeps } from "../types.ts";
import { endpointOf } from "./openai.ts";
import { toResponsesBody } from "./openai-responses-format.ts";
import { type ResponsesEvent, ResponsesStreamReader } from "./openai-responses-stream.ts";
import { guardRequest } from "./request-guard.ts";

const OPENAI_QUOTA_HINT =
  "the OpenAI account behind OPENAI_API_KEY has no quota or credit left: check its plan and billing (https://platform.openai.com/settings/organization/billing); retrying will not help until then";

/** Builds the Responses-API provider for a resolved model. */
export function createProvider(ref: ModelRef, deps: ProviderDeps): Provider {
  const { baseURL } = endpointOf(ref);
  return {
    name: ref.provider,
    model: ref.model,
    async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
      const guard = guardRequest(signal, {
        provider: ref.provider,
        fetch: deps.fetch,
        idleTimeoutMs: deps.idleTimeoutMs,
        authHint: "check OPENAI_API_KEY (and OPENAI_BASE_URL)",
        quotaHint: OPENAI_QUOTA_HINT,
      });
      const client = new OpenAI({
        apiKey: ref.apiKey ?? "none",
        baseURL,
        organization: null,
        project: null,
        webhookSecret: null,
        fetch: guard.fetch,
        maxRetries: 0,
        defaultHeaders: ref.headers,
      });
      const body = toResponsesBody({
        ...request,
        model: request.model || ref.model,
        maxTokens: request.maxTokens ?? ref.maxTokens,
      });
      const reader = new ResponsesStreamReader();
      try {
        const stream = (await client.responses.create(body as never, {
          signal: guard.signal,
        })) as unknown as AsyncIterable<ResponsesEvent>;
        for await (const event of stream) {
          for (const out of reader.read(event)) {
            yield out;
            guard.touch();
          }
          // response.completed / response.incomplete is the last event: the answer and its usage are
          // in; a connection a proxy keeps open afterwards must not turn them into a timeout
          if (reader.stop) break;
        }
        if (guard.signal.aborted) throw guard.signal.reason;
        if (!reader.stop) {
          throw new ProviderError(
            "network",
            `${ref.provider}: the stream ended before response.completed`,
            {
              provider: ref.provider,
            },
          );
        }
      } catch (error) {
        throw guard.toError(error);
      } finally {
        guard.dispose();
      }
      if (reader.refusalText) {
        // a refused answer is still billed: its usage goes into the totals
        if (reader.usage) yield { type: "usage", usage: reader.usage };
        throw new ProviderError(
          "refused",
          `${ref.provider}: the model refused: ${reader.refusalText}`,
          {
            provider: ref.provider,
          },
        );
      }
      yield* reader.finish();
    },
  };
}
