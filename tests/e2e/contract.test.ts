import { describe, expect, test } from "bun:test";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, runChatcli, spawnChatcli } from "../support/binary.ts";
import { type TempDir, tempDir } from "../support/ctx.ts";

// CONTRACT §1–§4, §7, §9 swept across every command of the built binary.

const ENVELOPE_KEYS = [
  "type",
  "schema_version",
  "chatcli_version",
  "command",
  "status",
  "is_error",
  "exit_code",
  "terminal_reason",
  "result",
  "session_id",
  "model",
  "num_turns",
  "duration_ms",
  "duration_api_ms",
  "usage",
  "total_cost_usd",
  "cost_is_estimate",
  "tools",
  "permission_denials",
  "files_changed",
  "checkpoints",
  "memory",
  "bootstrap_files",
  "compaction",
  "warnings",
  "error",
];

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
  "compact",
  "rewind",
  "sessions",
  "sessions list",
  "sessions show",
  "sessions rm",
  "bootstrap",
  "bootstrap show",
  "bootstrap path",
].map((c) => c.split(" "));

/** Exactly one JSON document and a newline on stdout. */
function oneJson(stdout: string): unknown {
  expect(stdout.endsWith("\n")).toBe(true);
  expect(stdout.slice(0, -1)).not.toContain("\n");
  return JSON.parse(stdout);
}

/** One envelope with every field present and `is_error == (exit_code != 0) == (status == "error")`. */
function envelope(stdout: string, code: number): Record<string, unknown> {
  const env = oneJson(stdout) as Record<string, unknown>;
  for (const key of ENVELOPE_KEYS) expect(Object.keys(env)).toContain(key);
  expect(env["type"]).toBe("result");
  expect(env["exit_code"]).toBe(code);
  expect(env["is_error"]).toBe(code !== 0);
  expect(env["status"]).toBe(code !== 0 ? "error" : "success");
  expect(controls(env)).toBe(0);
  return env;
}

async function chatcli(home: TempDir, args: string[], stdin?: string, extra = {}) {
  return runChatcli(args, {
    env: baseEnv(home.path, extra),
    cwd: home.path,
    ...(stdin === undefined ? {} : { stdin }),
  });
}

/** How many strings inside a parsed JSON value hold a control character other than \n and \t. */
function controls(value: unknown): number {
  if (typeof value === "string") return /[\u0000-\u0008\u000b-\u001f\u007f]/.test(value) ? 1 : 0;
  if (value && typeof value === "object")
    return Object.values(value).reduce((n: number, v) => n + controls(v), 0);
  return 0;
}

