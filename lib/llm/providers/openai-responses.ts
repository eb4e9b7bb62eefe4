/**
 * OpenAI's Responses API through the `openai` SDK (OPENAI_USE_RESPONSES=true, or a model only served
 * there): streamed text, function calls, reasoning summaries and encrypted reasoning items, usage.
 */
import OpenAI from "openai";
import { ProviderError } from "../errors.ts";
import type { ModelRef } from "../models.ts";
import type {
  LlmEvent,
  LlmRequest,
  Provider,
  ProviderDeps,
  StopReason,
  ThinkingBlock,
  ToolCall,
  Usage,
} from "../types.ts";
import { endpointOf } from "./openai.ts";
import { parseToolArguments } from "./openai-format.ts";
import {
  incompleteStop,
  type ResponsesUsageWire,
  toResponsesBody,
  usageFromResponses,
} from "./openai-responses-format.ts";
import { guardRequest } from "./request-guard.ts";

interface OutputItem {
  type?: string;
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  encrypted_content?: string | null;
}

interface ResponsesEvent {
  type: string;
  delta?: string;
  item?: OutputItem;
  output_index?: number;
  code?: string | null;
  message?: string;
  response?: {
    usage?: ResponsesUsageWire | null;
    incomplete_details?: { reason?: string | null } | null;
    error?: { code?: string | null; message?: string } | null;
  };
}

/** An error carried by the stream (`error`, `response.failed`) in the shape the guard classifies. */
function streamError(code: string | null | undefined, message: string | undefined): unknown {
  return {
    error: { type: code ?? "server_error", message: message ?? "response failed" },
    message,
  };
}

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
      const calls = new Map<number, ToolCall & { args: string }>();
      const reasoning: ThinkingBlock[] = [];
      let usage: Usage | undefined;
      let stop: StopReason | undefined;
      try {
        const stream = (await client.responses.create(body as never, {
          signal: guard.signal,
        })) as unknown as AsyncIterable<ResponsesEvent>;
        for await (const event of stream) {
          const index = event.output_index ?? 0;
          if (event.type === "response.output_text.delta" && event.delta) {
            yield { type: "text", text: event.delta };
            guard.touch();
          } else if (
            (event.type === "response.reasoning_summary_text.delta" ||
              event.type === "response.reasoning_text.delta") &&
            event.delta
          ) {
            yield { type: "reasoning", text: event.delta };
            guard.touch();
          } else if (
            event.type === "response.output_item.added" &&
            event.item?.type === "function_call"
          ) {
            const item = event.item;
            calls.set(index, {
              id: item.call_id ?? item.id ?? `call_${index}`,
              type: "function",
              name: item.name ?? "",
              arguments: {},
              args: item.arguments ?? "",
            });
          } else if (event.type === "response.function_call_arguments.delta" && event.delta) {
            const call = calls.get(index);
            if (call) call.args += event.delta;
          } else if (event.type === "response.output_item.done" && event.item) {
            const item = event.item;
            if (item.type === "function_call") {
              const call = calls.get(index) ?? {
                id: item.call_id ?? `call_${index}`,
                type: "function" as const,
                name: item.name ?? "",
                arguments: {},
                args: "",
              };
              // the done event carries the whole arguments text: it wins over the deltas
              if (typeof item.arguments === "string") call.args = item.arguments;
              if (item.name) call.name = item.name;
              calls.set(index, call);
            } else if (item.type === "reasoning" && item.id && item.encrypted_content) {
              reasoning.push({
                type: "reasoning",
                id: item.id,
                encrypted_content: item.encrypted_content,
              });
            }
          } else if (event.type === "response.completed") {
            if (event.response?.usage) usage = usageFromResponses(event.response.usage);
            stop = "end";
          } else if (event.type === "response.incomplete") {
            if (event.response?.usage) usage = usageFromResponses(event.response.usage);
            stop = incompleteStop(event.response?.incomplete_details?.reason);
          } else if (event.type === "response.failed") {
            const error = event.response?.error;
            throw streamError(error?.code, error?.message);
          } else if (event.type === "error") {
            throw streamError(event.code, event.message);
          }
        }
        if (guard.signal.aborted) throw guard.signal.reason;
        if (!stop) {
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
      const done = [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
      for (const [i, { args, ...call }] of done.entries()) {
        const parsed: ToolCall = { ...call, ...parseToolArguments(args) };
        if (i === 0 && reasoning.length) parsed.thinking = reasoning;
        yield { type: "tool_call", call: parsed };
      }
      if (usage) yield { type: "usage", usage };
      yield {
        type: "done",
        stop: done.length > 0 && stop === "end" ? "tool_use" : (stop ?? "end"),
      };
    },
  };
}
