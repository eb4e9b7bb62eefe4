import { describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { chatcli, envelope, oneJson } from "../support/contract.ts";
import { tempDir } from "../support/ctx.ts";

// CONTRACT §1–§4, §7, §9 swept across every command of the built binary (data: contract-data.test.ts).

const COMMANDS = [
  "ask",
  "agent",
  "coder",
  "chat",
  "memory",
  "memory today",
  "memory yesterday",
  "memory week",
  "memory longterm",
  "memory list",
  "memory facts",
  "memory recall",
  "memory remember",
  "memory forget",
  "memory profile",
  "memory profile set",
  "memory topics",
  "memory projects",
  "memory stats",
  "memory compact",
  "memory export",
  "memory import",
  "memory path",
  "compact",
  "rewind",
  "sessions",
  "sessions list",
  "sessions show",
  "sessions rm",
  "bootstrap",
  "bootstrap show",
  "bootstrap path",
  "config",
].map((c) => c.split(" "));

describe("contract sweep (spawned binary)", () => {
  test.each(COMMANDS)("%s … --help exits 0 with usage on stdout", async (...path) => {
    await using home = await tempDir();
    const r = await chatcli(home, [...path, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: chatcli ${path.join(" ")}`);
    expect(r.stderr).toBe("");
  });

  test.each(COMMANDS.filter((p) => p[0] !== "chat"))(
    "%s … --jsno exits 2 with a suggestion; with --json one error envelope",
    async (...path) => {
      await using home = await tempDir();
      const text = await chatcli(home, [...path, "--jsno"]);
      expect(text.code).toBe(2);
      expect(text.stdout).toBe("");
      expect(text.stderr).toContain("unknown option '--jsno'");
      expect(text.stderr).toContain("--json?");
      const json = await chatcli(home, [...path, "--jsno", "--json"]);
      expect(json.code).toBe(2);
      const env = envelope(json.stdout, 2);
      expect(env["terminal_reason"]).toBe("usage_error");
      expect(env["command"]).toBe(path[0]);
    },
  );

  test("chat: an unknown flag exits 2 with a suggestion; without a TTY it is a usage error", async () => {
    await using home = await tempDir();
    const r = await chatcli(home, ["chat", "--colr", "never"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--color?");
    const noTty = await chatcli(home, ["chat"]);
    expect(noTty.code).toBe(2);
    expect(noTty.stdout).toBe("");
  });

  // [argv (without --json), stdin, exit code, terminal_reason]
  const FAILURES: Array<[string[], string | undefined, number, string]> = [
    [["ask", "hi"], undefined, 3, "config_error"],
    [["hi"], undefined, 3, "config_error"],
    [["-m", "mock:echo"], undefined, 2, "no_prompt"],
    [["ask", "-m", "mock:echo"], undefined, 2, "no_prompt"],
    [["agent"], undefined, 2, "no_prompt"],
    [["coder"], undefined, 2, "no_prompt"],
    [["ask", "-m", "nosuch/model", "hi"], undefined, 3, "config_error"],
    [["ask", "-m", "openai/gpt-4o", "hi"], undefined, 3, "config_error"],
    [
      ["ask", "-m", "mock:echo", "--max-input-bytes", "4", "hi"],
      "hello world",
      2,
      "input_too_large",
    ],
    [["ask", "-m", "mock:echo"], "a\u0000b", 2, "bad_input"],
    [["ask", "--output-format", "bogus", "hi"], undefined, 2, "usage_error"],
    [["ask", "--timeout", "nope", "hi"], undefined, 2, "usage_error"],
    [["memory", "remember"], undefined, 2, "no_prompt"],
    [["memory", "recall"], undefined, 2, "no_prompt"],
    [["memory", "forget"], undefined, 2, "no_prompt"],
    [["memory", "import"], undefined, 2, "no_prompt"],
    [["memory", "facts", "--limit", "abc"], undefined, 2, "usage_error"],
    [["memory", "profile", "set", "BAD"], undefined, 2, "usage_error"],
    [["memory", "profile", "set"], undefined, 2, "usage_error"],
    [["memory", "nope"], undefined, 2, "usage_error"],
    [["memory", "profile", "st"], undefined, 2, "usage_error"],
    [["memory", "remember", "--category", "gotca", "x"], undefined, 2, "usage_error"],
    [["memory", "today", "extra"], undefined, 2, "usage_error"],
    [["memory", "export", "extra"], undefined, 2, "usage_error"],
    [["compact"], undefined, 2, "no_prompt"],
    [["compact", "--ratio", "5"], "[]", 2, "usage_error"],
    [["compact", "--session", "nope"], undefined, 2, "bad_input"],
    [["compact", "no-such-file.json"], undefined, 2, "bad_input"],
    [["compact"], "not json", 2, "bad_input"],
    [["memory", "import", "no-such-file.json"], undefined, 2, "bad_input"],
    [["memory", "import"], "not json", 2, "bad_input"],
    [["rewind", "--to", "1"], undefined, 2, "usage_error"],
    [["rewind", "--session", "nope"], undefined, 2, "bad_input"],
    [["sessions", "show", "nope"], undefined, 2, "bad_input"],
    [["sessions", "rm", "nope"], undefined, 2, "bad_input"],
    [["sessions", "show"], undefined, 2, "usage_error"],
  ];

  test.each(FAILURES)(
    "%p (stdin %p) exits %p: nothing on stdout in text mode, one envelope with --json and --jsonl",
    async (args, stdin, code, reason) => {
      await using home = await tempDir();
      const text = await chatcli(home, args, stdin);
      expect(text.code).toBe(code);
      expect(text.stdout).toBe("");
      expect(text.stderr).not.toBe("");
      const json = await chatcli(home, [...args, "--json"], stdin);
      expect(json.code).toBe(code);
      const env = envelope(json.stdout, code);
      expect(env["terminal_reason"]).toBe(reason);
      expect((env["error"] as { code: string }).code).toBeString();
      expect(env["command"]).toBe(
        args[0] && !args[0].startsWith("-") && args[0] !== "hi" ? args[0] : "ask",
      );
      if (args[0] === "memory" || args[0] === "sessions" || args[0] === "rewind") return;
      const jsonl = await chatcli(home, [...args, "--jsonl"], stdin);
      expect(jsonl.code).toBe(code);
      const lines = jsonl.stdout.trimEnd().split("\n");
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
      expect(envelope(`${lines.at(-1)}\n`, code)["terminal_reason"]).toBe(reason);
    },
  );

  const EMPTY_LISTS = [
    ["memory", "facts"],
    ["memory", "facts", "--category", "gotcha"],
    ["memory", "topics"],
    ["memory", "projects"],
    ["memory", "week"],
    ["memory", "recall", "anything"],
    ["memory", "forget", "anything", "--dry-run"],
    ["sessions"],
    ["sessions", "list"],
  ];

  test.each(EMPTY_LISTS)("%s … --json on an empty home prints [] and exits 0", async (...args) => {
    await using home = await tempDir();
    const r = await chatcli(home, [...args, "--json"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("[]\n");
  });

  const DOCUMENTS = [
    ["memory"],
    ["memory", "today"],
    ["memory", "2026-01-02"],
    ["memory", "longterm"],
    ["memory", "list"],
    ["memory", "profile"],
    ["memory", "stats"],
    ["memory", "export"],
    ["memory", "path"],
    ["memory", "profile", "set", "name=Ana"],
    ["rewind"],
    ["bootstrap"],
    ["bootstrap", "show"],
    ["bootstrap", "path"],
  ];

  test.each(DOCUMENTS)("%s … --json prints exactly one JSON document, exit 0", async (...args) => {
    await using home = await tempDir();
    const r = await chatcli(home, [...args, "--json"]);
    expect(r.code).toBe(0);
    expect(oneJson(r.stdout)).toBeObject();
  });
});

describe("--output-format json is --json on every command that prints JSON", () => {
  const FLAGS = [["--json"], ["--output-format", "json"], ["--output-format=json"], ["--jsonl"]];
  const COMMANDS_WITH_DOCS = [
    ["memory"],
    ["memory", "2026-01-02"],
    ["memory", "facts"],
    ["memory", "stats"],
    ["sessions", "list"],
    ["bootstrap", "path"],
  ];
  test.each(COMMANDS_WITH_DOCS)("%s … prints the same document with each flag", async (...args) => {
    await using home = await tempDir();
    const outputs = new Set<string>();
    for (const flags of FLAGS) {
      const r = await chatcli(home, [...args, ...flags]);
      expect(r.code).toBe(0);
      outputs.add(JSON.stringify(oneJson(r.stdout)));
    }
    expect(outputs.size).toBe(1);
  });

  test.each(FLAGS)("errors print the envelope with %s too", async (...flags) => {
    await using home = await tempDir();
    for (const args of [["memory", "remember"], ["sessions", "show", "nope"], ["ask"]]) {
      const r = await chatcli(home, [...args, ...flags]);
      const last = r.stdout.trimEnd().split("\n").at(-1);
      expect(envelope(`${last}\n`, r.code)["is_error"]).toBe(true);
    }
  });
});

describe("success: one envelope with --json, the same envelope last with --jsonl", () => {
  test.each([["ask"], ["agent"], ["coder"], ["compact"]])("%s", async (cmd) => {
    await using home = await tempDir();
    const replies = join(home.path, "replies.jsonl");
    await writeFile(replies, `${JSON.stringify({ text: "the answer" })}\n`.repeat(3));
    const conversation = JSON.stringify([{ role: "user", content: "hello" }]);
    const [args, stdin] =
      cmd === "compact"
        ? [["compact", "--no-llm"], conversation]
        : [[cmd, "-m", "mock:script", "--fake-responses", replies, "--ephemeral", "hi"], undefined];
    const plain = args;
    const json = await chatcli(home, [...plain, "--json"], stdin);
    const env = envelope(json.stdout, 0);
    expect(env["command"]).toBe(cmd);
    const jsonl = await chatcli(home, [...plain, "--jsonl"], stdin);
    const lines = jsonl.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    // every line, the result too, carries seq (0, 1, 2…), ts and session_id; the first is session.started
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i));
    expect(lines[0].type).toBe("session.started");
    for (const line of lines) {
      expect(line.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Object.keys(line)).toContain("session_id");
    }
    const { seq: _seq, ts: _ts, ...last } = lines.at(-1);
    envelope(`${JSON.stringify(last)}\n`, 0);
    const timeless = { duration_ms: 0, duration_api_ms: 0 };
    expect({ ...last, ...timeless }).toEqual({ ...env, ...timeless });
  });
});

test("rewind: the list is one document, a restore one envelope (json) or events + envelope (jsonl)", async () => {
  await using home = await tempDir();
  for (const q of ["one", "two"])
    await chatcli(home, ["ask", "-m", "mock:echo", q, "--session", "rw"]);
  const list = await chatcli(home, ["rewind", "--session", "rw", "--json"]);
  expect(oneJson(list.stdout)).toMatchObject({
    session: "rw",
    checkpoints: [{ id: 1 }, { id: 2 }],
  });
  const json = await chatcli(home, ["rewind", "--session", "rw", "--to", "2", "--json"]);
  expect(envelope(json.stdout, 0)).toMatchObject({ command: "rewind", session_id: "rw" });
  const jsonl = await chatcli(home, ["rewind", "--session", "rw", "--to", "1", "--jsonl"]);
  expect(envelope(`${jsonl.stdout.trimEnd().split("\n").at(-1)}\n`, 0)["command"]).toBe("rewind");
  const missing = await chatcli(home, ["rewind", "--session", "rw", "--to", "99", "--json"]);
  expect(envelope(missing.stdout, 2)["terminal_reason"]).toBe("usage_error");
});

describe("--color on the one-shot commands (CONTRACT §9)", () => {
  test.each([["ask"], ["agent"], ["coder"]])(
    "%s accepts auto|always|never, rejects others",
    async (cmd) => {
      await using home = await tempDir();
      const replies = join(home.path, "replies.jsonl");
      await writeFile(replies, `${JSON.stringify({ text: "plain" })}\n`.repeat(3));
      const base = [cmd, "-m", "mock:script", "--fake-responses", replies, "hi"];
      for (const when of ["always", "never"]) {
        const r = await chatcli(home, [...base, "--color", when], undefined, { FORCE_COLOR: "1" });
        expect([r.code, r.stdout]).toEqual([0, "plain\n"]);
      }
      const bad = await chatcli(home, [...base, "--color", "sometimes"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("Allowed choices are auto, always, never");
    },
  );
});

describe("bare chatcli behaves as ask when not interactive", () => {
  test("a question, a piped prompt, and --json", async () => {
    await using home = await tempDir();
    const json = await chatcli(home, ["-m", "mock:echo", "what is 2+2", "--json"]);
    const env = envelope(json.stdout, 0);
    expect(env["command"]).toBe("ask");
    expect(String(env["result"])).toContain("what is 2+2");
    const piped = await chatcli(home, ["-m", "mock:echo"], "piped question");
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain("piped question");
  });
});
