import { describe, expect, test } from "bun:test";
import {
  toolCallReference,
  trimAssistantText,
  trimHistory,
  trimMessage,
} from "../../../lib/history/level1.ts";
import { asst, result, sys, user } from "./build.ts";

describe("level 1 trim", () => {
  test("strips reasoning, thinking and explanation blocks from assistant text", () => {
    const m = asst(
      "<reasoning>long\nthoughts</reasoning>\n\n\n\nAnswer <thinking>x</thinking>is 42.<explanation>because</explanation>",
    );
    expect(trimMessage(m).content).toBe(
      "[reasoning removed: 36 chars]\n\nAnswer [thinking removed: 22 chars]\nis 42.[explanation removed: 34 chars]",
    );
  });

  test("tool-call XML becomes a short reference", () => {
    const m = asst(
      `Reading.\n<tool_call name="@coder" args='{"cmd":"read","args":{"file":"main.go","start":1}}' />\n<tool name="@coder" args="{\\"cmd\\":\\"search\\",\\"args\\":{\\"term\\":\\"needle\\"}}"></tool>`,
    );
    expect(trimMessage(m).content).toBe(
      'Reading.\n[tool: @coder read main.go]\n[tool: @coder search term="needle"]',
    );
    expect(toolCallReference("@coder", '{"cmd":"exec","args":{"cmd":"npm test"}}')).toBe(
      "[tool: @coder exec]",
    );
    expect(
      toolCallReference("@webfetch", `{"url":"https://example.com/${"a".repeat(80)}"}`),
    ).toEndWith("...]");
  });

  test("large injected context keeps its header and 2000 chars", () => {
    const body = `[MEMORY CONTEXT — loaded from 2026-01-02]\nline2\nline3\n${"m".repeat(5000)}`;
    const out = trimMessage(user(body)).content;
    expect(out.startsWith("[MEMORY CONTEXT — loaded from 2026-01-02]\nline2\nline3\n\n")).toBe(
      true,
    );
    expect(out).toContain(
      `... [${body.length - 2000} chars of context omitted during compaction] ...`,
    );
    expect(out.length).toBeLessThan(2200);
  });

  test("tool feedback: big tool_output bodies become head + tail", () => {
    const big = `${"h".repeat(3000)}MIDDLE${"t".repeat(3000)}`;
    const m = user(
      `The tool '@coder' was executed and returned the following:\n\n<tool_output>${big}</tool_output>`,
    );
    const out = trimMessage(m).content;
    expect(out).toContain(
      `<tool_output>\n${"h".repeat(2000)}\n\n... [${big.length - 2500} chars omitted] ...\n\n${"t".repeat(500)}\n</tool_output>`,
    );
    expect(out).not.toContain("MIDDLE");
  });

  test("real user input, system, summaries and verbatim messages are untouched", () => {
    const real = user(`<reasoning>not mine to strip</reasoning>${"u".repeat(20000)}`);
    const summary = { ...asst("<reasoning>x</reasoning>"), meta: { is_summary: true } };
    const verbatim = { ...asst("<reasoning>x</reasoning>"), meta: { preserve_verbatim: true } };
    const system = sys("<reasoning>x</reasoning>");
    for (const m of [real, summary, verbatim, system]) expect(trimMessage(m)).toBe(m);
  });

  test("runs of FORMAT ERROR keep the last; repeated tool output collapses; tail verbatim", () => {
    const same = "same output ".repeat(50);
    const history = [
      user("go"),
      user("FORMAT ERROR: one"),
      user("FORMAT ERROR: two"),
      result("a", same),
      result("b", same),
      asst("<reasoning>tail</reasoning>kept"),
    ];
    const out = trimHistory(history, 0, 5);
    expect(out.map((m) => m.content)).toEqual([
      "go",
      "FORMAT ERROR: two",
      same,
      `[duplicate of an earlier tool output — ${same.length} chars omitted]`,
      "<reasoning>tail</reasoning>kept",
    ]);
    expect(out[3]?.tool_call_id).toBe("b");
  });

  test("repeats are found among outputs of the same length (and only exact repeats)", () => {
    const outputs = ["a", "b", "c", "d"].map((x) => `${x}${"-".repeat(299)}`);
    const other = `${"-".repeat(299)}a`; // the same length and letters, not a repeat
    const order = [0, 1, 0, 2, 1, 3, 3, 2, 0];
    const history = [
      ...order.map((k, i) => result(`t${i}`, outputs[k] as string)),
      result("o", other),
      result("u", "u".repeat(400)),
      user("done"),
    ];
    const out = trimHistory(history, 0, history.length);
    const dup = `[duplicate of an earlier tool output — 300 chars omitted]`;
    expect(out.map((m) => (m.content === dup ? "dup" : m.content[0]))).toEqual([
      "a",
      "b",
      "dup",
      "c",
      "dup",
      "d",
      "dup",
      "dup",
      "dup",
      "-",
      "u",
      "d",
    ]);
  });

  test("old large native tool results become head + tail, the message stays", () => {
    const m = result("t1", "r".repeat(9000));
    const out = trimMessage(m);
    expect(out.tool_call_id).toBe("t1");
    expect(out.content).toContain("... [6500 chars omitted] ...");
  });
});

test("reasoning blocks are found with indexOf exactly as the backreference regex found them", () => {
  const RE = /<(reasoning|thinking|explanation)>[\s\S]*?<\/\1>/g;
  const atoms = ["<reasoning>", "</reasoning>", "<thinking>", "</thinking>", "<explanation>"];
  atoms.push("</explanation>", "x", "y\n", " ", "<", ">", "</", "<reason", "\n\n\n");
  let seed = 1;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let i = 0; i < 20_000; i++) {
    let text = "";
    for (let j = Math.floor(rand() * 12); j > 0; j--)
      text += atoms[Math.floor(rand() * atoms.length)];
    RE.lastIndex = 0;
    const replaced = text.replace(
      RE,
      (whole, tag: string) => `[${tag} removed: ${whole.length} chars]\n`,
    );
    const expected = replaced === text ? text : replaced.replace(/[ \t]*\n{3,}/g, "\n\n").trim();
    expect(trimAssistantText(text)).toBe(expected);
  }
});
