import { describe, expect, test } from "bun:test";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, spawnChatcli } from "../support/binary.ts";
import { chatcli, controls, envelope, filesUnder, oneJson } from "../support/contract.ts";
import { tempDir } from "../support/ctx.ts";

// CONTRACT §1 and §4 (text from stdin), §9 (secrets, escape sequences) on the built binary.

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

  test.each([["ask"], ["ask", "-"], ["-"], [], ["agent", "-"], ["coder"]])(
    "%p takes the prompt from stdin (mock:echo sees it)",
    async (...args) => {
      await using home = await tempDir();
      const replies = join(home.path, "replies.jsonl");
      await writeFile(replies, `${JSON.stringify({ text: "done" })}\n`);
      const agentic = args[0] === "agent" || args[0] === "coder";
      const model = agentic
        ? ["-m", "mock:script", "--fake-responses", replies]
        : ["-m", "mock:echo"];
      const r = await chatcli(home, [...args, ...model, "--json"], "question-from-stdin\n");
      const env = envelope(r.stdout, 0);
      expect(env["command"]).toBe(args[0] === "agent" || args[0] === "coder" ? args[0] : "ask");
      expect(String(env["result"])).toContain(agentic ? "done" : "question-from-stdin");
    },
  );

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

  test("a session written by another tool with raw secrets is shown redacted in JSON", async () => {
    await using home = await tempDir();
    const sessions = join(home.path, ".chatcli", "sessions");
    await mkdir(sessions, { recursive: true });
    const raw = `deploy with ${OPENAI} and ${CONFIGURED}`;
    const doc = { version: 2, title: raw, chat_history: [{ role: "user", content: raw }] };
    await writeFile(join(sessions, "go.json"), JSON.stringify(doc));
    const env = { DEPLOY_TOKEN: CONFIGURED };
    for (const args of [
      ["sessions", "list"],
      ["sessions", "show", "go"],
    ]) {
      const r = await chatcli(home, [...args, "--json"], undefined, env);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("[REDACTED:openai_key]");
      expect(r.stdout).toContain("[REDACTED:configured_key]");
      for (const secret of RAW) expect(r.stdout).not.toContain(secret);
    }
  });

  test("facts written by another tool with raw secrets are printed redacted in JSON", async () => {
    await using home = await tempDir();
    const dir = join(home.path, ".chatcli", "memory");
    await mkdir(dir, { recursive: true });
    const fact = {
      id: "go1",
      content: `the deploy key is ${OPENAI}`,
      category: "gotcha",
      created_at: "2026-01-01T00:00:00Z",
      last_accessed: "2026-01-01T00:00:00Z",
      access_count: 1,
      score: 1,
    };
    await writeFile(join(dir, "memory_index.json"), JSON.stringify([fact]));
    for (const args of [
      ["memory", "facts"],
      ["memory", "recall", "deploy key"],
      ["memory", "export"],
    ]) {
      const r = await chatcli(home, [...args, "--json"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("[REDACTED:openai_key]");
      expect(r.stdout).not.toContain(OPENAI);
    }
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

describe("routing of bare chatcli", () => {
  test("output-format flags before a command name belong to that command", async () => {
    await using home = await tempDir();
    for (const flags of [["--json"], ["--output-format", "json"], ["--jsonl"]]) {
      const list = await chatcli(home, [...flags, "sessions", "list"]);
      expect([list.code, list.stdout]).toEqual([0, "[]\n"]);
      const bad = await chatcli(home, [...flags, "memory", "nope"]);
      expect(envelope(bad.stdout, 2)["command"]).toBe("memory");
    }
    // a command name after ask's flags is not sent as a prompt (issue 10); `--` makes it one
    const typo = await chatcli(home, ["--json", "-m", "mock:echo", "sessions"]);
    expect(envelope(typo.stdout, 2)["error"]).toMatchObject({ code: "usage_error" });
    const ask = await chatcli(home, ["--json", "-m", "mock:echo", "--", "sessions"]);
    expect(envelope(ask.stdout, 0)["command"]).toBe("ask");
  });
});
