import { describe, expect, test } from "bun:test";
import {
  defaultMaxTokens,
  mapStopReason,
  toAnthropicBody,
  toAnthropicMessages,
  usageFromAnthropic,
} from "../../../lib/llm/providers/anthropic-format.ts";
import type { SystemBlock } from "../../../lib/llm/types.ts";

const ephemeral = { type: "ephemeral" } as const;

function blocks(...spec: [string, boolean][]): SystemBlock[] {
  return spec.map(([id, cache]) => ({ id, text: id, cache }));
}

function countBreakpoints(value: unknown): number {
  return JSON.stringify(value).match(/cache_control/g)?.length ?? 0;
}

describe("anthropic-format: cache breakpoints", () => {
  test("marked system blocks, the last tool and the last message block carry cache_control", () => {
    const body = toAnthropicBody({
      model: "claude-sonnet-4-6",
      system: blocks(["core", true], ["memory", false]),
      tools: [
        { name: "zeta", description: "", input_schema: {} },
        { name: "alpha", description: "", input_schema: {} },
      ],
      messages: [{ role: "user", content: "hi" }],
    });
    expect(body.system).toEqual([
      { type: "text", text: "core", cache_control: ephemeral },
      { type: "text", text: "memory" },
    ]);
    expect(body.tools?.map((t) => [t.name, t.cache_control])).toEqual([
      ["alpha", undefined],
      ["zeta", ephemeral],
    ]);
    expect(body.messages[0]?.content[0]).toEqual({
      type: "text",
      text: "hi",
      cache_control: ephemeral,
    });
  });

  test("at most 4 in total, keeping the latest marked system blocks", () => {
    const system = blocks(["a", true], ["b", true], ["c", true], ["d", false], ["e", true]);
    const withTools = toAnthropicBody({
      model: "m",
      system,
      tools: [{ name: "t", description: "", input_schema: {} }],
      messages: [{ role: "user", content: "x" }],
    });
    expect(countBreakpoints(withTools)).toBe(4);
    expect(withTools.system?.filter((b) => b.cache_control).map((b) => b.text)).toEqual(["c", "e"]);
    const noTools = toAnthropicBody({
      model: "m",
      system,
      messages: [{ role: "user", content: "x" }],
    });
    expect(countBreakpoints(noTools)).toBe(4);
    expect(noTools.system?.filter((b) => b.cache_control).map((b) => b.text)).toEqual([
      "b",
      "c",
      "e",
    ]);
  });

  test("empty system blocks are dropped (the API rejects empty text)", () => {
    const body = toAnthropicBody({
      model: "m",
      system: [{ id: "x", text: "", cache: true }],
      messages: [{ role: "user", content: "x" }],
    });
    expect(body.system).toBeUndefined();
  });
});

describe("anthropic-format: messages", () => {
  test("consecutive same-role messages merge; empty ones vanish", () => {
    const { messages } = toAnthropicMessages([
      { role: "user", content: "a" },
      { role: "user", content: "b" },
      { role: "assistant", content: "" },
      { role: "assistant", content: "c" },
    ]);
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "c" }] },
    ]);
  });

  test("images become base64 or url image blocks before the text", () => {
    const { messages } = toAnthropicMessages([
      {
        role: "user",
        content: "see",
        images: [{ media_type: "image/png", data: "QQ==" }, { url: "https://x/y.png" }],
      },
    ]);
    expect(messages[0]?.content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "QQ==" } },
      { type: "image", source: { type: "url", url: "https://x/y.png" } },
      { type: "text", text: "see" },
    ]);
  });

  test("system messages inside the history are returned separately", () => {
    const out = toAnthropicMessages([
      { role: "system", content: "S" },
      { role: "user", content: "u" },
    ]);
    expect(out.system).toEqual([{ text: "S", cache: false }]);
    expect(out.messages).toHaveLength(1);
  });

  test("a history system message's system_parts become system blocks with their markers", () => {
    const body = toAnthropicBody({
      model: "m",
      system: [{ id: "core", text: "CORE", cache: false }],
      messages: [
        {
          role: "system",
          content: "P1\n\nP2",
          system_parts: [
            { type: "text", text: "P1", cache_control: { type: "ephemeral" } },
            { type: "text", text: "P2" },
          ],
        },
        { role: "user", content: "hi" },
      ],
    });
    expect(body.system).toEqual([
      { type: "text", text: "CORE" },
      { type: "text", text: "P1", cache_control: ephemeral },
      { type: "text", text: "P2" },
    ]);
  });
});

describe("anthropic-format: usage, stop, defaults", () => {
  test("input_tokens is the sum of the three input counters", () => {
    expect(
      usageFromAnthropic({
        input_tokens: 10,
        cache_read_input_tokens: 900,
        cache_creation_input_tokens: 90,
        output_tokens: 5,
      }),
    ).toEqual({
      input_tokens: 1000,
      output_tokens: 5,
      reasoning_tokens: 0,
      cache_read_input_tokens: 900,
      cache_creation_input_tokens: 90,
    });
    expect(
      usageFromAnthropic({ input_tokens: 3, cache_read_input_tokens: null }).input_tokens,
    ).toBe(3);
  });

  test("stop reasons", () => {
    expect(mapStopReason("end_turn")).toBe("end");
    expect(mapStopReason("stop_sequence")).toBe("end");
    expect(mapStopReason("tool_use")).toBe("tool_use");
    expect(mapStopReason("max_tokens")).toBe("max_tokens");
    expect(mapStopReason("refusal")).toBe("other");
  });

  test("default max_tokens by model; request.maxTokens wins", () => {
    expect(defaultMaxTokens("claude-sonnet-4-6")).toBe(8192);
    expect(defaultMaxTokens("claude-3-haiku-20240307")).toBe(4096);
    expect(
      toAnthropicBody({
        model: "m",
        system: [],
        messages: [{ role: "user", content: "x" }],
        maxTokens: 77,
      }).max_tokens,
    ).toBe(77);
  });
});
