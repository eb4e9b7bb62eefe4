/**
 * Anthropic models on Amazon Bedrock through `@anthropic-ai/bedrock-sdk`: InvokeModelWithResponseStream
 * (AWS event-stream framing, decoded by the SDK), SigV4 with the standard AWS credential chain, prompt
 * caching and thinking as on Anthropic.
 */
import { AnthropicBedrock } from "@anthropic-ai/bedrock-sdk";
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages/messages";
import type { ModelRef } from "../models.ts";
import type { LlmEvent, LlmRequest, Provider, ProviderDeps } from "../types.ts";
import { toAnthropicBody } from "./anthropic-format.ts";
import { anthropicEvents } from "./anthropic-stream.ts";
import { guardRequest } from "./request-guard.ts";

const AUTH_HINT =
  "check the AWS credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity or container credentials), BEDROCK_REGION / AWS_REGION, and model access for BEDROCK_MODEL in the Bedrock console";

/** The credential source: static keys from chatcli's env, a named profile, else the SDK's default chain. */
function credentialOptions(ref: ModelRef) {
  if (ref.apiKey) return { apiKey: ref.apiKey };
  if (ref.aws?.accessKeyId) {
    return {
      apiKey: null,
      awsAccessKey: ref.aws.accessKeyId,
      awsSecretKey: ref.aws.secretAccessKey,
      awsSessionToken: ref.aws.sessionToken ?? null,
    };
  }
  const profile = ref.aws?.profile;
  if (!profile) return { apiKey: null };
  return {
    apiKey: null,
    providerChainResolver: async () => {
      const { fromNodeProviderChain } = await import("@aws-sdk/credential-providers");
      return fromNodeProviderChain({ profile });
    },
  };
}

/** Builds the Bedrock provider for a resolved model. */
export function createProvider(ref: ModelRef, deps: ProviderDeps): Provider {
  const region = ref.region ?? "us-east-1";
  const baseURL = (ref.baseURL ?? `https://bedrock-runtime.${region}.amazonaws.com`).replace(
    /\/+$/,
    "",
  );
  return {
    name: ref.provider,
    model: ref.model,
    async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
      const guard = guardRequest(signal, {
        provider: ref.provider,
        fetch: deps.fetch,
        idleTimeoutMs: deps.idleTimeoutMs,
        authHint: AUTH_HINT,
      });
      const client = new AnthropicBedrock({
        awsRegion: region,
        baseURL,
        fetch: guard.fetch,
        maxRetries: 0,
        ...credentialOptions(ref),
      } as unknown as ConstructorParameters<typeof AnthropicBedrock>[0]);
      const body = toAnthropicBody({
        ...request,
        model: request.model || ref.model,
        maxTokens: request.maxTokens ?? ref.maxTokens,
      });
      const out: LlmEvent[] = [];
      try {
        const stream = await client.messages.create(
          body as unknown as MessageCreateParamsStreaming,
          {
            signal: guard.signal,
          },
        );
        for await (const event of anthropicEvents(stream, ref.provider, guard.touch)) {
          // text and reasoning stream at once; calls, usage and the stop come after the last byte
          if (event.type === "text" || event.type === "reasoning") yield event;
          else out.push(event);
        }
        if (guard.signal.aborted) throw guard.signal.reason;
      } catch (error) {
        throw guard.toError(error);
      } finally {
        guard.dispose();
      }
      yield* out;
    },
  };
}
