import { describe, expect, test } from "bun:test";
import {
  earlyExitThreshold,
  fingerprint,
  StagnationDetector,
} from "../../../lib/agent/early-exit.ts";
import { isTrivialQuery, routeMode } from "../../../lib/agent/routing.ts";
import {
  normaliseToolName,
  parseToolCalls,
  recoverJson,
} from "../../../lib/agent/toolcall-parser.ts";

describe("tool-call text parser", () => {
  test("self-closing and paired tags, any case, attributes in any order, `>` inside args", () => {
    const text = [
      "Let me look.\n<reasoning>read then patch</reasoning>",
      `<tool_call name="read_file" args='{"file":"a.ts","start":1}' />`,
      `some prose <TOOL_CALL args='{"cmd":"echo a > b"}' name="run_command"></TOOL_CALL>`,
      `<tool name="list_directory">{"dir":"src"}</tool>`,
    ].join("\n");
    const calls = parseToolCalls(text);
    expect(calls.map((c) => c.name)).toEqual(["read_file", "run_command", "list_directory"]);
    expect(calls[0]?.args).toEqual({ file: "a.ts", start: 1 });
    expect(calls[1]?.args).toEqual({ cmd: "echo a > b" });
    expect(calls[2]?.args).toEqual({ dir: "src" });
  });

  test("ignores look-alike tags and keeps escaped quotes", () => {
    const text = `<toolbox name="x"/> <tool_caller name="y"/> <tool_call name="write_file" args='{"file":"q.txt","content":"it\\'s"}'/>`;
    const calls = parseToolCalls(text);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args).toEqual({ file: "q.txt", content: "it's" });
  });

  test("</tool> does not swallow a following </tool_call>; unquoted attributes", () => {
    const text = `<tool name=read_file>{"file":"a"}</tool>\n<tool_call name=git_status />`;
    expect(parseToolCalls(text).map((c) => c.name)).toEqual(["read_file", "git_status"]);
  });

  test("bad JSON args are recovered when possible, else kept raw for an error result", () => {
    expect(
      parseToolCalls(`<tool_call name="read_file" args="{file: 'a.ts', start: 2,}"/>`)[0]?.args,
    ).toEqual({ file: "a.ts", start: 2 });
    expect(parseToolCalls(`<tool_call name="read_file" args='{"file": '/>`)[0]?.args).toBe(
      '{"file": ',
    );
  });

  test("bare JSON calls and bracket shorthand when no XML is present", () => {
    const json = parseToolCalls(
      'I will call {"tool_call":"read_file","args":{"file":"x"}} now',
      new Set(["read_file"]),
    );
    expect(json).toEqual([
      {
        name: "read_file",
        args: { file: "x" },
        raw: '{"tool_call":"read_file","args":{"file":"x"}}',
      },
    ]);
    expect(parseToolCalls('{"name":"nope","arguments":{}}', new Set(["read_file"]))).toEqual([]);
    expect(parseToolCalls('[tool: @webfetch {"url":"http://a"}]')[0]).toMatchObject({
      name: "webfetch",
      args: { url: "http://a" },
    });
  });

  test("plain prose and code fences without calls give nothing", () => {
    expect(
      parseToolCalls("Done. The fix is in `src/a.ts`.\n```ts\nconst x = { a: 1 };\n```"),
    ).toEqual([]);
  });

  test("ChatCLI names map to ours", () => {
    expect(normaliseToolName("@coder", { cmd: "read", args: { file: "a" } })).toEqual({
      name: "read_file",
      args: { file: "a" },
    });
    expect(normaliseToolName("@coder", { cmd: "exec", args: { cmd: "ls" } }).name).toBe(
      "run_command",
    );
    expect(normaliseToolName("@webfetch", { url: "u" }).name).toBe("web_fetch");
    expect(normaliseToolName("@memory", { cmd: "remember", args: { content: "c" } })).toEqual({
      name: "memory",
      args: { cmd: "remember", content: "c" },
    });
  });

  test("recoverJson handles Windows paths and single quotes", () => {
    expect(recoverJson('{"file":"C:\\Users\\a.txt"}')).toEqual({ file: "C:\\Users\\a.txt" });
    expect(recoverJson("{'a': 'b'}")).toEqual({ a: "b" });
    expect(recoverJson("not json")).toBeUndefined();
  });
});

