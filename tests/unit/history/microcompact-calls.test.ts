// Old tool calls' long arguments (an edit's old and new text, a file written whole) go at a
// clearing like old results; recent turns and turns the APIs want back unchanged stay as they are.
import { describe, expect, test } from "bun:test";
import { microcompact, newMicrocompactState } from "../../../lib/history/microcompact.ts";
import { clearedCalls } from "../../../lib/history/microcompact-forms.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";
import { call, result, user } from "./build.ts";

const long = (n: number, tag: string) => `${tag} `.repeat(n).slice(0, n);

describe("clearedCalls", () => {
  test("long string values become a size placeholder, short ones and other types stay; twice is once", () => {
    const m: ChatMessage = {
      ...call("c1", "patch_file", {
        file: "src/a.py",
        edits: [{ old: long(900, "old"), new: long(40, "new") }],
        count: 3,
      }),
    };
    (m.tool_calls as NonNullable<ChatMessage["tool_calls"]>)[0]!.raw = "{…}";
    const out = clearedCalls(m) as ChatMessage;
    const call0 = out.tool_calls?.[0];
    expect(call0?.arguments).toEqual({
      file: "src/a.py",
      edits: [{ old: "[cleared — 900 chars]", new: long(40, "new") }],
      count: 3,
    });
    expect(call0?.raw).toBeUndefined();
    expect(call0?.id).toBe("c1");
    expect(clearedCalls(out)).toBeUndefined();
    expect(clearedCalls(call("c2", "read_file", { file: "x" }))).toBeUndefined();
    // the original is not touched
    const edits = m.tool_calls?.[0]?.arguments["edits"] as Array<{ old: string }>;
    expect(edits[0]?.old).toHaveLength(900);
  });

  test("turns carrying reasoning or a Gemini thought signature stay as the model sent them", () => {
    const signed = call("c1", "write_file", { file: "a", content: long(2000, "x") });
    signed.tool_calls![0]!.thought_signature = "sig";
    expect(clearedCalls(signed)).toBeUndefined();
    const thinking = call("c2", "write_file", { file: "a", content: long(2000, "x") });
    thinking.tool_calls![0]!.thinking = [{ type: "thinking", thinking: "t", signature: "s" }];
    expect(clearedCalls(thinking)).toBeUndefined();
  });
});

test("in the loop: an old write's content goes at a clearing, the last two turns' calls go out as sent", () => {
  const state = newMicrocompactState();
  const env = { CHATCLI_MICROCOMPACT: "cost" };
  let h: ChatMessage[] = [user("task")];
  const turns: ChatMessage[] = [];
  let cleared: ChatMessage[] | undefined;
  for (let t = 0; t < 30; t++) {
    const mc = microcompact(h, t, env, { state });
    h = mc.messages;
    if (mc.callsCleared) cleared = h;
    const c = call(`c${t}`, "write_file", { file: `f${t}`, content: long(6000, `body${t}`) });
    turns.push(c);
    h.push(c, result(`c${t}`, `wrote f${t}`));
  }
  expect(cleared).toBeDefined();
  const calls = (cleared as ChatMessage[]).filter((m) => m.role === "assistant");
  expect(calls[0]?.tool_calls?.[0]?.arguments).toEqual({
    file: "f0",
    content: "[cleared — 6000 chars]",
  });
  // the newest two turns are byte for byte what the model sent
  for (const m of calls.slice(-2)) expect(turns).toContain(m);
});
