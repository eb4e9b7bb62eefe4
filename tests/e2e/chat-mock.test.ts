/** `chatcli chat -m mock:script --fake-responses FILE`: a REPL that can be scripted, in tmux. */
import { describe, expect } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { TEST_NOW } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startTmux } from "../support/tmux.ts";
import { COMMAND, PROMPT_READY, submit, tmuxTest } from "./chat-term.ts";

describe("chatcli chat with mock:script", () => {
  tmuxTest("chat and /agent replay the scripted replies, tool calls included", async () => {
    await using home = await tempDir();
    await writeFile(join(home.path, "notes.txt"), "the port is 8080\n");
    const replies = join(home.path, "replies.jsonl");
    await writeFile(
      replies,
      [
        { text: "scripted hello" },
        { tool_calls: [{ name: "read_file", arguments: { file: "notes.txt" } }] },
        { text: "The port is 8080." },
      ]
        .map((r) => JSON.stringify(r))
        .join("\n"),
    );
    await using t = startTmux({
      command: [...COMMAND, "chat", "-m", "mock:script", "--fake-responses", replies],
      cwd: home.path,
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        HOME: home.path,
        TERM: "xterm-256color",
        LANG: "C.UTF-8",
        NO_COLOR: "1",
        CHATCLI_NOW: TEST_NOW,
        CHATCLI_MEMORY_ENABLED: "false",
      },
    });
    await t.waitForText(PROMPT_READY);
    expect(t.capturePane()).toContain("mock:script");
    submit(t, "hi");
    await t.waitForText(/^scripted hello$/m);
    submit(t, "/agent what port?");
    await t.waitForText(/▸ read_file notes\.txt/);
    await t.waitForText(/^The port is 8080\.$/m);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });
});