/** Every file under dir, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

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
    [["compact"], undefined, 2, "no_prompt"],
    [["compact", "--ratio", "5"], "[]", 2, "usage_error"],
    [["compact", "--session", "nope"], undefined, 2, "bad_input"],
    [["compact", "no-such-file.json"], undefined, 2, "bad_input"],
    [["compact"], "not json", 2, "bad_input"],
    [["memory", "import", "no-such-file.json"], undefined, 2, "bad_input"],
    [["memory", "import"], "not json", 2, "bad_input"],
    [["rewind"], undefined, 2, "usage_error"],
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
  const FLAGS = [["--json"], ["--output-format", "json"], ["--output-format=json"]];
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
      expect(envelope(r.stdout, r.code)["is_error"]).toBe(true);
    }
  });
});

describe("text from stdin (CONTRACT §1, §4)", () => {
  test("remember, recall, forget, import, compact read stdin when the argument is absent or -", async () => {
    await using home = await tempDir();
    const facts = ["the build uses bun\n", "deploys need the vpn\n"];
    for (const args of [
      ["memory", "remember"],
      ["memory", "remember", "-"],
    ]) {
      const r = await chatcli(home, [...args, "--json"], facts[args.length - 2]);
      expect(r.code).toBe(0);
      expect(oneJson(r.stdout)).toMatchObject({ status: "added" });
    }
    const recall = await chatcli(home, ["memory", "recall", "--json"], "bun");
    expect(oneJson(recall.stdout)).toMatchObject([{ content: "the build uses bun" }]);
    const forget = await chatcli(home, ["memory", "forget", "-", "--dry-run", "--json"], "vpn");
    expect(oneJson(forget.stdout)).toMatchObject([{ content: "deploys need the vpn" }]);
    const exported = await chatcli(home, ["memory", "export"]);
    await using other = await tempDir();
    for (const args of [
      ["memory", "import"],
      ["memory", "import", "-"],
    ]) {
      const r = await chatcli(other, [...args, "--json"], exported.stdout);
      expect(r.code).toBe(0);
      expect(oneJson(r.stdout)).toHaveProperty("facts_added");
    }
    const conversation = JSON.stringify([{ role: "user", content: "hello" }]);
    for (const args of [["compact"], ["compact", "-"]]) {
      const r = await chatcli(home, [...args, "--json"], conversation);
      expect(envelope(r.stdout, 0)["result"]).toBe(conversation);
    }
  });

  test("an open pipe that never writes does not hang them: exit 2 no_prompt, one envelope", async () => {
    await using home = await tempDir();
    const runs = [
      ["memory", "remember"],
      ["memory", "recall", "-"],
      ["memory", "forget"],
      ["memory", "import"],
      ["compact"],
    ].map((args) =>
      spawnChatcli([...args, "--json"], {
        env: baseEnv(home.path),
        cwd: home.path,
        stdin: "pipe-open",
      }).done.then((r) => ({ args, ...r })),
    );
    for (const r of await Promise.all(runs)) {
      expect([r.args, r.code]).toEqual([r.args, 2]);
      expect(envelope(r.stdout, 2)["terminal_reason"]).toBe("no_prompt");
    }
  }, 20_000);
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

describe("secrets and escape sequences (CONTRACT §9)", () => {
  const OPENAI = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";
  const GITHUB = "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB";
  const AWS = "AKIAABCDEFGHIJKLMNOP";
  const ANTHROPIC = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345";
  const CONFIGURED = "my-own-service-value-42";
  const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----";
  const RAW = [OPENAI, GITHUB, AWS, ANTHROPIC, CONFIGURED, "MIIBOgIBAAJBAK", "ghp_abc"];

  test("never in JSON output nor in any file under ~/.chatcli (sessions, checkpoints, memory)", async () => {
    await using home = await tempDir();
    const env = { DEPLOY_TOKEN: CONFIGURED };
    const replies = join(home.path, "replies.jsonl");
    await writeFile(replies, `${JSON.stringify({ text: `echo ${OPENAI} ${CONFIGURED}` })}\n`);
    // The secret sits where a 60-character title or checkpoint label cuts it.
    const prompt = `deploy with ${GITHUB} ${OPENAI} ${AWS} ${ANTHROPIC} ${CONFIGURED}\n${PEM}`;
    const args = ["ask", "-m", "mock:script", "--fake-responses", replies, "--session", "s1"];
    const ask = await chatcli(home, [...args, prompt, "--json"], undefined, env);
    expect(envelope(ask.stdout, 0)["result"]).toContain("[REDACTED:");
    const remember = await chatcli(home, ["memory", "remember", `token ${OPENAI}`, "--json"]);
    const conversation = JSON.stringify([{ role: "user", content: `key ${OPENAI} ${CONFIGURED}` }]);
    const compacted = await chatcli(home, ["compact"], conversation, env);
    expect(compacted.stdout).toContain("[REDACTED:openai_key]");
    const outputs = [
      ask.stdout,
      remember.stdout,
      compacted.stdout,
      (await chatcli(home, ["compact", "--json"], conversation, env)).stdout,
      (await chatcli(home, ["sessions", "show", "s1", "--json"], undefined, env)).stdout,
      (await chatcli(home, ["sessions", "list", "--json"], undefined, env)).stdout,
      (await chatcli(home, ["rewind", "--session", "s1", "--json"], undefined, env)).stdout,
      (await chatcli(home, ["memory", "facts", "--json"])).stdout,
      (await chatcli(home, ["memory", "export", "--json"])).stdout,
    ];
    const files = await filesUnder(join(home.path, ".chatcli"));
    expect(files.some((f) => f.endsWith("state.json"))).toBe(true);
    for (const f of files) outputs.push(await readFile(f, "utf8"));
    for (const text of outputs) for (const raw of RAW) expect(text).not.toContain(raw);
  });

  test("escape sequences from the model or the memory never reach stdout, nor JSON", async () => {
    await using home = await tempDir();
    const replies = join(home.path, "replies.jsonl");
    const evil = "red \u001b[31mRED\u001b[0m title \u001b]0;pwned\u0007 bell\u0007 done";
    await writeFile(replies, `${JSON.stringify({ text: evil })}\n`.repeat(3));
    const base = ["ask", "-m", "mock:script", "--fake-responses", replies, "hi"];
    const text = await chatcli(home, base);
    expect(text.stdout).toBe("red RED title  bell done\n");
    for (const format of ["--json", "--jsonl"]) {
      const r = await chatcli(home, [...base, format]);
      expect(r.code).toBe(0);
      for (const line of r.stdout.trimEnd().split("\n")) expect(controls(JSON.parse(line))).toBe(0);
    }
    const typed = await chatcli(home, ["sessions", "show", evil, "--json"]);
    const flag = await chatcli(home, ["sessions", "list", `--x${evil}`, "--json"]);
    for (const r of [typed, flag]) {
      expect(r.code).toBe(2);
      expect(controls(JSON.parse(r.stdout))).toBe(0);
      expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    }
    await chatcli(home, ["memory", "remember", evil]);
    const facts = await chatcli(home, ["memory", "facts"]);
    expect(facts.stdout).toContain("RED");
    expect(facts.stdout).not.toContain("\u001b");
    expect(facts.stdout).not.toContain("\u0007");
  });
});
