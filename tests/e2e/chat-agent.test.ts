/** `/agent` and `/coder` approvals, bare `chatcli`, exits and rendering in a real terminal (tmux). */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { chatTerm, PROMPT_READY, sentMessages, submit, tmuxTest } from "./chat-term.ts";

let llm: MockLlm;
beforeAll(async () => {
  llm = await startMockLlm();
});
afterAll(() => llm.close());

function toolMessages(body: unknown): string[] {
  const messages = (body as { messages: Array<{ role: string; content: string }> }).messages;
  return messages.filter((m) => m.role === "tool").map((m) => m.content);
}

describe("chatcli chat: /agent and /coder", () => {
  tmuxTest("/coder: y approves a write_file; the file is on disk", async () => {
    await using home = await tempDir();
    llm.push(
      { tool_calls: [{ name: "write_file", arguments: { file: "hello.txt", content: "hi\n" } }] },
      { text: "Wrote hello.txt." },
    );
    await using t = chatTerm(home.path, llm);
    await t.waitForText(PROMPT_READY);
    submit(t, "/coder create hello.txt");
    await t.waitForText(/write_file[^\n]*hello\.txt[\s\S]*Allow\? \[y\/n(?:\/a)?\]$/m);
    t.type("y");
    await t.waitForText(/Wrote hello\.txt\.\n❯$/m);
    expect(readFileSync(join(home.path, "hello.txt"), "utf8")).toBe("hi\n");
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest("/agent: a dangerous command needs the word yes; y alone denies", async () => {
    await using home = await tempDir();
    mkdirSync(join(home.path, "victim"));
    writeFileSync(join(home.path, "victim/keep"), "x");
    llm.push(
      { tool_calls: [{ name: "run_command", arguments: { cmd: "rm -rf victim" } }] },
      { text: "Left it alone." },
    );
    await using t = chatTerm(home.path, llm);
    await t.waitForText(PROMPT_READY);
    submit(t, "/agent clean up");
    await t.waitForText(/dangerous[\s\S]*Type yes to allow/);
    t.type("y");
    t.sendKeys("Enter");
    await t.waitForText(/Left it alone\.\n❯$/m);
    expect(existsSync(join(home.path, "victim/keep"))).toBe(true);
    expect(toolMessages(llm.requests.at(-1)!.body).join("\n")).toMatch(/denied/i);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest("Esc at an approval cancels the run; history unchanged; chat goes on", async () => {
    await using home = await tempDir();
    llm.push(
      { tool_calls: [{ name: "run_command", arguments: { cmd: "touch nope" } }] },
      { text: "plain" },
    );
    await using t = chatTerm(home.path, llm);
    await t.waitForText(PROMPT_READY);
    submit(t, "/agent make nope");
    await t.waitForText(/Allow\? \[y\/n(?:\/a)?\]$/m);
    t.sendKeys("Escape");
    await t.waitForText(/cancelled[\s\S]*\n❯$/m);
    expect(existsSync(join(home.path, "nope"))).toBe(false);
    submit(t, "hello");
    await t.waitForText(/^plain\n❯$/m);
    const body = llm.requests.at(-1)!.body as {
      messages: Array<{ role: string; content: string }>;
    };
    expect(body.messages.filter((m) => m.role !== "system")).toEqual([
      { role: "user", content: "hello" },
    ]);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });
});

describe("chatcli chat: starting and leaving", () => {
  tmuxTest("--color always renders bold and code blocks without the markers", async () => {
    await using home = await tempDir();
    llm.push({ text: "- item **one**\n\n```sh\necho hi\n```\nafter" });
    await using t = chatTerm(home.path, llm, { args: ["--color", "always"] });
    await t.waitForText(PROMPT_READY);
    submit(t, "show me");
    const screen = await t.waitForText(/after\n❯/);
    expect(screen).toContain("• item one");
    expect(screen).not.toContain("**");
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest(
    "--color always: tables drawn with box characters and fitted to the terminal; fences hidden, the language shown",
    async () => {
      await using home = await tempDir();
      llm.push({
        text: "| tool | what it does |\n|---|---|\n| grep | searches text in files for a pattern you give it |\n\n```ts\nconst x = 1;\n```\nsee _above_\n",
      });
      await using t = chatTerm(home.path, llm, { args: ["--color", "always"], width: 40 });
      await t.waitForText(PROMPT_READY);
      submit(t, "table please");
      const screen = await t.waitForText(/see above\n❯/);
      expect(screen).toContain("┌──────┬");
      expect(screen).toMatch(/│ grep │ searches text in files for a +│/);
      expect(screen).not.toContain("```");
      expect(screen).toContain("  ts\n  const x = 1;\n");
      for (const line of screen.split("\n"))
        expect(Array.from(line).length).toBeLessThanOrEqual(40);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "a running command shows with its elapsed seconds; Esc stops it and the run",
    async () => {
      await using home = await tempDir();
      Bun.spawnSync(["mkfifo", join(home.path, "never")]);
      llm.push({ tool_calls: [{ name: "run_command", arguments: { cmd: "cat never" } }] });
      await using t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      submit(t, "/agent wait for it");
      await t.waitForText(/\$ cat never {2}\d+\.\ds \(Esc stops\)/);
      t.sendKeys("Escape");
      await t.waitForText(/cancelled[\s\S]*\n❯$/m);
      expect(t.capturePane()).not.toMatch(/Esc stops\)\s*$/);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "--color always: long prose wraps at word boundaries to the terminal's width",
    async () => {
      await using home = await tempDir();
      const prose =
        "the quick brown fox jumps over the lazy dog while seventeen curious onlookers watch the whole spectacle unfold";
      llm.push({ text: `${prose}\n` });
      await using t = chatTerm(home.path, llm, { args: ["--color", "always"], width: 40 });
      await t.waitForText(PROMPT_READY);
      submit(t, "tell me");
      const screen = await t.waitForText(/unfold\n❯/);
      const rows = screen
        .slice(screen.indexOf("the quick"), screen.indexOf("\n❯", screen.indexOf("unfold")))
        .split("\n");
      expect(rows.length).toBeGreaterThan(2);
      for (const row of rows) expect(Array.from(row).length).toBeLessThanOrEqual(40);
      expect(rows.map((r) => r.trim()).join(" ")).toBe(prose);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest("bare chatcli on a TTY opens the chat", async () => {
    await using home = await tempDir();
    await using t = chatTerm(home.path, llm, { command: [] });
    await t.waitForText(/chatcli [^\n]*\/help for commands[\s\S]*❯$/m);
    submit(t, "/exit");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest("/exit and Ctrl+C twice save the bound session", async () => {
    await using home = await tempDir();
    llm.push({ text: "a1" }, { text: "a2" });
    {
      await using t = chatTerm(home.path, llm, { args: ["--session", "s1"] });
      await t.waitForText(PROMPT_READY);
      submit(t, "q1");
      await t.waitForText(/^a1\n❯$/m);
      submit(t, "/exit");
      await t.waitForText(/Session 's1' saved\./);
      expect(await t.waitForExit()).toBe(0);
    }
    await using t = chatTerm(home.path, llm, { args: ["--session", "s1"] });
    await t.waitForText(/session: s1 \(2 messages\)/);
    submit(t, "q2");
    await t.waitForText(/^a2\n❯$/m);
    t.sendKeys("C-c");
    await t.waitForText(/press Ctrl\+C again/);
    t.sendKeys("C-c");
    await t.waitForText(/Session 's1' saved\./);
    expect(await t.waitForExit()).toBe(0);
    const file = JSON.parse(readFileSync(join(home.path, ".chatcli/sessions/s1.json"), "utf8"));
    expect(file.chat_history.map((m: { content: string }) => m.content)).toEqual([
      "q1",
      "a1",
      "q2",
      "a2",
    ]);
  });

  tmuxTest("a long streamed line wraps and the prompt still comes back", async () => {
    await using home = await tempDir();
    const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    llm.push({ text: `${long}\n\n- item **one**\n- item two\n\n\`\`\`sh\necho hi\n\`\`\`` });
    await using t = chatTerm(home.path, llm, { width: 60 });
    await t.waitForText(PROMPT_READY);
    submit(t, "x".repeat(130));
    const screen = await t.waitForText(/echo hi[\s\S]*\n❯$/m);
    expect(screen).toContain("word39");
    // NO_COLOR: the markdown passes through as written
    expect(screen).toContain("- item **one**");
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest(
    "a narrower terminal while typing: the input is redrawn once, not duplicated",
    async () => {
      await using home = await tempDir();
      llm.push({ text: "got it" });
      await using t = chatTerm(home.path, llm, { width: 60, height: 20 });
      await t.waitForText(PROMPT_READY);
      const line = `${"a".repeat(50)} ${"b".repeat(50)}`;
      t.type(line);
      await t.waitForText(/^b{43}$/m);
      t.resize(30, 20);
      t.type("C");
      // 2 + 101 + 1 columns on a 30-column terminal: four rows, one prompt
      const screen = await t.waitForText(/^❯ a{28}\na{22} b{7}\nb{30}\nb{13}C$/m);
      expect(screen.match(/❯/g)).toHaveLength(1);
      // nothing of the old, wider drawing is left above the prompt
      expect(screen.match(/^a{22} b{7}$/gm)).toHaveLength(1);
      t.resize(80, 20);
      t.sendKeys("Enter");
      await t.waitForText(/^got it\n❯$/m);
      expect(sentMessages(llm.requests.at(-1)!.body)).toEqual([
        { role: "user", content: `${line}C` },
      ]);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );
});
