import { expect, test } from "bun:test";
import { capBatch, capText } from "../../../lib/agent/output-cap.ts";
import { corePrompt } from "../../../lib/agent/prompts.ts";
import { validateArgs } from "../../../lib/agent/schema.ts";
import { toolsFor } from "../../../lib/agent/tools/registry.ts";
import { microcompact } from "../../../lib/history/microcompact.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";

test("lean first request: system core + every tool definition < 1400 tokens (chars/4)", () => {
  for (const mode of ["agent", "coder"] as const) {
    const tools = toolsFor(mode).map(({ name, description, input_schema }) => ({
      name,
      description,
      input_schema,
    }));
    const chars = corePrompt(mode, { textTools: false }).text.length + JSON.stringify(tools).length;
    // every tool offered, the date/cwd block and the request framing still fit 1.5k tokens
    // (1400 before multipatch joined the set)
    expect(chars / 4).toBeLessThan(1500);
  }
  expect(toolsFor("agent")).toHaveLength(13);
  expect(corePrompt("coder")).toMatchObject({ id: "core", cache: true });
});

test("capText keeps head and tail with a marker; capBatch shares the turn budget", () => {
  const text = "a".repeat(5000) + "b".repeat(5000);
  const capped = capText(text, 1000);
  expect(capped.truncated).toBe(true);
  expect(capped.text.length).toBeLessThanOrEqual(1000);
  expect(capped.text).toStartWith("aaa");
  expect(capped.text).toEndWith("bbb");
  expect(capped.text).toContain("[... 9080 chars omitted (output capped at 1000 chars) ...]");
  const batch = capBatch([text, text, "short"], 8000, 9000);
  expect(batch[2]).toBe("short");
  expect(batch.reduce((n, s) => n + s.length, 0)).toBeLessThanOrEqual(9000);
});

test("schema validation coerces gently and explains problems to the model", () => {
  const schema = {
    type: "object",
    properties: {
      file: { type: "string" },
      start: { type: "integer", minimum: 1 },
      flag: { type: "boolean" },
    },
    required: ["file"],
  };
  expect(validateArgs(schema, { file: "a", start: "3", flag: "true", extra: 1 })).toEqual({
    ok: true,
    args: { file: "a", start: 3, flag: true, extra: 1 },
  });
  const bad = validateArgs(schema, { start: 0 });
  expect(bad.ok).toBe(false);
  expect(!bad.ok && bad.error).toBe(
    'invalid arguments: "file" is required; "start" must be ≥ 1. Rewrite the call so it satisfies the schema (parameters: file, start, flag).',
  );
  expect(validateArgs(schema, [1])).toEqual({
    ok: false,
    error: "arguments must be a JSON object",
  });
});

test("microcompact truncates then summarises old tool results", () => {
  const big = `${"line\n".repeat(1000)}end`;
  const messages: ChatMessage[] = [{ role: "user", content: "task" }];
  for (let i = 0; i < 6; i++) {
    messages.push({
      role: "assistant",
      content: "",
      tool_calls: [{ id: `c${i}`, name: "read_file", arguments: {} }],
    });
    messages.push({ role: "tool", tool_call_id: `c${i}`, content: big });
  }
  // the seed's eager rewrite (head + tail after 2 turns, a summary line after 4)
  const eager = {
    CHATCLI_MICROCOMPACT_CLEAR_AT_LEAST: "0",
    CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS: "4",
  };
  expect(microcompact(messages, 1, eager)).toMatchObject({
    truncated: 0,
    summarized: 0,
    freedChars: 0,
  });
  const stats = microcompact(messages, 6, eager);
  expect(stats.summarized).toBe(2);
  expect(stats.truncated).toBe(2);
  expect(stats.messages[2]?.content).toBe(
    "[Old tool result cleared — 1001 lines, 5003 chars, text]",
  );
  expect(stats.messages[6]?.content).toContain("chars omitted from old tool result");
  expect(stats.messages[12]?.content).toBe(big);
  expect(messages[2]?.content).toBe(big); // the input is not mutated
});
