import { describe, expect, test } from "bun:test";
import { jsonErrorOffset, lineColumn } from "../../../lib/history/json-position.ts";
import {
  budgetFor,
  estimateTokens,
  formatSize,
  messageWeight,
  needsCompaction,
  parsePayloadSize,
} from "../../../lib/history/tokens.ts";
import { contextWindow } from "../../../lib/llm/context-window.ts";
import { call, chatter, user } from "./build.ts";

describe("token estimates and windows", () => {
  test("weight counts content, tool-call names and arguments, and only excess system parts", () => {
    expect(messageWeight(user("abcd"))).toBe(4);
    expect(messageWeight(call("1", "read_file", { file: "a" }))).toBe(9 + '{"file":"a"}'.length);
    const sys = {
      role: "system" as const,
      content: "abc",
      system_parts: [{ type: "text" as const, text: "abcdef" }],
    };
    expect(messageWeight(sys)).toBe(6);
    expect(estimateTokens([user("a".repeat(400))])).toBe(104);
  });

  test("context window: env override, catalogue, provider default, unknown", () => {
    expect(
      contextWindow({ provider: "openai", model: "gpt-4o" }, { CHATCLI_CONTEXT_WINDOW: "1234" }),
    ).toBe(1234);
    expect(contextWindow({ provider: "anthropic", model: "claude-sonnet-4-5" })).toBe(200_000);
    expect(contextWindow({ provider: "openrouter", model: "openai/gpt-4o-mini" })).toBe(128_000);
    expect(contextWindow({ provider: "ollama", model: "mystery" })).toBe(8_192);
    expect(contextWindow({ provider: "mock", model: "echo" })).toBe(50_000);
  });

  test("threshold and payload cap", () => {
    const model = { provider: "openai", model: "x" };
    const env = { CHATCLI_CONTEXT_WINDOW: "1000" };
    expect(needsCompaction(chatter(10, 100), model, env)).toBe(false);
    expect(needsCompaction(chatter(40, 100), model, env)).toBe(true);
    expect(
      needsCompaction(chatter(40, 100), model, { ...env, CHATCLI_COMPACT_THRESHOLD: "1" }),
    ).toBe(true);
    expect(budgetFor(model, { ...env, CHATCLI_MAX_PAYLOAD: "1KB" }, 0.9)).toBe(179);
    expect(parsePayloadSize("5")).toBe(5 * 1024 * 1024);
    expect(parsePayloadSize(" 1.5 mb ")).toBe(1.5 * 1024 * 1024);
    expect(parsePayloadSize("-1")).toBeUndefined();
    expect(parsePayloadSize("12 parsecs")).toBeUndefined();
    expect(formatSize(1536)).toBe("1.5 KB");
  });
});

describe("JSON error position", () => {
  test.each([
    ['{"a":1}', -1],
    ["[1, 2,]", 6],
    ['{"a" 1}', 5],
    ['"abc', 4],
    ["[1] x", 4],
    ["", 0],
    ['{"a":tru}', 8],
    ['["\\x"]', 2],
  ])("%p → %p", (text, offset) => {
    expect(jsonErrorOffset(text)).toBe(offset);
  });

  test("line and column", () => {
    expect(lineColumn("ab\ncd\nef", 7)).toEqual({ line: 3, column: 2 });
  });
});
