/** Pure conversion between chatcli's request/events and the Anthropic Messages wire format. */
import { anthropicThinking } from "../effort.ts";
import type {
  ChatMessage,
  LlmRequest,
  StopReason,
  ThinkingBlock,
  ToolSpec,
  Usage,
} from "../types.ts";

export interface CacheControl {
  type: "ephemeral";
}

export interface AnthropicTextBlock {
  type: "text";
  text: string;
  cache_control?: CacheControl;
}

export type AnthropicBlock =
  | AnthropicTextBlock
  | Extract<ThinkingBlock, { type: "thinking" | "redacted_thinking" }>
  | {
      type: "image";
      source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
      cache_control?: CacheControl;
    }
  | {
      type: "tool_use";
      id: string;
      name: string;
      input: Record<string, unknown>;
      cache_control?: CacheControl;
    }
  | {
      type: "tool_result";
      tool_use_id: string;
      content: string;
      is_error?: boolean;
      cache_control?: CacheControl;
    };

export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  cache_control?: CacheControl;
}

export interface AnthropicBody {
  model: string;
  max_tokens: number;
  system?: AnthropicTextBlock[];
  messages: AnthropicMessage[];
  tools?: AnthropicTool[];
  temperature?: number;
  thinking?: { type: "enabled"; budget_tokens: number };
  stream: true;
}

/** Anthropic accepts at most this many `cache_control` breakpoints per request. */
export const MAX_BREAKPOINTS = 4;

/** Output-token ceiling sent when the request sets none. */
export function defaultMaxTokens(model: string): number {
  return /claude-3-(?:haiku|sonnet|opus|5-)/i.test(model) && !/3-7/.test(model) ? 4096 : 8192;
}

function byName(a: ToolSpec, b: ToolSpec): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function userBlocks(message: ChatMessage): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [];
  for (const image of message.images ?? []) {
    if (image.data) {
      blocks.push({
        type: "image",
        source: { type: "base64", media_type: image.media_type ?? "image/png", data: image.data },
      });
    } else if (image.url) blocks.push({ type: "image", source: { type: "url", url: image.url } });
  }
  if (message.content) blocks.push({ type: "text", text: message.content });
  return blocks;
}

function assistantBlocks(message: ChatMessage): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [];
  // a tool-use turn's thinking goes back first, unchanged (signatures included), as the API requires
  for (const block of message.tool_calls?.[0]?.thinking ?? []) {
    if (block.type === "thinking" || block.type === "redacted_thinking") blocks.push(block);
  }
  if (message.content) blocks.push({ type: "text", text: message.content });
  for (const call of message.tool_calls ?? []) {
    blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.arguments ?? {} });
  }
  return blocks;
}

/**
 * Converts history into alternating user/assistant messages: tool results become user tool_result
 * blocks, consecutive same-role messages merge, and system messages are returned separately.
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): {
  messages: AnthropicMessage[];
  system: { text: string; cache: boolean }[];
} {
  const out: AnthropicMessage[] = [];
  const system: { text: string; cache: boolean }[] = [];
  for (const m of messages) {
    if (m.role === "system") {
      // ChatCLI stores an agent system message with its blocks in system_parts (markers included)
      if (m.system_parts?.length) {
        for (const part of m.system_parts) {
          if (part.text) system.push({ text: part.text, cache: Boolean(part.cache_control) });
        }
      } else if (m.content) system.push({ text: m.content, cache: false });
      continue;
    }
    let role: "user" | "assistant" = "user";
    let blocks: AnthropicBlock[];
    if (m.role === "tool") {
      const result: AnthropicBlock = {
        type: "tool_result",
        tool_use_id: m.tool_call_id ?? "",
        content: m.content,
      };
      if (m.is_error) result.is_error = true;
      blocks = [result];
    } else if (m.role === "assistant") {
      role = "assistant";
      blocks = assistantBlocks(m);
    } else blocks = userBlocks(m);
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    if (last && last.role === role) {
      // tool_result blocks must come first in a user message; a merged text goes after them
      last.content.push(...blocks);
    } else out.push({ role, content: blocks });
  }
  return { messages: out, system };
}

/**
 * Builds the Messages body. Cache breakpoints, at most four: the last tool, the last block of the last
 * message (so the conversation so far is cached for the next turn), then the latest system blocks
 * marked `cache` (request blocks, then system messages of the history, whose `system_parts` markers
 * count as marks).
 */
