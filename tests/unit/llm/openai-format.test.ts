import { describe, expect, test } from "bun:test";
import {
  joinSystem,
  mapFinishReason,
  parseToolArguments,
  ToolCallAccumulator,
  toOpenAIBody,
  toOpenAIMessages,
  usageFromOpenAI,
} from "../../../lib/llm/providers/openai-format.ts";

describe("openai-format", () => {
  test("system blocks join in order; empty blocks are skipped", () => {
    const blocks = [
      { id: "a", text: "one", cache: true },
      { id: "b", text: "", cache: false },
      { id: "c", text: "three", cache: false },
    ];
    expect(joinSystem(blocks)).toBe("one\n\nthree");
  });

  test("the stable prefix is byte-identical across turns", () => {
    const system = [{ id: "core", text: "CORE", cache: true }];
    const tools = [
      { name: "b", description: "B", input_schema: {} },
      { name: "a", description: "A", input_schema: {} },
    ];
    const turn1 = toOpenAIBody({
      model: "m",
      system,
      tools,
      messages: [{ role: "user", content: "1" }],
    });
    const turn2 = toOpenAIBody({
      model: "m",
      system,
      tools: [...tools].reverse(),
      messages: [
        { role: "user", content: "1" },
        { role: "assistant", content: "ok" },
        { role: "user", content: "2" },
      ],
    });
    expect(JSON.stringify(turn2.tools)).toBe(JSON.stringify(turn1.tools));
    expect(
      JSON.stringify(turn2.messages).startsWith(JSON.stringify(turn1.messages).slice(0, -1)),
    ).toBe(true);
  });

  test("no system message when there are no system blocks; no tools key without tools", () => {
    const body = toOpenAIBody({
      model: "m",
      system: [],
      messages: [{ role: "user", content: "hi" }],
    });
    expect(body.messages).toEqual([{ role: "user", content: "hi" }]);
    expect("tools" in body).toBe(false);
    expect("max_completion_tokens" in body).toBe(false);
  });

  test("images become content parts; in-history system messages stay in place", () => {
    const out = toOpenAIMessages([
      { role: "system", content: "summary" },
      {
        role: "user",
        content: "what is this",
        images: [{ media_type: "image/jpeg", data: "AAAA" }],
      },
      { role: "assistant", content: "a cat" },
    ]);
    expect(out).toEqual([
      { role: "system", content: "summary" },
      {
        role: "user",
        content: [
          { type: "text", text: "what is this" },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } },
        ],
      },
      { role: "assistant", content: "a cat" },
    ]);
  });

  test("finish reasons map to stop reasons", () => {
    expect(mapFinishReason("stop")).toBe("end");
    expect(mapFinishReason("tool_calls")).toBe("tool_use");
    expect(mapFinishReason("length")).toBe("max_tokens");
    expect(mapFinishReason("content_filter")).toBe("other");
  });

  test("usage maps cached and reasoning tokens; missing details are 0", () => {
    expect(
      usageFromOpenAI({
        prompt_tokens: 2000,
        completion_tokens: 50,
        prompt_tokens_details: { cached_tokens: 1920 },
        completion_tokens_details: { reasoning_tokens: 20 },
      }),
    ).toEqual({
      input_tokens: 2000,
      output_tokens: 50,
      reasoning_tokens: 20,
      cache_read_input_tokens: 1920,
      cache_creation_input_tokens: 0,
    });
    expect(
      usageFromOpenAI({ prompt_tokens: 3, completion_tokens: 4 }).cache_read_input_tokens,
    ).toBe(0);
  });

  test("tool arguments: objects parse, anything else keeps raw", () => {
    expect(parseToolArguments('{"a":1}')).toEqual({ arguments: { a: 1 } });
    expect(parseToolArguments("")).toEqual({ arguments: {} });
    expect(parseToolArguments("[1]")).toEqual({ arguments: {}, raw: "[1]" });
    expect(parseToolArguments("{oops")).toEqual({ arguments: {}, raw: "{oops" });
  });

  test("the accumulator assembles interleaved deltas by index", () => {
    const acc = new ToolCallAccumulator();
    acc.add({ index: 1, id: "c2", function: { name: "grep", arguments: "" } });
    acc.add({ index: 0, id: "c1", function: { name: "read_file", arguments: '{"pa' } });
    acc.add({ index: 1, function: { arguments: '{"q":"x"}' } });
    acc.add({ index: 0, function: { arguments: 'th":"a"}' } });
    expect(acc.finish()).toEqual([
      { id: "c1", type: "function", name: "read_file", arguments: { path: "a" } },
      { id: "c2", type: "function", name: "grep", arguments: { q: "x" } },
    ]);
  });

  test("deltas without an index (some compatible servers) still make separate calls", () => {
    const acc = new ToolCallAccumulator();
    acc.add({ id: "a", function: { name: "one", arguments: '{"x":' } });
    acc.add({ function: { arguments: "1}" } });
    acc.add({ id: "b", function: { name: "two", arguments: "{}" } });
    expect(acc.finish()).toEqual([
      { id: "a", type: "function", name: "one", arguments: { x: 1 } },
      { id: "b", type: "function", name: "two", arguments: {} },
    ]);
  });
});
