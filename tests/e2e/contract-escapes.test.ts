import { describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { chatcli, controls } from "../support/contract.ts";
import { tempDir } from "../support/ctx.ts";

const EVIL = "red \u001b[31mRED\u001b[0m \u001b]0;pwned\u0007title\r\u0008 done";

/** Every line of stdout parses and holds no control character (other than \n, \t). */
function expectClean(stdout: string): void {
  expect(stdout.trim()).not.toBe("");
  for (const line of stdout.trimEnd().split("\n")) expect(controls(JSON.parse(line))).toBe(0);
  expect(stdout).not.toContain("\\u001b");
  expect(stdout).not.toContain("\\u0007");
}

/** issue 10: JSON never carries escape sequences, whatever stored content holds. */
describe("JSON output of stored content (spawned binary)", () => {
  test("sessions show/list --json of a session another tool wrote with escapes", async () => {
    await using home = await tempDir();
    const sessions = join(home.path, ".chatcli", "sessions");
    await mkdir(sessions, { recursive: true });
    const doc = {
      version: 2,
      title: EVIL,
      chat_history: [
        { role: "user", content: `hi ${EVIL}` },
        {
          role: "assistant",
          content: EVIL,
          tool_calls: [{ id: "c1", type: "function", function: { name: EVIL, arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: EVIL },
      ],
      agent_history: [],
      coder_history: [],
    };
    await writeFile(join(sessions, "evil.json"), JSON.stringify(doc));
    const show = await chatcli(home, ["sessions", "show", "evil", "--json"]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("RED");
    expectClean(show.stdout);
    const list = await chatcli(home, ["sessions", "list", "--json"]);
    expect(list.code).toBe(0);
    expectClean(list.stdout);
  });

  test("memory facts|recall|export --json of facts another tool stored with escapes", async () => {
    await using home = await tempDir();
    const memory = join(home.path, ".chatcli", "memory");
    await mkdir(memory, { recursive: true });
    const fact = {
      id: "0123456789abcdef01234567",
      content: `deploys use ${EVIL}`,
      category: "project",
      created_at: "2026-01-01T00:00:00Z",
      last_accessed: "2026-01-01T00:00:00Z",
      access_count: 1,
      score: 1,
    };
    await writeFile(join(memory, "memory_index.json"), JSON.stringify([fact]));
    for (const args of [
      ["memory", "facts", "--json"],
      ["memory", "recall", "deploys", "--json"],
      ["memory", "export", "--json"],
      ["memory", "export"],
    ]) {
      const r = await chatcli(home, args);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      expect(r.stdout).toContain("deploys use red RED");
      if (args[2] === "--json") expectClean(r.stdout);
      else expect(controls(JSON.parse(r.stdout))).toBe(0);
    }
  });

  test("tools.by_name keys: a tool name the model made up", async () => {
    await using home = await tempDir();
    const replies = join(home.path, "r.jsonl");
    await writeFile(
      replies,
      [
        JSON.stringify({ tool_calls: [{ name: "\u001b[31mevil\u001b[0m\u0007", arguments: {} }] }),
        JSON.stringify({ text: "done" }),
      ].join("\n"),
    );
    for (const format of ["--json", "--jsonl"]) {
      const r = await chatcli(home, [
        "agent",
        "-m",
        "mock:script",
        "--fake-responses",
        replies,
        "go",
        format,
      ]);
      expect(r.code).toBe(0);
      expectClean(r.stdout);
      const last = JSON.parse(r.stdout.trimEnd().split("\n").at(-1) as string);
      expect(Object.keys(last.tools.by_name)).toEqual(["evil"]);
    }
  });
});
