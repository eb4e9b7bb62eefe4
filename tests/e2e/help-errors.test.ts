/**
 * Help that agrees with itself and one error style: `chatcli: <what>` then `hint: <fix>` on stderr,
 * for chatcli's own errors and commander's alike; `help` and `version` do what they say.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

async function run(args: string[], extra: Record<string, string> = {}) {
  await using home = await tempDir();
  return await runChatcli(args, { env: baseEnv(home.path, extra), cwd: home.path });
}

/** stderr in the one style: `chatcli: …` then optionally `hint: …`, nothing else. */
const ONE_STYLE = /^chatcli: [^\n]+\n(?:hint: [^\n]+\n)?$/;

describe("help and version", () => {
  test("chatcli version prints the version (never a prompt); --json the build info", async () => {
    await using llm = await startMockLlm();
    const plain = await run(["version"], llm.env("openai"));
    expect(plain).toMatchObject({ code: 0, stdout: "0.1.0\n", stderr: "" });
    const json = await run(["version", "--json"], llm.env("openai"));
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ version: "0.1.0" });
    const extra = await run(["version", "of", "node"], llm.env("openai"));
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(ONE_STYLE);
    expect(extra.stderr).toContain("chatcli ask 'version of node'");
    expect(llm.requests).toHaveLength(0);
  });

  test("chatcli help foo: exit 2 naming foo, nothing on stdout", async () => {
    const r = await run(["help", "foo"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(ONE_STYLE);
    expect(r.stderr).toContain('unknown command "foo"');
    expect(r.stderr).toMatch(/^hint: .*sessions/m);
  });

  test("help, help COMMAND SUB and COMMAND help SUB all show that command's help", async () => {
    const root = await run(["help"]);
    expect(root.code).toBe(0);
    expect(root.stdout).toStartWith("Usage: chatcli [options] [command]");
    for (const args of [
      ["help", "memory", "facts"],
      ["memory", "help", "facts"],
    ]) {
      const r = await run(args);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      expect(r.stdout).toStartWith("Usage: chatcli memory facts");
    }
    for (const args of [
      ["sessions", "help", "list"],
      ["help", "sessions", "list"],
    ]) {
      const r = await run(args);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      expect(r.stdout).toStartWith("Usage: chatcli sessions list");
    }
    const sessions = await run(["sessions", "help"]);
    expect(sessions.stdout).toStartWith("Usage: chatcli sessions");
    const bad = await run(["help", "sessions", "lst"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(ONE_STYLE);
    expect(bad.stderr).toContain("did you mean: chatcli sessions list?");
  });

  test("no --help page shows (default: [])", async () => {
    for (const args of [[], ["ask"], ["agent"], ["coder"], ["config"], ["memory", "facts"]]) {
      const r = await run([...args, "--help"]);
      expect(r.code).toBe(0);
      expect({ args, bad: r.stdout.includes("(default: [])") }).toEqual({ args, bad: false });
    }
  });
});

describe("one error style", () => {
  test("commander's errors read like chatcli's: chatcli: … / hint: …, exit 2", async () => {
    const cases: Array<{ args: string[]; says: string; hint: RegExp }> = [
      {
        args: ["ask", "--bogus", "x"],
        says: "unknown option '--bogus'",
        hint: /chatcli ask --help/,
      },
      { args: ["--bogus"], says: "unknown option '--bogus'", hint: /chatcli ask --help/ },
      {
        args: ["ask", "--jsn", "x"],
        says: "unknown option '--jsn'",
        hint: /did you mean --json\?/,
      },
      {
        args: ["sessions", "rm"],
        says: "missing required argument 'name'",
        hint: /sessions rm --help/,
      },
      {
        args: ["ask", "--color", "sometimes", "x"],
        says: "argument 'sometimes' is invalid",
        hint: /auto, always, never/,
      },
      { args: ["ask", "-m"], says: "argument missing", hint: /chatcli ask --help/ },
      {
        args: ["sessions", "list", "extra"],
        says: "too many arguments",
        hint: /sessions list --help/,
      },
    ];
    for (const c of cases) {
      const r = await run(c.args);
      expect({ args: c.args, code: r.code, stdout: r.stdout }).toEqual({
        args: c.args,
        code: 2,
        stdout: "",
      });
      expect({ args: c.args, stderr: r.stderr }).toEqual({
        args: c.args,
        stderr: expect.stringMatching(ONE_STYLE),
      });
      expect(r.stderr).toContain(c.says);
      expect(r.stderr).toMatch(c.hint);
    }
  });

  test("--json with a bad flag: the envelope on stdout, the same one line on stderr", async () => {
    const r = await run(["ask", "--bogus", "--json", "x"]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      terminal_reason: "usage_error",
      error: { code: "usage_error", message: "unknown option '--bogus'" },
    });
    expect(r.stderr).toMatch(ONE_STYLE);
  });

  test("chat --json is a usage error in the one style, with no envelope (chat speaks no JSON)", async () => {
    for (const flag of [["--json"], ["--jsonl"], ["--output-format", "json"]]) {
      const r = await run(["chat", ...flag]);
      expect({ flag, code: r.code, stdout: r.stdout }).toEqual({ flag, code: 2, stdout: "" });
      expect(r.stderr).toMatch(ONE_STYLE);
      expect(r.stderr).toContain("chat is interactive");
      expect(r.stderr).toMatch(/^hint: .*chatcli ask --json/m);
    }
  });

  test("ask -m hi (the model value forgotten) names hi, exit 3", async () => {
    const r = await run(["ask", "-m", "hi"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(ONE_STYLE);
    expect(r.stderr).toContain('unknown model "hi"');
    expect(r.stderr).toContain("chatcli ask hi");
    // with a provider configured, a bare model id is still that provider's model
    await using llm = await startMockLlm();
    llm.push({ text: "ok" });
    const ok = await run(["ask", "-m", "gpt-test", "q"], llm.env("openai"));
    expect(ok.code).toBe(0);
  });
});
