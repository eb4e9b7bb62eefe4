import { describe, expect, test } from "bun:test";
import { MISSING_RESULT, repairToolPairs } from "../../../lib/history/tool-pairs.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";

const call = (id: string) => ({ id, name: "read_file", arguments: { file: "a" } });

describe("repairToolPairs: every tool call has exactly one result, every result its call", () => {
  test("a valid history comes back as the same array", () => {
    const ok: ChatMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "b", content: "B" },
      { role: "tool", tool_call_id: "a", content: "A" },
      { role: "assistant", content: "done" },
    ];
    const r = repairToolPairs(ok);
    expect(r).toMatchObject({ added: 0, dropped: 0 });
    expect(r.messages).toBe(ok);
  });

  test("missing results are added after the call; orphans and duplicates are dropped", () => {
    const broken: ChatMessage[] = [
      { role: "tool", tool_call_id: "zz", content: "orphan at the start" },
      { role: "user", content: "go" },
      { role: "assistant", content: "", tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "a", content: "A" },
      { role: "tool", tool_call_id: "a", content: "A again" },
      { role: "user", content: "next" },
      { role: "tool", tool_call_id: "b", content: "late result" },
      { role: "assistant", content: "", tool_calls: [call("c")] },
    ];
    const r = repairToolPairs(broken);
    expect(r).toMatchObject({ added: 2, dropped: 3 });
    expect(r.messages).toEqual([
      { role: "user", content: "go" },
      { role: "assistant", content: "", tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "a", content: "A" },
      { role: "tool", tool_call_id: "b", content: MISSING_RESULT, is_error: true },
      { role: "user", content: "next" },
      { role: "assistant", content: "", tool_calls: [call("c")] },
      { role: "tool", tool_call_id: "c", content: MISSING_RESULT, is_error: true },
    ]);
  });
});
