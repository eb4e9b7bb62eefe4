import { expect, test } from "bun:test";
import type { ChatMessage } from "../../../lib/llm/types.ts";
import { rewoundPrompt } from "../../../lib/repl/repl-rewind.ts";

const m = (role: ChatMessage["role"], content: string): ChatMessage => ({ role, content });

test("the rewound turn's input: the dropped user message in full, a slash command as typed", () => {
  const before = [
    m("user", "q1"),
    m("assistant", "a1"),
    m("user", "line one\nline two"),
    m("assistant", "a2"),
  ];
  const after = before.slice(0, 2);
  expect(rewoundPrompt(before, after, "line one line two")).toBe("line one\nline two");
  expect(rewoundPrompt(before, after, "/agent look around")).toBe("/agent look around");
  // after a compaction the restored history is not a prefix: the label, unless it was cut short
  const compacted = [m("user", "[summary]"), m("assistant", "a9")];
  expect(rewoundPrompt(compacted, after, "q3")).toBe("q3");
  expect(rewoundPrompt(compacted, after, `${"x".repeat(57)}...`)).toBeUndefined();
  expect(rewoundPrompt([], [], "(start)")).toBeUndefined();
});
