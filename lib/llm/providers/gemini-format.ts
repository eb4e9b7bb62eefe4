/** Pure conversion between chatcli's request/events and the Gemini API (generateContent) wire format. */
import type { ChatMessage, Effort, LlmRequest, StopReason, ToolCall, Usage } from "../types.ts";
import { joinSystem } from "./openai-format.ts";

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
}

export interface GeminiContent {
  role: "user" | "model";
  parts: GeminiPart[];
}

export interface GeminiConfig {
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: Array<{
    functionDeclarations: Array<{
      name: string;
      description: string;
      parametersJsonSchema: Record<string, unknown>;
    }>;
  }>;
  maxOutputTokens?: number;
  temperature?: number;
  thinkingConfig?: { thinkingBudget?: number; thinkingLevel?: string; includeThoughts?: boolean };
}

export interface GeminiRequest {
  model: string;
  contents: GeminiContent[];
  config: GeminiConfig;
}

/** Ids chatcli made up for calls the API sent without one: never sent back as ids. */
export const SYNTHETIC_ID = /^gemini_call_/;

function userParts(message: ChatMessage): GeminiPart[] {
  const parts: GeminiPart[] = [];
  if (message.content) parts.push({ text: message.content });
  for (const image of message.images ?? []) {
    if (image.data) {
      parts.push({ inlineData: { mimeType: image.media_type ?? "image/png", data: image.data } });
    } else if (image.url) {
      parts.push({ fileData: { fileUri: image.url, mimeType: image.media_type ?? "image/png" } });
    }
  }
  return parts;
}

function callPart(call: ToolCall): GeminiPart {
  const part: GeminiPart = {
    functionCall: {
      ...(SYNTHETIC_ID.test(call.id) || !call.id ? {} : { id: call.id }),
      name: call.name,
      args: call.arguments ?? {},
    },
  };
  if (call.thought_signature) part.thoughtSignature = call.thought_signature;
  return part;
}

/**
 * History → Gemini contents: assistant is `model`, tool results are `user` functionResponse parts
 * (named after their call), consecutive same-role turns merge, system messages are returned apart.
 */
export function toGeminiContents(messages: readonly ChatMessage[]): {
  contents: GeminiContent[];
  system: string[];
} {
  const contents: GeminiContent[] = [];
  const system: string[] = [];
  const names = new Map<string, string>();
  for (const m of messages) {
    let role: "user" | "model" = "user";
    let parts: GeminiPart[];
    if (m.role === "system") {
      const text = m.system_parts?.length
        ? m.system_parts.map((p) => p.text).join("\n\n")
        : m.content;
      if (text) system.push(text);
      continue;
    }
    if (m.role === "assistant") {
      role = "model";
      parts = m.content ? [{ text: m.content }] : [];
      for (const call of m.tool_calls ?? []) {
        names.set(call.id, call.name);
        parts.push(callPart(call));
      }
    } else if (m.role === "tool") {
      const id = m.tool_call_id ?? "";
      const name = names.get(id);
      // a result whose call is not in the history (trimmed away) goes as text
      parts = name
        ? [
            {
              functionResponse: {
                ...(SYNTHETIC_ID.test(id) || !id ? {} : { id }),
                name,
                response: m.is_error ? { error: m.content } : { output: m.content },
              },
            },
          ]
        : [{ text: `[tool result]\n${m.content}` }];
    } else parts = userParts(m);
    if (parts.length === 0) continue;
    const last = contents.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  }
  return { contents, system };
}

/**
 * Effort → thinkingConfig: Gemini 3 takes a level, 2.5 a token budget (Flash caps at 24576,
 * Pro at 32768); unset keeps the model's default (dynamic thinking).
 */
export function thinkingConfigFor(
  model: string,
  effort: Effort | undefined,
  includeThoughts: boolean,
): GeminiConfig["thinkingConfig"] {
  if (!effort) return includeThoughts ? { includeThoughts: true } : undefined;
  const id = model.toLowerCase();
  const extra = includeThoughts ? { includeThoughts: true } : {};
  if (/gemini-[3-9]/.test(id)) {
    const flash = id.includes("flash");
    const level =
      effort === "low" ? "LOW" : effort === "medium" ? (flash ? "MEDIUM" : "HIGH") : "HIGH";
    return { thinkingLevel: level, ...extra };
  }
  const cap = id.includes("pro") ? 32_768 : 24_576;
  const budget = { low: 1024, medium: 8192, high: 24_576, max: cap }[effort];
  return { thinkingBudget: Math.min(budget, cap), ...extra };
}

/** The request for `models.generateContentStream`: system first and tools sorted, so the prefix stays stable. */
export function toGeminiRequest(request: LlmRequest): GeminiRequest {
  const { contents, system } = toGeminiContents(request.messages);
  const config: GeminiConfig = {};
  const systemText = [joinSystem(request.system), ...system].filter(Boolean).join("\n\n");
  if (systemText) config.systemInstruction = { parts: [{ text: systemText }] };
  if (request.tools?.length) {
    const declarations = [...request.tools]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((t) => ({
        name: t.name,
        description: t.description,
        parametersJsonSchema: t.input_schema,
      }));
    config.tools = [{ functionDeclarations: declarations }];
  }
  if (request.maxTokens !== undefined) config.maxOutputTokens = request.maxTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  const thinking = thinkingConfigFor(request.model, request.effort, Boolean(request.showReasoning));
  if (thinking) config.thinkingConfig = thinking;
  return { model: request.model, contents, config };
}

/** Maps Gemini's finishReason to chatcli's stop reason. */
export function mapFinishReason(reason: string | null | undefined, hasCalls: boolean): StopReason {
  if (reason === "STOP" || reason === "FINISH_REASON_UNSPECIFIED")
    return hasCalls ? "tool_use" : "end";
  if (reason === "MAX_TOKENS") return "max_tokens";
  return "other";
}

export interface GeminiUsageWire {
  promptTokenCount?: number | null;
  candidatesTokenCount?: number | null;
  thoughtsTokenCount?: number | null;
  cachedContentTokenCount?: number | null;
  toolUsePromptTokenCount?: number | null;
}

/**
 * Gemini usage → chatcli Usage: the prompt count includes the cached part (reads, from implicit or
 * explicit caching); thoughts are billed as output, so output = candidates + thoughts.
 */
export function usageFromGemini(usage: GeminiUsageWire): Usage {
  const thoughts = usage.thoughtsTokenCount ?? 0;
  return {
    input_tokens: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0),
    output_tokens: (usage.candidatesTokenCount ?? 0) + thoughts,
    reasoning_tokens: thoughts,
    cache_read_input_tokens: usage.cachedContentTokenCount ?? 0,
    cache_creation_input_tokens: 0,
  };
}