export function toAnthropicBody(request: LlmRequest): AnthropicBody {
  const converted = toAnthropicMessages(request.messages);
  const tools: AnthropicTool[] = [...(request.tools ?? [])].sort(byName).map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.input_schema,
  }));
  // The API rejects tool_use/tool_result blocks in a request that defines no tools ("must define
  // tools"): a tool-less turn on a conversation that had tool calls (`ask --session` after an agent
  // run, a Go ChatCLI session) carries them as text.
  if (tools.length === 0) for (const m of converted.messages) m.content = m.content.map(asText);
  const thinking = anthropicThinking(
    request.model,
    request.effort,
    request.maxTokens,
    defaultMaxTokens(request.model),
  );
  if (!thinking)
    for (const m of converted.messages) m.content = m.content.filter((b) => !isThinking(b));
  let budget = MAX_BREAKPOINTS;
  const lastTool = tools.at(-1);
  if (lastTool) {
    lastTool.cache_control = { type: "ephemeral" };
    budget--;
  }
  const lastMessage = converted.messages.at(-1);
  const lastBlock = lastMessage?.content.at(-1);
  // thinking blocks take no cache_control (a history ending in one leaves the breakpoint out)
  if (lastBlock && !isThinking(lastBlock)) {
    (lastBlock as { cache_control?: CacheControl }).cache_control = { type: "ephemeral" };
    budget--;
  }
  const blocks = [...request.system.filter((b) => b.text.length > 0), ...converted.system];
  const cached = blocks.filter((b) => b.cache);
  const marked = new Set(budget > 0 ? cached.slice(-budget) : []);
  const system: AnthropicTextBlock[] = blocks.map((b) =>
    marked.has(b)
      ? { type: "text", text: b.text, cache_control: { type: "ephemeral" } }
      : { type: "text", text: b.text },
  );
  const body: AnthropicBody = {
    model: request.model,
    max_tokens: request.maxTokens ?? defaultMaxTokens(request.model),
    messages: converted.messages,
    stream: true,
  };
  if (system.length > 0) body.system = system;
  if (tools.length > 0) body.tools = tools;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (thinking) {
    // thinking takes the default temperature only
    body.thinking = thinking.thinking;
    body.max_tokens = thinking.maxTokens;
    delete body.temperature;
  }
  return body;
}

function isThinking(block: AnthropicBlock): boolean {
  return block.type === "thinking" || block.type === "redacted_thinking";
}

function asText(block: AnthropicBlock): AnthropicBlock {
  if (block.type === "tool_use")
    return { type: "text", text: `[tool call ${block.name} ${JSON.stringify(block.input)}]` };
  if (block.type === "tool_result")
    return {
      type: "text",
      text: `[tool result${block.is_error ? " (error)" : ""}]\n${block.content || "(empty)"}`,
    };
  return block;
}

/** Maps Anthropic's stop_reason to chatcli's stop reason. */
export function mapStopReason(reason: string | null | undefined): StopReason {
  if (reason === "end_turn" || reason === "stop_sequence") return "end";
  if (reason === "tool_use") return "tool_use";
  if (reason === "max_tokens" || reason === "model_context_window_exceeded") return "max_tokens";
  return "other";
}

export interface AnthropicUsageWire {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Anthropic usage → chatcli Usage: input_tokens is the whole prompt (uncached + read + written). */
export function usageFromAnthropic(usage: AnthropicUsageWire): Usage {
  const read = usage.cache_read_input_tokens ?? 0;
  const created = usage.cache_creation_input_tokens ?? 0;
  return {
    input_tokens: (usage.input_tokens ?? 0) + read + created,
    output_tokens: usage.output_tokens ?? 0,
    reasoning_tokens: 0,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: created,
  };
}
