import { describe, expect, test } from "bun:test";
import { baseEnv } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { runInProcess as runChatcli } from "../support/in-process.ts";
import { startMockLlm } from "../support/mock-llm.ts";

/** issue 10, "The CLI surface": a mistyped command never becomes a paid request. */
describe("bare chatcli WORDS: typos exit 2, real prompts are asked (in-process, mock server)", () => {
  test("mistyped commands and subcommands exit 2 with a suggestion and send nothing", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm({ defaultText: "paid answer" });
    const env = baseEnv(home.path, llm.env("openai"));
    const cases: Array<[string[], string]> = [
      [["sesions", "list"], "did you mean: chatcli sessions?"],
      [["memroy", "facts"], "did you mean: chatcli memory?"],
      [["bootstrap", "shw"], "did you mean: chatcli bootstrap show?"],
      [["sessions", "lst"], "did you mean: chatcli sessions list?"],
      [["agnet", "fix", "the", "failing", "tests"], "did you mean: chatcli agent?"],
      [["memory", "leaks", "in", "node"], "chatcli ask 'memory leaks in node'"],
      [["--json", "sesions", "list"], "did you mean: chatcli sessions?"],
    ];
    for (const [args, message] of cases) {
      const r = await runChatcli(args, { env, cwd: home.path });
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain(message);
      if (args[0] === "--json") {
        const envelope = JSON.parse(r.stdout);
        expect(envelope).toMatchObject({ exit_code: 2, terminal_reason: "usage_error" });
        expect(envelope.error.message).toContain("did you mean");
      } else expect(r.stdout).toBe("");
    }
    expect(llm.requests).toHaveLength(0);
    // the rule is in the root help
    const help = await runChatcli(["--help"], { env, cwd: home.path });
    expect(help.stdout).toContain("Bare prompts:");
    expect(help.stdout).toContain("`chatcli ask …` or `chatcli -- …` always is");
  });

  test("prompts that start like a command word are asked as they are", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm({ defaultText: "an answer" });
    const env = baseEnv(home.path, llm.env("openai"));
    const prompts = [
      "what does this error mean",
      "order these lines",
      "compare these two files",
      "lessons learned from the outage",
      "codex vs claude code",
    ];
    for (const prompt of prompts) {
      const r = await runChatcli(prompt.split(" "), { env, cwd: home.path });
      expect({ prompt, code: r.code, stdout: r.stdout }).toEqual({
        prompt,
        code: 0,
        stdout: "an answer\n",
      });
    }
    expect(llm.requests).toHaveLength(prompts.length);
    const sent = llm.requests.map((q) => JSON.stringify(q.body));
    for (const [i, p] of prompts.entries()) expect(sent[i]).toContain(p);
  });
});
