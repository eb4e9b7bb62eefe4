import { expect, test } from "bun:test";
import { asId, asText } from "../../../lib/core/as-text.ts";
import { contextCounts, summariseBody } from "../../../lib/llm/errors.ts";
import { ToolCallAccumulator } from "../../../lib/llm/providers/openai-format.ts";
import { OpenAIStreamReader, splitContent } from "../../../lib/llm/providers/openai-stream.ts";

test("asText never gives [object Object]", () => {
  expect(asText({ a: 1 })).toBe('{"a":1}');
  expect(asText([1, "x"])).toBe('[1,"x"]');
  expect(asText(undefined)).toBe("");
  expect(asText(3)).toBe("3");
  expect(asText(new Error("boom"))).toBe("boom");
  expect(asId({ id: 1 })).toBe("");
  expect(asId(7)).toBe("7");
});

test("content parts: text is the answer, thinking is reasoning, unknown shapes are neither", () => {
  expect(
    splitContent([
      { type: "thinking", thinking: [{ type: "text", text: "hmm" }] },
      { type: "text", text: "4" },
    ]),
  ).toEqual({ text: "4", reasoning: "hmm" });
  expect(splitContent("plain")).toEqual({ text: "plain", reasoning: "" });
  expect(splitContent(null)).toEqual({ text: "", reasoning: "" });
  expect(splitContent(42)).toEqual({ text: "", reasoning: "" });
  expect(splitContent({ type: "image_url", image_url: { url: "x" } })).toEqual({
    text: "",
    reasoning: "",
  });
});

test("a repeated whole name is assigned, not appended; arguments are appended", () => {
  const acc = new ToolCallAccumulator();
  acc.add({ index: 0, id: "call_1", function: { name: "llm_version", arguments: "" } });
  acc.add({ index: 0, function: { name: "llm_version", arguments: '{"a"' } });
  acc.add({ index: 0, function: { arguments: ":1}" } });
  expect(acc.finish()).toEqual([
    { id: "call_1", type: "function", name: "llm_version", arguments: { a: 1 } },
  ]);
});

test("the reader: refusal deltas, Groq usage, error objects, finish tracking", () => {
  const r = new OpenAIStreamReader();
  expect(r.read({ choices: [{ index: 0, delta: { refusal: "no." } }] })).toEqual({ text: "" });
  expect(r.finished).toBe(false);
  r.read({
    choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
    x_groq: { usage: { prompt_tokens: 3, completion_tokens: 1 } },
  });
  expect(r.finished).toBe(true);
  expect(r.refusalText).toBe("no.");
  expect(r.finalUsage?.input_tokens).toBe(3);
  expect(r.read({ object: "error", message: "nope", code: 404 })).toEqual({
    error: { message: "nope", status: 404, type: undefined },
  });
});

test("context counts in each provider's wording", () => {
  expect(contextCounts("prompt is too long: 208000 tokens > 200000 maximum")).toEqual({
    prompt: 208000,
    limit: 200000,
  });
  expect(
    contextCounts(
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens.",
    ),
  ).toEqual({ prompt: 130532, limit: 128000 });
  expect(
    contextCounts(
      "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
    ),
  ).toEqual({ prompt: 1200000, limit: 1048576 });
  expect(contextCounts("Please reduce the length of the messages or completion.")).toBeUndefined();
});

test("HTML bodies are summarised by their title", () => {
  expect(
    summariseBody("<html><head><title>502 Bad Gateway</title></head><body>x</body></html>"),
  ).toBe('an HTML page ("502 Bad Gateway")');
  expect(summariseBody("<!DOCTYPE html><html><body><h1>Oops</h1></body></html>")).toBe(
    'an HTML page ("Oops")',
  );
  expect(summariseBody("x".repeat(400)).length).toBeLessThan(310);
});

test("calls without an index (Gemini's OpenAI endpoint): each whole call is its own", () => {
  const acc = new ToolCallAccumulator();
  acc.add({ id: "", function: { name: "read_file", arguments: '{"file":"a"}' } });
  acc.add({ id: "", function: { name: "read_file", arguments: '{"file":"b"}' } });
  expect(acc.finish().map((c) => [c.id, c.name, c.arguments])).toEqual([
    ["call_0", "read_file", { file: "a" }],
    ["call_1", "read_file", { file: "b" }],
  ]);
  // without an index, a name repeated while the arguments are still incomplete continues the call
  const split = new ToolCallAccumulator();
  split.add({ function: { name: "read_file", arguments: '{"fi' } });
  split.add({ function: { name: "read_file", arguments: 'le":"c"}' } });
  expect(split.finish().map((c) => c.arguments)).toEqual([{ file: "c" }]);
});
