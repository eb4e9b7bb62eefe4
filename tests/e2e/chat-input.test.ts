/** Input in the REPL: history written as it is typed, pastes that start with `/`, approvals that show what happens. */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { startTmux } from "../support/tmux.ts";
import { COMMAND, chatTerm, PROMPT_READY, sentMessages, submit, tmuxTest } from "./chat-term.ts";

let llm: MockLlm;
beforeAll(async () => {
  llm = await startMockLlm();
});
afterAll(() => llm.close());

describe("chatcli chat: input", () => {
  tmuxTest(
    "each input is in the history file as soon as it is sent; a closed terminal loses none, multi-line entries stay multi-line",
    async () => {
      await using home = await tempDir();
      const history = join(home.path, ".chatcli/.chatcli_history");
      llm.push({ text: "one" }, { text: "two" });
      const t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      submit(t, "first question");
      await t.waitForText(/^one\n❯$/m);
      t.paste("line a\nline b\nline c");
      t.sendKeys("Enter");
      await t.waitForText(/^two\n❯$/m);
      t.kill(); // the terminal is closed: no clean exit
      expect(readFileSync(history, "utf8")).toBe("first question\nline a\\\nline b\\\nline c\n");

      await using again = chatTerm(home.path, llm);
      await again.waitForText(PROMPT_READY);
      again.sendKeys("Up");
      await again.waitForText(/❯ line a\n· line b\n· line c/);
      again.sendKeys("C-c");
      await again.waitForText(/^❯$/m);
      again.sendKeys("C-d");
      await again.waitForExit();
    },
  );

  tmuxTest(
    "a pasted /path is sent as a message, never run as a command; an unknown /word with text asks first",
    async () => {
      await using home = await tempDir();
      llm.push({ text: "looked at the log" }, { text: "explained" });
      await using t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      t.paste("/var/log/app.log:12: error: connection refused");
      t.sendKeys("Enter");
      await t.waitForText(/^looked at the log\n❯$/m);
      expect(sentMessages(llm.requests.at(-1)!.body).at(-1)?.content).toBe(
        "/var/log/app.log:12: error: connection refused",
      );
      const before = llm.requests.length;
      submit(t, "/comapct keep the api");
      await t.waitForText(/\/comapct is not a command\. Send the line as a message\? \[y\/N\]/);
      t.type("n");
      await t.waitForText(/\[y\/N\] n\n❯$/m);
      expect(llm.requests.length).toBe(before);
      submit(t, "/explain the error");
      await t.waitForText(/Send the line as a message\? \[y\/N\]\s*$/);
      t.type("y");
      await t.waitForText(/^explained\n❯$/m);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "/coder approval shows the diff of the edit and the tool name once; a allows the rest",
    async () => {
      await using home = await tempDir();
      writeFileSync(join(home.path, "notes.txt"), "alpha\nbeta\ngamma\n");
      llm.push(
        {
          tool_calls: [
            {
              name: "write_file",
              arguments: { file: "notes.txt", content: "alpha\nBETA\ngamma\n" },
            },
          ],
        },
        {
          tool_calls: [{ name: "write_file", arguments: { file: "b.txt", content: "new\n" } }],
        },
        { text: "edited both" },
      );
      await using t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      submit(t, "/coder make beta loud");
      const screen = await t.waitForText(/Allow\? \[y\/n\/a\]/);
      expect(screen).toContain("? write_file notes.txt\n");
      expect(screen).not.toContain("write_file write_file");
      expect(screen).toMatch(/ -beta\n\s+\+BETA\n/);
      t.type("a");
      await t.waitForText(/^edited both\n❯$/m);
      expect(t.capturePane()).toContain("write_file allowed (always, this session)");
      expect(readFileSync(join(home.path, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
      expect(readFileSync(join(home.path, "b.txt"), "utf8")).toBe("new\n");
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "after each turn a status row under the prompt shows model, context used of the window, and cost",
    async () => {
      await using home = await tempDir();
      llm.push({ text: "hello back", usage: { input_tokens: 2000, output_tokens: 10 } });
      await using t = chatTerm(home.path, llm, { env: { OPENAI_MODEL: "gpt-5.4" } });
      await t.waitForText(PROMPT_READY);
      expect(t.capturePane()).not.toMatch(/· context/);
      submit(t, "hello");
      const screen = await t.waitForText(
        /^hello back\n❯\n {2}openai\/gpt-5\.4 · context [\d.]+k?\/[\d.]+[kM] \(\d+%\) · \$0\.\d+$/m,
      );
      expect(screen).not.toMatch(/\$0\.0000$/m);
      t.type("next");
      await t.waitForText(/^❯ next\n {2}openai\/gpt-5\.4 · context/m);
      t.sendKeys("C-u", "C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "a paste over 10 lines shows as [pasted N lines] in the editor and is sent in full",
    async () => {
      await using home = await tempDir();
      llm.push({ text: "got it" });
      await using t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      const log = Array.from({ length: 200 }, (_, i) => `line ${i + 1}: something happened`).join(
        "\n",
      );
      t.type("summarise ");
      t.paste(log);
      await t.waitForText(/^❯ summarise \[pasted 200 lines\]$/m);
      expect(t.capturePane()).not.toContain("line 150:");
      t.sendKeys("Enter");
      await t.waitForText(/^got it\n❯$/m);
      expect(sentMessages(llm.requests.at(-1)!.body).at(-1)?.content).toBe(`summarise ${log}`);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "Ctrl+R searches the history; Ctrl+R again goes further back; Enter sends the match",
    async () => {
      await using home = await tempDir();
      writeFileSync(
        join(home.path, "hist"),
        "explain the deploy script\nfix the login bug\nexplain the cache\n",
      );
      llm.push({ text: "again" });
      await using t = chatTerm(home.path, llm, { env: { HISTORY_FILE: join(home.path, "hist") } });
      await t.waitForText(PROMPT_READY);
      t.sendKeys("C-r");
      t.type("expl");
      await t.waitForText(/^\(reverse-i-search\)'expl': explain the cache$/m);
      t.sendKeys("C-r");
      await t.waitForText(/^\(reverse-i-search\)'expl': explain the deploy script$/m);
      t.type("zz");
      await t.waitForText(/^\(failing reverse-i-search\)'explzz': explain the deploy script$/m);
      t.sendKeys("BSpace", "BSpace", "Escape");
      await t.waitForText(/^❯$/m);
      t.sendKeys("C-r");
      t.type("login");
      await t.waitForText(/'login': fix the login bug$/m);
      t.sendKeys("Enter");
      await t.waitForText(/^again\n❯$/m);
      expect(sentMessages(llm.requests.at(-1)!.body).at(-1)?.content).toBe("fix the login bug");
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest("a 401 says which key to set; the prompt comes back", async () => {
    await using home = await tempDir();
    llm.push({ error: { status: 401, message: "Incorrect API key provided" } });
    await using t = chatTerm(home.path, llm);
    await t.waitForText(PROMPT_READY);
    submit(t, "hello");
    await t.waitForText(/^Error: [^\n]*401[^\n]*\n {2}hint: check OPENAI_API_KEY[^\n]*\n❯$/m);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest(
    "@path attaches a file (Tab completes it); Tab cycles ambiguous completions",
    async () => {
      await using home = await tempDir();
      mkdirSync(join(home.path, "src"));
      writeFileSync(join(home.path, "src", "config.ts"), "export const port = 8080;\n");
      writeFileSync(join(home.path, "src", "cli.ts"), "");
      llm.push({ text: "it listens on 8080" });
      await using t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      t.type("which port does @sr");
      t.sendKeys("Tab");
      await t.waitForText(/❯ which port does @src\/$/m);
      t.type("c");
      t.sendKeys("Tab");
      await t.waitForText(/^cli\.ts {2}config\.ts$/m);
      t.sendKeys("Tab");
      await t.waitForText(/❯ which port does @src\/cli\.ts$/m);
      t.sendKeys("Tab");
      await t.waitForText(/❯ which port does @src\/config\.ts$/m);
      t.type("use?");
      t.sendKeys("Enter");
      await t.waitForText(/^it listens on 8080\n❯$/m);
      expect(t.capturePane()).toContain("📎 src/config.ts attached");
      expect(sentMessages(llm.requests.at(-1)!.body).at(-1)?.content).toBe(
        'which port does @src/config.ts use?\n\n<file path="src/config.ts">\nexport const port = 8080;\n</file>',
      );
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "Ctrl+Z suspends to the shell; fg brings the prompt back with the draft intact",
    async () => {
      await using home = await tempDir();
      llm.push({ text: "resumed fine" });
      await using t = startTmux({
        command: ["bash", "--norc", "--noprofile", "-i"],
        cwd: home.path,
        env: {
          PATH: process.env["PATH"] ?? "/usr/bin:/bin",
          HOME: home.path,
          TERM: "xterm-256color",
          LANG: "C.UTF-8",
          NO_COLOR: "1",
          PS1: "$ ",
          ...llm.env("openai"),
          OPENAI_MODEL: "gpt-test",
          CHATCLI_MEMORY_ENABLED: "false",
        },
      });
      await t.waitForText(/^\$$/m);
      t.type(`${COMMAND.join(" ")} chat`);
      t.sendKeys("Enter");
      await t.waitForText(PROMPT_READY);
      t.type("half a thought");
      t.sendKeys("C-z");
      await t.waitForText(/Stopped/);
      t.type("fg");
      t.sendKeys("Enter");
      await t.waitForText(/^❯ half a thought$/m);
      t.type(", finished");
      t.sendKeys("Enter");
      await t.waitForText(/^resumed fine\n❯$/m);
      expect(sentMessages(llm.requests.at(-1)!.body).at(-1)?.content).toBe(
        "half a thought, finished",
      );
      t.sendKeys("C-d");
      await t.waitForText(/^\$$/m);
      t.type("exit");
      t.sendKeys("Enter");
    },
  );

  tmuxTest(
    "typing right after /clear draws the line once: nothing piles up in the scrollback",
    async () => {
      await using home = await tempDir();
      await using t = chatTerm(home.path, llm, { height: 10 });
      await t.waitForText(PROMPT_READY);
      submit(t, "/help");
      await t.waitForText(/Ctrl\+D exit\n❯$/m);
      submit(t, "/clear");
      await t.waitForText(/^❯$/m);
      for (let n = 1; n <= 5; n++) {
        t.type("hello"[n - 1] as string);
        await t.waitForText(new RegExp(`^❯ ${"hello".slice(0, n)}$`, "m"));
      }
      expect(t.captureHistory().match(/❯ h/g)?.length).toBe(1);
      t.sendKeys("C-u", "C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "!cmd runs a shell command in the sandbox, shows its output and offers it as context; a protected read is refused",
    async () => {
      await using home = await tempDir();
      mkdirSync(join(home.path, "work"));
      writeFileSync(join(home.path, "work", "notes.txt"), "line one\nline two\n");
      mkdirSync(join(home.path, ".ssh"));
      writeFileSync(join(home.path, ".ssh", "id_rsa"), "PRIVATE-KEY-CANARY\n");
      llm.push({ text: "two lines" });
      await using t = chatTerm(join(home.path, "work"), llm, { env: { HOME: home.path } });
      await t.waitForText(PROMPT_READY);
      submit(t, "!wc -l notes.txt");
      await t.waitForText(
        /^2 notes\.txt\n\(exit 0\)\nSend this output with your next message\? \[y\/N\]/m,
      );
      t.type("y");
      await t.waitForText(/\[y\/N\] y\n❯$/m);
      submit(t, "how many lines?");
      await t.waitForText(/^two lines\n❯$/m);
      expect(sentMessages(llm.requests.at(-1)!.body).at(-1)?.content).toBe(
        'how many lines?\n\n<shell command="wc -l notes.txt" exit="0">\n2 notes.txt\n</shell>',
      );
      submit(t, `!cat ${join(home.path, ".ssh", "id_rsa")}`);
      await t.waitForText(/✗ not run: .*\n❯$/m);
      expect(t.capturePane()).not.toContain("PRIVATE-KEY-CANARY");
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "--effort reaches every chat request (reasoning_effort), and never shows the reasoning",
    async () => {
      await using home = await tempDir();
      llm.push({ text: "thought about it" });
      await using t = chatTerm(home.path, llm, {
        args: ["--effort", "high"],
        env: { OPENAI_MODEL: "gpt-5.4" },
      });
      await t.waitForText(PROMPT_READY);
      submit(t, "think hard");
      await t.waitForText(/^thought about it\n❯$/m);
      expect((llm.requests.at(-1)!.body as { reasoning_effort?: string }).reasoning_effort).toBe(
        "high",
      );
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );
});
