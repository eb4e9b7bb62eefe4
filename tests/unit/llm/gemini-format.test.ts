import { expect, test } from "bun:test";
import {
  mapFinishReason,
  thinkingConfigFor,
  toGeminiRequest,
  usageFromGemini,
} from "../../../lib/llm/providers/gemini-format.ts";

test("history → contents: model role, calls with their signature, results named after their call, merged turns", () => {
  const body = toGeminiRequest({
    model: "gemini-2.5-flash",
    system: [{ id: "core", text: "You are terse.", cache: true }],
    messages: [
      { role: "system", content: "Go system prompt" },
      { role: "user", content: "read two files" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          {
            id: "gemini_call_1",
            name: "read_file",
            arguments: { file: "a" },
            thought_signature: "SIG",
          },
          { id: "srv-2", name: "read_file", arguments: { file: "b" } },
        ],
      },
      { role: "tool", tool_call_id: "gemini_call_1", content: "A" },
      { role: "tool", tool_call_id: "srv-2", content: "boom", is_error: true },
      { role: "tool", tool_call_id: "gone", content: "orphan" },
    ],
    tools: [
      { name: "zz", description: "z", input_schema: { type: "object" } },
      { name: "aa", description: "a", input_schema: { type: "object" } },
    ],
    maxTokens: 100,
  });
  expect(body.config.systemInstruction).toEqual({
    parts: [{ text: "You are terse.\n\nGo system prompt" }],
  });
  expect(body.config.tools?.[0]?.functionDeclarations.map((d) => d.name)).toEqual(["aa", "zz"]);
  expect(body.config.maxOutputTokens).toBe(100);
  expect(body.config.thinkingConfig).toBeUndefined();
  expect(body.contents).toEqual([
    { role: "user", parts: [{ text: "read two files" }] },
    {
      role: "model",
      parts: [
        { functionCall: { name: "read_file", args: { file: "a" } }, thoughtSignature: "SIG" },
        { functionCall: { id: "srv-2", name: "read_file", args: { file: "b" } } },
      ],
    },
    {
      role: "user",
      parts: [
        { functionResponse: { name: "read_file", response: { output: "A" } } },
        { functionResponse: { id: "srv-2", name: "read_file", response: { error: "boom" } } },
        { text: "[tool result]\norphan" },
      ],
    },
  ]);
});

test("effort → thinkingConfig: budgets on 2.5, levels on 3, nothing by default", () => {
  expect(thinkingConfigFor("gemini-2.5-flash", undefined, false)).toBeUndefined();
  expect(thinkingConfigFor("gemini-2.5-flash", "low", false)).toEqual({ thinkingBudget: 1024 });
  expect(thinkingConfigFor("gemini-2.5-flash", "max", false)).toEqual({ thinkingBudget: 24_576 });
  expect(thinkingConfigFor("gemini-2.5-pro", "max", true)).toEqual({
    thinkingBudget: 32_768,
    includeThoughts: true,
  });
  expect(thinkingConfigFor("gemini-3-pro-preview", "medium", false)).toEqual({
    thinkingLevel: "HIGH",
  });
  expect(thinkingConfigFor("gemini-3-flash", "medium", false)).toEqual({ thinkingLevel: "MEDIUM" });
  expect(thinkingConfigFor("gemini-3-flash", "low", false)).toEqual({ thinkingLevel: "LOW" });
});

test("usage: cached content as cache reads, thoughts billed as output and counted as reasoning", () => {
  expect(
    usageFromGemini({
      promptTokenCount: 1000,
      candidatesTokenCount: 50,
      thoughtsTokenCount: 200,
      cachedContentTokenCount: 600,
    }),
  ).toEqual({
    input_tokens: 1000,
    output_tokens: 250,
    reasoning_tokens: 200,
    cache_read_input_tokens: 600,
    cache_creation_input_tokens: 0,
  });
  expect(mapFinishReason("STOP", true)).toBe("tool_use");
  expect(mapFinishReason("STOP", false)).toBe("end");
  expect(mapFinishReason("MAX_TOKENS", false)).toBe("max_tokens");
  expect(mapFinishReason("SAFETY", false)).toBe("other");
});
