/** Pure conversion between chatcli's request/events and the OpenAI Responses API wire format. */
import type { ChatMessage, Effort, LlmRequest, StopReason, ToolCall, Usage } from "../types.ts";
import { joinSystem } from "./openai-format.ts";

export type ResponsesInputItem =
  | {
      role: "user";
      content:
        | string
        | Array<{ type: "input_text"; text: string } | { type: "input_image"; image_url: string }>;
    }
  | { role: "assistant"; content: string; phase?: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string }
  | { type: "reasoning"; id: string; encrypted_content: string; summary: unknown[] };

export interface ResponsesBody {
  model: string;
  input: ResponsesInputItem[];
  instructions?: string;
  tools?: Array<{
    type: "function";
    name: string;
    description: string;
    parameters: Record<string, unknown>;
    strict: false;
  }>;
  stream: true;
  store: false;
  include?: string[];
  max_output_tokens?: number;
  temperature?: number;
  reasoning?: { effort: string; summary?: "auto" };
}

/** Reasoning models (o-series, gpt-5 family, codex): the ones that take `reasoning`. */
export function isReasoningModel(model: string): boolean {
  return /^(?:o\d|gpt-5|codex)/i.test(model.trim().replace(/^[^/]+\//, ""));
}

/** Effort → OpenAI's reasoning effort: `max` is `xhigh` where the model has it (gpt-5.2+, codex-max). */
export function openaiEffort(model: string, effort: Effort): string {
  if (effort !== "max") return effort;
  return /gpt-5\.(?:[2-9]|\d\d)|codex-max/i.test(model) ? "xhigh" : "high";
}

function userContent(m: ChatMessage): ResponsesInputItem {
  const images = m.images?.filter((i) => i.url || i.data) ?? [];
  if (images.length === 0) return { role: "user", content: m.content };
  const parts: Array<
    { type: "input_text"; text: string } | { type: "input_image"; image_url: string }
  > = [];
  if (m.content) parts.push({ type: "input_text", text: m.content });
  for (const image of images) {
    parts.push({
      type: "input_image",
      image_url: image.url ?? `data:${image.media_type ?? "image/png"};base64,${image.data}`,
    });
  }
  return { role: "user", content: parts };
}

function callItems(calls: readonly ToolCall[]): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  // the reasoning items and commentary of a tool-calling turn go back before its calls, in their
  // order (reasoning encrypted as returned, commentary with its phase)
  for (const block of calls[0]?.thinking ?? []) {
    if (block.type === "reasoning") {
      items.push({
        type: "reasoning",
        id: block.id,
        encrypted_content: block.encrypted_content,
        summary: [],
      });
    } else if (block.type === "commentary") {
      items.push({ role: "assistant", content: block.text, phase: block.phase });
    }
  }
  for (const call of calls) {
    items.push({
      type: "function_call",
      call_id: call.id,
      name: call.name,
      arguments: JSON.stringify(call.arguments ?? {}),
    });
  }
  return items;
}

/** History → input items; system messages are returned apart (they join `instructions`). */
export function toResponsesInput(messages: readonly ChatMessage[]): {
  input: ResponsesInputItem[];
  system: string[];
} {
  const input: ResponsesInputItem[] = [];
  const system: string[] = [];
  for (const m of messages) {
    if (m.role === "system") {
      if (m.content) system.push(m.content);
    } else if (m.role === "user") input.push(userContent(m));
    else if (m.role === "tool") {
      input.push({
        type: "function_call_output",
        call_id: m.tool_call_id ?? "",
        output: m.content,
      });
    } else {
      if (m.content) input.push({ role: "assistant", content: m.content });
      input.push(...callItems(m.tool_calls ?? []));
    }
  }
  return { input, system };
}

/** Builds the streaming Responses body (stateless: store false, reasoning carried encrypted). */
export function toResponsesBody(request: LlmRequest): ResponsesBody {
  const { input, system } = toResponsesInput(request.messages);
  const body: ResponsesBody = { model: request.model, input, stream: true, store: false };
  const instructions = [joinSystem(request.system), ...system].filter(Boolean).join("\n\n");
  if (instructions) body.instructions = instructions;
  if (request.tools?.length) {
    body.tools = [...request.tools]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((t) => ({
        type: "function",
        name: t.name,
        description: t.description,
        parameters: t.input_schema,
        strict: false,
      }));
  }
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (isReasoningModel(request.model)) {
    body.include = ["reasoning.encrypted_content"];
    if (request.effort || request.showReasoning) {
      body.reasoning = {
        effort: request.effort ? openaiEffort(request.model, request.effort) : "medium",
      };
      if (request.showReasoning) body.reasoning.summary = "auto";
    }
  }
  return body;
}

export interface ResponsesUsageWire {
  input_tokens?: number | null;
  output_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** Responses usage → chatcli Usage (input includes the cached part, output the reasoning). */
export function usageFromResponses(usage: ResponsesUsageWire): Usage {
  return {
    input_tokens: usage.input_tokens ?? 0,
    output_tokens: usage.output_tokens ?? 0,
    reasoning_tokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
    cache_read_input_tokens: usage.input_tokens_details?.cached_tokens ?? 0,
    cache_creation_input_tokens: 0,
  };
}

/** `response.incomplete`'s reason → stop reason. */
export function incompleteStop(reason: string | null | undefined): StopReason {
  return reason === "max_output_tokens" ? "max_tokens" : "other";
}