describe("early exit", () => {
  test("fingerprint is order-independent and whitespace-normalised", () => {
    const a = fingerprint([
      { name: "read_file", arguments: { file: "a" } },
      { name: "read_file", arguments: { file: "b" } },
    ]);
    const b = fingerprint([
      { name: "read_file", arguments: { file: "b" } },
      { name: "read_file", arguments: { file: "a" } },
    ]);
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprint([{ name: "x", arguments: { a: "1  2" } }])).toBe(
      fingerprint([{ name: "x", arguments: { a: "1 2" } }]),
    );
    expect(fingerprint([])).toBe("");
  });

  test("threshold validated in [2,10], else 3; disabled by CHATCLI_AGENT_EARLY_EXIT=0", () => {
    expect(earlyExitThreshold({})).toBe(3);
    expect(earlyExitThreshold({ CHATCLI_AGENT_EARLY_EXIT_TURNS: "5" })).toBe(5);
    expect(earlyExitThreshold({ CHATCLI_AGENT_EARLY_EXIT_TURNS: "1" })).toBe(3);
    expect(earlyExitThreshold({ CHATCLI_AGENT_EARLY_EXIT_TURNS: "11" })).toBe(3);
    expect(earlyExitThreshold({ CHATCLI_AGENT_EARLY_EXIT_TURNS: "x" })).toBe(3);
    expect(earlyExitThreshold({ CHATCLI_AGENT_EARLY_EXIT: "off" })).toBe(0);
  });

  test("detector fires on the Nth identical turn; an empty batch resets", () => {
    const d = new StagnationDetector(3);
    expect([d.observe("a"), d.observe("a"), d.observe("b"), d.observe("b"), d.observe("")]).toEqual(
      [false, false, false, false, false],
    );
    expect([d.observe("b"), d.observe("b"), d.observe("b")]).toEqual([false, false, true]);
    const off = new StagnationDetector(0);
    expect([off.observe("a"), off.observe("a"), off.observe("a")]).toEqual([false, false, false]);
  });
});

describe("smart routing classifier", () => {
  test("modes", () => {
    expect(routeMode({})).toBe("hint");
    expect(routeMode({ CHATCLI_AGENT_SMART_ROUTE: "off" })).toBe("off");
    expect(routeMode({ CHATCLI_AGENT_SMART_ROUTE: "auto" })).toBe("auto");
    expect(routeMode({ CHATCLI_AGENT_SMART_ROUTE: "yes" })).toBe("hint");
  });

  test("questions are trivial; tasks, files and long text are not", () => {
    expect(isTrivialQuery("what is a monad?", "hint")).toBe(true);
    expect(isTrivialQuery("o que é uma mônada", "auto")).toBe(true);
    expect(isTrivialQuery("is it raining in Lisbon today?", "hint")).toBe(true);
    expect(isTrivialQuery("what is a monad?", "off")).toBe(false);
    expect(isTrivialQuery("fix the failing tests", "hint")).toBe(false);
    expect(isTrivialQuery("what does src/app.ts do?", "hint")).toBe(false);
    expect(isTrivialQuery("why does npm test fail?", "hint")).toBe(false);
    expect(isTrivialQuery(`what ${"x ".repeat(100)}`, "hint")).toBe(false);
    expect(isTrivialQuery("refactor the parser", "hint")).toBe(false);
    // questions about the workspace need the tools, even without a file name
    expect(isTrivialQuery("What does this project do?", "auto")).toBe(false);
    expect(isTrivialQuery("where is the config in this repo?", "auto")).toBe(false);
    expect(isTrivialQuery("o que faz este repositório?", "auto")).toBe(false);
    expect(isTrivialQuery("which tests are slow?", "auto")).toBe(false);
  });
});

describe("tool-call text formats found in the wild", () => {
  const known = new Set(["read_file", "write_file", "run_command"]);
  test("a closing tag inside the JSON body does not cut the arguments", () => {
    const text =
      '<tool_call name="write_file">{"file":"a.md","content":"use </tool_call> to end"}</tool_call> done';
    expect(parseToolCalls(text, known).map((c) => [c.name, c.args])).toEqual([
      ["write_file", { file: "a.md", content: "use </tool_call> to end" }],
    ]);
  });

  test("Anthropic's <invoke>/<parameter> text format", () => {
    const text =
      'Reading.\n<function_calls>\n<invoke name="read_file">\n<parameter name="file">src/a.ts</parameter>\n<parameter name="start">3</parameter>\n</invoke>\n</function_calls>';
    expect(parseToolCalls(text, known).map((c) => [c.name, c.args])).toEqual([
      ["read_file", { file: "src/a.ts", start: 3 }],
    ]);
  });
});
