/** Anthropic Messages API through `@anthropic-ai/sdk`, streaming, with prompt-cache breakpoints. */
import Anthropic from "@anthropic-ai/sdk";
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages/messages";
import { ProviderError } from "../errors.ts";
import type { ModelRef } from "../models.ts";
import type { ProviderDeps } from "../registry.ts";
import type {
  LlmEvent,
  LlmRequest,
  Provider,
  StopReason,
  ThinkingBlock,
  ToolCall,
} from "../types.ts";
import {
  type AnthropicUsageWire,
  mapStopReason,
  toAnthropicBody,
  usageFromAnthropic,
} from "./anthropic-format.ts";
import { parseToolArguments } from "./openai-format.ts";
import { guardRequest } from "./request-guard.ts";
import { captureConsole, reportSdkLines } from "./sdk-output.ts";

const DEFAULT_BASE_URL = "https://api.anthropic.com";

interface OpenBlock {
  type: string;
  id: string;
  name: string;
  json: string;
  /** thinking text and signature, or a redacted block's data */
  thinking?: string;
  signature?: string;
}

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
      const blocks = new Map<number, OpenBlock>();
      let usage: AnthropicUsageWire = {};
      let stop: StopReason | undefined;
      let stopReason: string | null | undefined;
      let stopDetails: unknown;
      let stopped = false;
      const calls: ToolCall[] = [];
      const provider = ref.provider;
      const thinking: ThinkingBlock[] = [];
      let thinkingChars = 0;
      try {
        // the SDK prints deprecation notices itself (console.warn): they become model_deprecated
        const created = captureConsole(() =>
          client.messages.create(body as unknown as MessageCreateParamsStreaming, {
            signal: guard.signal,
          }),
        );
        reportSdkLines(created.lines, deps.warn);
        const stream = await created.value;
        for await (const event of stream) {
          if (event.type === "message_start") {
            usage = { ...event.message.usage };
          } else if (event.type === "content_block_start") {
            const block = event.content_block;
            blocks.set(event.index, {
              type: block.type,
              id: block.type === "tool_use" ? block.id : "",
              name: block.type === "tool_use" ? block.name : "",
              json: "",
              thinking:
                block.type === "thinking"
                  ? block.thinking
                  : block.type === "redacted_thinking"
                    ? block.data
                    : undefined,
              signature: block.type === "thinking" ? block.signature : undefined,
            });
          } else if (event.type === "content_block_delta") {
            const delta = event.delta;
            if (delta.type === "text_delta" && delta.text) {
              yield { type: "text", text: delta.text };
              guard.touch();
            } else if (delta.type === "input_json_delta") {
              const open = blocks.get(event.index);
              if (open) open.json += delta.partial_json;
            } else if (delta.type === "thinking_delta" || delta.type === "signature_delta") {
              const open = blocks.get(event.index);
              if (open && delta.type === "signature_delta")
                open.signature = (open.signature ?? "") + delta.signature;
              else if (open && delta.type === "thinking_delta") {
                open.thinking = (open.thinking ?? "") + delta.thinking;
                thinkingChars += delta.thinking.length;
                yield { type: "reasoning", text: delta.thinking };
                guard.touch();
              }
            }
          } else if (event.type === "content_block_stop") {
            const open = blocks.get(event.index);
            blocks.delete(event.index);
            if (open?.type === "tool_use") {
              calls.push({
                id: open.id,
                type: "function",
                name: open.name,
                ...parseToolArguments(open.json),
              });
            } else if (open?.type === "thinking") {
              thinking.push({
                type: "thinking",
                thinking: open.thinking ?? "",
                signature: open.signature ?? "",
              });
            } else if (open?.type === "redacted_thinking") {
              thinking.push({ type: "redacted_thinking", data: open.thinking ?? "" });
            }
          } else if (event.type === "message_delta") {
            stopReason = event.delta.stop_reason;
            stopDetails = (event.delta as { stop_details?: unknown }).stop_details;
            stop = mapStopReason(stopReason);
            usage = mergeUsage(usage, event.usage as AnthropicUsageWire);
          } else if (event.type === "message_stop") stopped = true;
        }
        // the SDKs end a stream quietly when it is aborted: that is a cancel or a stall, not an answer
        if (guard.signal.aborted) throw guard.signal.reason;
      } catch (error) {
        throw guard.toError(error);
      } finally {
        guard.dispose();
      }
      if (!stopped) {
        throw new ProviderError(
          "truncated",
          `${provider}: the stream ended without message_stop (the connection dropped mid-answer)`,
          { provider, hint: "the answer is incomplete; ask again" },
        );
      }
      if (stopReason === "refusal") {
        // a refused answer is still billed (output tokens up to the refusal)
        yield { type: "usage", usage: usageFromAnthropic(usage) };
        throw new ProviderError("refused", `${provider}: ${refusalText(stopDetails)}`, {
          provider,
        });
      }
      // the turn's thinking rides on its first call: the tool loop sends it back unchanged
      if (calls[0] && thinking.length) calls[0].thinking = thinking;
      for (const call of calls) yield { type: "tool_call", call };
      const total = usageFromAnthropic(usage);
      // thinking is inside output_tokens without a separate count: estimated (chars/4)
      total.reasoning_tokens = Math.min(total.output_tokens, Math.ceil(thinkingChars / 4));
      yield { type: "usage", usage: total };
      yield { type: "done", stop: stop ?? (calls.length > 0 ? "tool_use" : "end") };
    },
  };
}

/** The refusal's explanation from `stop_details` ({type: "refusal", category, explanation}), if sent. */
function refusalText(details: unknown): string {
  const d = (typeof details === "object" && details !== null ? details : {}) as Record<
    string,
    unknown
  >;
  const explanation = typeof d["explanation"] === "string" ? d["explanation"].trim() : "";
  const category = typeof d["category"] === "string" ? d["category"] : "";
  const head = `the model refused to answer (stop_reason refusal${category ? `, category ${category}` : ""})`;
  return explanation ? `${head}: ${explanation}` : head;
}

/** message_delta carries cumulative counters; a null/absent one keeps the message_start value. */
function mergeUsage(base: AnthropicUsageWire, delta: AnthropicUsageWire): AnthropicUsageWire {
  const out = { ...base };
  for (const key of Object.keys(delta) as (keyof AnthropicUsageWire)[]) {
    const value = delta[key];
    if (typeof value === "number") out[key] = value;
  }
  return out;
}
