import { describe, expect, test } from "bun:test";
import { contentType, microcompact } from "../../../lib/history/microcompact.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";
import { asst, call, result, user } from "./build.ts";

function loop(turns: number, size = 6000): ChatMessage[] {
  const out: ChatMessage[] = [user("task")];
  for (let t = 0; t < turns; t++) {
    out.push(call(`c${t}`, "read_file", { file: `f${t}` }));
    out.push(result(`c${t}`, `${`line ${t}\n`.repeat(size / 7)}`));
  }
  out.push(asst("done"));
  return out;
}

describe("microcompact", () => {
  test("skipped before TRUNCATE_TURNS", () => {
    const history = loop(6);
    const res = microcompact(history, 1, {});
    expect(res.messages).toEqual(history);
    expect(res.truncated + res.summarized).toBe(0);
  });

  test("old results: head+tail after 2 turns, one-line summary after 4", () => {
    const history = loop(6);
    // 7 assistant messages in total; result of call t has turn t+1, age = 6 - t.
    const res = microcompact(history, 5, {});
    const contents = res.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(contents[0]).toMatch(/^\[Old tool result cleared — \d+ lines, \d+ chars, text\]$/);
    expect(contents[2]).toStartWith("[Old tool result cleared");
    expect(contents[3]).toContain("chars omitted from old tool result ...]");
    expect(contents[4]).toContain("chars omitted from old tool result ...]");
    expect(contents[5]).toBe(history[12]?.content as string);
    expect(res.summarized).toBe(3);
    expect(res.truncated).toBe(2);
    expect(res.freedChars).toBeGreaterThan(0);
    expect(res.messages.every((m, i) => m.tool_call_id === history[i]?.tool_call_id)).toBe(true);
  });

  test("env knobs and the min-content floor", () => {
    const history = loop(6, 1000);
    expect(microcompact(history, 5, {}).summarized).toBe(0);
    const res = microcompact(history, 5, {
      CHATCLI_MICROCOMPACT_MIN_CONTENT: "500",
      CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS: "10",
      CHATCLI_MICROCOMPACT_HEAD_CHARS: "100",
      CHATCLI_MICROCOMPACT_TAIL_CHARS: "50",
    });
    expect(res.summarized).toBe(0);
    expect(res.truncated).toBe(5);
    expect(res.messages[2]?.content.length).toBeLessThan(300);
  });

  test("content types", () => {
    expect(contentType('{"a":1}')).toBe("JSON");
    expect(contentType("package main\n")).toBe("Go source");
    expect(contentType("diff --git a b")).toBe("diff");
    expect(contentType("commit abc")).toBe("git log");
    expect(contentType("hello")).toBe("text");
  });
});

test("bench-compact runs levels 1+3 and reports MB/s per size", async () => {
  const { benchCompact } = await import("../../../scripts/bench-compact.ts");
  const rows = await benchCompact([300, 600]);
  expect(rows.map((r) => r.messages)).toEqual([300, 600]);
  for (const row of rows) expect(row.mbPerSecond).toBeGreaterThan(0);
});
