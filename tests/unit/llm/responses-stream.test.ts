import { describe, expect, test } from "bun:test";
import {
  type ResponsesEvent,
  ResponsesStreamReader,
} from "../../../lib/llm/providers/openai-responses-stream.ts";
import type { LlmEvent } from "../../../lib/llm/types.ts";

function readAll(events: ResponsesEvent[]): LlmEvent[] {
  const reader = new ResponsesStreamReader();
  return [...events.flatMap((e) => reader.read(e)), ...reader.finish()];
}

const message = (
  index: number,
  phase: string | null | undefined,
  text: string,
): ResponsesEvent[] => [
  {
    type: "response.output_item.added",
    output_index: index,
    item: { type: "message", id: `msg_${index}`, ...(phase !== undefined ? { phase } : {}) },
  },
  { type: "response.output_text.delta", output_index: index, delta: text },
  {
    type: "response.output_item.done",
    output_index: index,
    item: {
      type: "message",
      id: `msg_${index}`,
      ...(phase !== undefined ? { phase } : {}),
      content: [{ type: "output_text", text }],
    },
  },
];

const completed: ResponsesEvent = {
  type: "response.completed",
  response: { usage: { input_tokens: 10, output_tokens: 4 } },
};

function texts(events: LlmEvent[], type: "text" | "reasoning"): string {
  return events.map((e) => (e.type === type ? e.text : "")).join("");
}

describe("ResponsesStreamReader: phases", () => {
  test("commentary is reasoning, final_answer is text", () => {
    const out = readAll([
      ...message(0, "commentary", "thinking aloud"),
      ...message(1, "final_answer", "the answer"),
      completed,
    ]);
    expect(texts(out, "text")).toBe("the answer");
    expect(texts(out, "reasoning")).toBe("thinking aloud");
    expect(out.at(-1)).toEqual({ type: "done", stop: "end" });
  });

  test("commentary before a call is carried on the call, in order with reasoning items", () => {
    const out = readAll([
      {
        type: "response.output_item.done",
        output_index: 0,
        item: { type: "reasoning", id: "rs_1", encrypted_content: "enc" },
      },
      ...message(1, "commentary", "reading it"),
      {
        type: "response.output_item.added",
        output_index: 2,
        item: { type: "function_call", call_id: "c1", name: "read_file", arguments: "" },
      },
      { type: "response.function_call_arguments.delta", output_index: 2, delta: '{"file":"a"}' },
      completed,
    ]);
    const call = out.find((e) => e.type === "tool_call");
    expect(call?.type === "tool_call" && call.call.thinking).toEqual([
      { type: "reasoning", id: "rs_1", encrypted_content: "enc" },
      { type: "commentary", phase: "commentary", text: "reading it" },
    ]);
    expect(texts(out, "text")).toBe("");
    expect(out.at(-1)).toEqual({ type: "done", stop: "tool_use" });
  });

  test("nothing but commentary (or an unknown phase): it becomes the answer at the end", () => {
    for (const phase of ["commentary", "something_new"]) {
      const out = readAll([...message(0, phase, "all I said"), completed]);
      expect(out.filter((e) => e.type === "text")).toEqual([{ type: "text", text: "all I said" }]);
    }
  });

  test("usage is the response.completed usage; a failed response throws its code", () => {
    const out = readAll([...message(0, null, "x"), completed]);
    expect(out.find((e) => e.type === "usage")).toMatchObject({
      usage: { input_tokens: 10, output_tokens: 4 },
    });
    const reader = new ResponsesStreamReader();
    expect(() =>
      reader.read({
        type: "response.failed",
        response: { error: { code: "insufficient_quota", message: "no quota" } },
      }),
    ).toThrow();
    let thrown: unknown;
    try {
      reader.read({ type: "error", code: null, message: "You exceeded your current quota, …" });
    } catch (error) {
      thrown = error;
    }
    expect((thrown as { error: { code: string } }).error.code).toBe("insufficient_quota");
  });
});
