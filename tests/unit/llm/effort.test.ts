import { expect, test } from "bun:test";
import { ConfigError } from "../../../lib/core/errors.ts";
import { anthropicThinking, chatReasoningEffort, resolveEffort } from "../../../lib/llm/effort.ts";
import { toAnthropicBody } from "../../../lib/llm/providers/anthropic-format.ts";
import {
  openaiEffort,
  toResponsesBody,
} from "../../../lib/llm/providers/openai-responses-format.ts";

test("the flag wins over CHATCLI_EFFORT; unset, default and auto keep the model's own", () => {
  expect(resolveEffort("high", { CHATCLI_EFFORT: "low" })).toBe("high");
  expect(resolveEffort(undefined, { CHATCLI_EFFORT: " MAX " })).toBe("max");
  expect(resolveEffort(undefined, {})).toBeUndefined();
  expect(resolveEffort(undefined, { CHATCLI_EFFORT: "default" })).toBeUndefined();
  expect(() => resolveEffort(undefined, { CHATCLI_EFFORT: "extreme" })).toThrow(ConfigError);
});

test("Anthropic budgets: room for the answer by default; an explicit cap bounds both; none below the minimum", () => {
  expect(anthropicThinking("claude-sonnet-4-6", "medium", undefined, 8192)).toEqual({
    thinking: { type: "enabled", budget_tokens: 8192 },
    maxTokens: 16_384,
  });
  expect(anthropicThinking("claude-sonnet-4-6", "max", 10_000, 8192)).toEqual({
    thinking: { type: "enabled", budget_tokens: 8976 },
    maxTokens: 10_000,
  });
  expect(anthropicThinking("claude-sonnet-4-6", "low", 1500, 8192)).toBeUndefined();
  expect(anthropicThinking("claude-3-5-haiku", "high", undefined, 4096)).toBeUndefined();
  expect(anthropicThinking("claude-3-7-sonnet", "high", undefined, 8192)).toBeDefined();
  expect(anthropicThinking("claude-sonnet-4-6", undefined, undefined, 8192)).toBeUndefined();
});

test("thinking blocks ride on the first call and go back first; without thinking they are dropped", () => {
  const messages = [
    { role: "user" as const, content: "go" },
    {
      role: "assistant" as const,
      content: "",
      tool_calls: [
        {
          id: "t1",
          name: "read_file",
          arguments: {},
          thinking: [
            { type: "thinking" as const, thinking: "hm", signature: "S1" },
            { type: "redacted_thinking" as const, data: "R" },
          ],
        },
      ],
    },
    { role: "tool" as const, tool_call_id: "t1", content: "x" },
  ];
  const tools = [{ name: "read_file", description: "", input_schema: { type: "object" } }];
  const on = toAnthropicBody({
    model: "claude-sonnet-4-6",
    system: [],
    messages,
    tools,
    effort: "low",
    temperature: 0.2,
  });
  expect(on.messages[1]?.content.slice(0, 2)).toEqual([
    { type: "thinking", thinking: "hm", signature: "S1" },
    { type: "redacted_thinking", data: "R" },
  ]);
  expect(on.temperature).toBeUndefined();
  const off = toAnthropicBody({ model: "claude-sonnet-4-6", system: [], messages, tools });
  expect(off.thinking).toBeUndefined();
  expect(off.messages[1]?.content.map((b) => b.type)).toEqual(["tool_use"]);
});

test("reasoning_effort only where the host and model take it", () => {
  expect(chatReasoningEffort("openai", "gpt-5.4", "max")).toBe("xhigh");
  expect(chatReasoningEffort("openai", "gpt-5", "max")).toBe("high");
  expect(chatReasoningEffort("openai", "gpt-4o", "high")).toBeUndefined();
  expect(chatReasoningEffort("github_models", "openai/o4-mini", "low")).toBe("low");
  expect(chatReasoningEffort("xai", "grok-4-1", "high")).toBeUndefined();
  expect(chatReasoningEffort("xai", "grok-3-mini", "medium")).toBe("high");
  expect(chatReasoningEffort("ollama", "gpt-oss:20b", "max")).toBe("high");
  expect(chatReasoningEffort("zai", "glm-5", "high")).toBeUndefined();
  expect(chatReasoningEffort("openai", "gpt-5.4", undefined)).toBeUndefined();
});

test("Responses: reasoning only for reasoning models, summaries with --show-reasoning", () => {
  expect(openaiEffort("gpt-5.2", "max")).toBe("xhigh");
  expect(openaiEffort("o3", "max")).toBe("high");
  const base = { system: [], messages: [{ role: "user" as const, content: "q" }] };
  expect(toResponsesBody({ ...base, model: "gpt-4.1", effort: "high" }).reasoning).toBeUndefined();
  expect(toResponsesBody({ ...base, model: "gpt-5.4" }).reasoning).toBeUndefined();
  expect(
    toResponsesBody({ ...base, model: "o4-mini", effort: "low", showReasoning: true }).reasoning,
  ).toEqual({
    effort: "low",
    summary: "auto",
  });
});
