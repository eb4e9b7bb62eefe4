/** Pure conversion between chatcli's request/events and the OpenAI Chat Completions wire format. */
import type {
  ChatMessage,
  LlmRequest,
  StopReason,
  SystemBlock,
  ToolCall,
  ToolSpec,
  Usage,
} from "../types.ts";

export type OpenAIContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type OpenAIMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | OpenAIContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface OpenAIChatBody {
  model: string;
  messages: OpenAIMessage[];
  tools?: OpenAITool[];
  stream: true;
  stream_options: { include_usage: true };
  max_completion_tokens?: number;
  max_tokens?: number;
  temperature?: number;
  reasoning_effort?: string;
}

export interface OpenAIFormatOptions {
  /** Send `max_tokens` (older OpenAI-compatible servers) instead of `max_completion_tokens`. */
  legacyMaxTokens?: boolean;
  /** `reasoning_effort` (lib/llm/effort.ts decides which hosts and models take it). */
  reasoningEffort?: string;
}

/** Joins the system blocks, in order, into one system message text (a stable, byte-identical prefix). */
export function joinSystem(blocks: readonly SystemBlock[]): string {
  return blocks
    .map((b) => b.text)
    .filter((t) => t.length > 0)
    .join("\n\n");
}

/** Tools as OpenAI function tools, sorted by name so the prefix does not depend on registration order. */
export function toOpenAITools(tools: readonly ToolSpec[]): OpenAITool[] {
  return [...tools]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.input_schema },
    }));
}

function toolCallToWire(call: ToolCall): OpenAIToolCall {
  return {
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
  };
}

function userContent(message: ChatMessage): string | OpenAIContentPart[] {
  const images = message.images?.filter((i) => i.url || i.data) ?? [];
  if (images.length === 0) return message.content;
  const parts: OpenAIContentPart[] = [];
  if (message.content) parts.push({ type: "text", text: message.content });
  for (const image of images) {
    const url = image.url ?? `data:${image.media_type ?? "image/png"};base64,${image.data}`;
    parts.push({ type: "image_url", image_url: { url } });
  }
  return parts;
}

/** Converts chatcli's history into OpenAI chat messages. */
export function toOpenAIMessages(messages: readonly ChatMessage[]): OpenAIMessage[] {
  const out: OpenAIMessage[] = [];
  for (const m of messages) {
    if (m.role === "system") out.push({ role: "system", content: m.content });
    else if (m.role === "user") out.push({ role: "user", content: userContent(m) });
    else if (m.role === "tool") {
      out.push({ role: "tool", tool_call_id: m.tool_call_id ?? "", content: m.content });
    } else {
      const calls = m.tool_calls ?? [];
      if (calls.length === 0) out.push({ role: "assistant", content: m.content });
      else {
        out.push({
          role: "assistant",
          content: m.content ? m.content : null,
          tool_calls: calls.map(toolCallToWire),
        });
      }
    }
  }
  return out;
}

/** Builds the streaming Chat Completions body for a request. */
export function toOpenAIBody(
  request: LlmRequest,
  options: OpenAIFormatOptions = {},
): OpenAIChatBody {
  const messages: OpenAIMessage[] = [];
  const system = joinSystem(request.system);
  if (system) messages.push({ role: "system", content: system });
  messages.push(...toOpenAIMessages(request.messages));
  const body: OpenAIChatBody = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools && request.tools.length > 0) body.tools = toOpenAITools(request.tools);
  if (request.maxTokens !== undefined) {
    if (options.legacyMaxTokens) body.max_tokens = request.maxTokens;
    else body.max_completion_tokens = request.maxTokens;
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (options.reasoningEffort) body.reasoning_effort = options.reasoningEffort;
  return body;
}

/** Maps OpenAI's finish_reason to chatcli's stop reason. */
export function mapFinishReason(reason: string | null | undefined): StopReason {
  if (reason === "stop") return "end";
  if (reason === "tool_calls" || reason === "function_call") return "tool_use";
  if (reason === "length") return "max_tokens";
  return "other";
}

export interface OpenAIUsageWire {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** OpenAI usage → chatcli Usage (prompt_tokens already includes the cached part). */
export function usageFromOpenAI(usage: OpenAIUsageWire): Usage {
  return {
    input_tokens: usage.prompt_tokens ?? 0,
    output_tokens: usage.completion_tokens ?? 0,
    reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
    cache_read_input_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cache_creation_input_tokens: 0,
  };
}

/** Parses a tool call's JSON arguments; anything but an object becomes `{}` with the text kept in `raw`. */
export function parseToolArguments(text: string): {
  arguments: Record<string, unknown>;
  raw?: string;
} {
  if (text.trim() === "") return { arguments: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return { arguments: value as Record<string, unknown> };
    }
  } catch {
    // fall through: keep the raw text so the loop can tell the model its arguments were invalid
  }
  return { arguments: {}, raw: text };
}

export interface ToolCallDelta {
  /** Some OpenAI-compatible servers omit it and send each call whole. */
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

function isCompleteJson(text: string): boolean {
  if (text.trim() === "") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Accumulates streamed tool-call deltas (by index) into complete calls, by the official SDK's rules
 * (ChatCompletionStream): `arguments` fragments are appended, while `id` and `function.name` are
 * assigned — an upstream that repeats the whole name in a later delta does not double it.
 */
export class ToolCallAccumulator {
  private readonly parts = new Map<number, { id: string; name: string; args: string }>();
  private last = -1;

  add(delta: ToolCallDelta): void {
    let index = typeof delta.index === "number" ? delta.index : undefined;
    if (index === undefined) {
      // No index (Gemini's OpenAI endpoint sends each call whole, several per chunk, ids often ""): a
      // new id, the first delta, or a name arriving after a call whose arguments are already complete
      // JSON opens a new call; anything else continues the last one.
      const current = this.parts.get(this.last);
      const name = delta.function?.name;
      const opens =
        this.last < 0 ||
        (delta.id && current?.id && current.id !== delta.id) ||
        (typeof name === "string" && name !== "" && current?.name && isCompleteJson(current.args));
      index = opens ? this.last + 1 : this.last;
    }
    this.last = Math.max(this.last, index);
    const part = this.parts.get(index) ?? { id: "", name: "", args: "" };
    if (typeof delta.id === "string" && delta.id) part.id = delta.id;
    const fn = delta.function;
    if (typeof fn?.name === "string" && fn.name) part.name = fn.name;
    if (typeof fn?.arguments === "string") part.args += fn.arguments;
    this.parts.set(index, part);
  }

  /** The complete calls in index order (ids synthesised when a server sent none). */
  finish(): ToolCall[] {
    return [...this.parts.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, part]) => ({
        id: part.id || `call_${index}`,
        type: "function" as const,
        name: part.name,
        ...parseToolArguments(part.args),
      }));
  }
}
