import { describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { chatcli, controls } from "../support/contract.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { openaiAnswer, sse } from "../support/wire-fixtures.ts";

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

/** Raw control characters a terminal acts on: C0 (but \t \n), DEL, C1 (U+0080–U+009F). */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const HOSTILE =
  "clear\u001b[2J osc52\u001b]52;c;cHduZWQ=\u0007 c1csi\u009b31m c1osc\u009d0;title\u009c cr\rend";

/** issue 20: C1 controls, warnings quoting input, bootstrap text, escapes split across deltas. */
describe("control characters on the terminal (spawned binary)", () => {
  test("a warning that quotes a file name with ESC and C1 shows them written out, not raw", async () => {
    requireBinary();
    await using home = await tempDir();
    const dotenv = join(home.path, "evil\u001b[2J\u009b31m.env");
    await writeFile(dotenv, "GOOD=1\nBAD LINE\n");
    const env = baseEnv(home.path, { CHATCLI_DOTENV: dotenv, CHATCLI_MEMORY_ENABLED: "false" });
    for (const format of [[], ["--json"]]) {
      const r = await runChatcli(["ask", "hi", "-m", "mock:echo", ...format], {
        env,
        cwd: home.path,
      });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("evil\\x1b[2J\\u009b31m.env:2:");
      expect(r.stderr).not.toMatch(RAW);
      expect(r.stdout).not.toMatch(RAW);
    }
  });

  test("bootstrap show and the system prompt: AGENTS.md escapes are written out, with a warning", async () => {
    requireBinary();
    await using home = await tempDir();
    await using llm = await startMockLlm();
    Bun.spawnSync(["git", "init", "-q"], { cwd: home.path });
    await writeFile(join(home.path, "AGENTS.md"), `rules: ${HOSTILE}\r\nline two\r\n`);
    const env = baseEnv(home.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const show = await runChatcli(["bootstrap", "show"], { env, cwd: home.path });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("clear\\x1b[2J osc52\\x1b]52;c;cHduZWQ=\\x07 c1csi\\u009b31m");
    expect(show.stdout).toContain("cr\\x0dend\r\nline two\r\n"); // CRLF line endings stay
    expect(show.stdout.replaceAll("\r\n", "\n")).not.toMatch(RAW);
    expect(show.stderr).toContain(`${join(home.path, "AGENTS.md")} holds 7 control character(s)`);
    const json = await runChatcli(["bootstrap", "show", "--json"], { env, cwd: home.path });
    const doc = JSON.parse(json.stdout) as { warnings: Array<{ code: string }> };
    expect(doc.warnings.map((w) => w.code)).toContain("bootstrap_control_characters");
    llm.push({ text: "ok" });
    const ask = await runChatcli(["ask", "hi"], { env, cwd: home.path });
    expect(ask.code).toBe(0);
    const sent = JSON.stringify(llm.requests[0]?.body);
    expect(sent).toContain("c1csi\\\\u009b31m");
    expect(JSON.parse(sent).messages[0].content.replaceAll("\r\n", "\n")).not.toMatch(RAW);
  });

  test("C1 CSI / OSC in the final answer, and an ESC[2J split across two stream deltas, never reach stdout", async () => {
    requireBinary();
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const env = baseEnv(home.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    llm.push({ text: `answer ${HOSTILE}` });
    const text = await runChatcli(["ask", "hi"], { env, cwd: home.path });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("answer clear osc52 c1csi c1osc");
    expect(text.stdout).not.toMatch(RAW);
    expect(text.stdout).not.toContain("0;title");
    for (const format of [[], ["--jsonl"], ["--json"]]) {
      llm.pushRaw(
        sse(
          openaiAnswer(["split \u001b", "[2J mid \u009b", "31m osc \u001b]0;t", "itle\u0007 end"]),
        ),
      );
      const r = await runChatcli(["ask", "hi", ...format], { env, cwd: home.path });
      expect({ format, code: r.code }).toEqual({ format, code: 0 });
      expect(r.stdout).not.toMatch(RAW);
      const joined =
        format[0] === "--jsonl"
          ? r.stdout
              .trim()
              .split("\n")
              .map((l) => JSON.parse(l) as { type: string; text?: string })
              .filter((e) => e.type === "message.delta")
              .map((e) => e.text)
              .join("")
          : format[0] === "--json"
            ? (JSON.parse(r.stdout) as { result: string }).result
            : r.stdout;
      expect(joined).toContain("split  mid  osc  end");
      expect(joined).not.toContain("[2J");
      expect(joined).not.toContain("31m");
    }
  });
});
