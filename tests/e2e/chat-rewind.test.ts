/** Cancelling, guided /compact and rewinding across compaction and /agent, in a real terminal (tmux). */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { chatTerm, PROMPT_READY, sentMessages, submit, tmuxTest } from "./chat-term.ts";

let llm: MockLlm;
beforeAll(async () => {
  llm = await startMockLlm();
});
afterAll(() => llm.close());

async function turns(t: ReturnType<typeof chatTerm>, pairs: Array<[string, string]>) {
  for (const [q, a] of pairs) {
    llm.push({ text: a });
    submit(t, q);
    await t.waitForText(new RegExp(`^${a}\\n❯$`, "m"));
  }
}

describe("chatcli chat: cancel and rewind", () => {
  tmuxTest(
    "Esc cancels a stalled stream: partial answer discarded, history unchanged",
    async () => {
      await using home = await tempDir();
      await using t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      await turns(t, [["q1", "a1"]]);
      llm.push({ text: "half an answ", stall: true });
      submit(t, "stall please");
      await t.waitForText(/^half/m);
      t.sendKeys("Escape");
      await t.waitForText(/🛑 Request cancelled[^\n]*\n❯$/m);
      await turns(t, [["q2", "a2"]]);
      expect(sentMessages(llm.requests.at(-1)!.body).map((m) => m.content)).toEqual([
        "q1",
        "a1",
        "q2",
      ]);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest("/compact INSTRUCTION with too few messages says so and asks nothing", async () => {
    await using home = await tempDir();
    await using t = chatTerm(home.path, llm);
    await t.waitForText(PROMPT_READY);
    await turns(t, [
      ["q1", "a1"],
      ["q2", "a2"],
    ]);
    const hits = llm.requests.length;
    submit(t, "/compact keep everything");
    await t.waitForText(/Not enough messages to compact with instruction\.\n❯$/m);
    expect(t.capturePane()).not.toContain("✓ Compacted");
    expect(llm.requests.length).toBe(hits);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest(
    "/compact INSTRUCTION, then rewinding to before it restores the full history",
    async () => {
      await using home = await tempDir();
      await using t = chatTerm(home.path, llm, { args: ["--session", "guided"] });
      await t.waitForText(PROMPT_READY);
      await turns(t, [
        ["q1", "a1"],
        ["q2", "a2"],
        ["q3", "a3"],
      ]);
      llm.push({ text: "## API\n- keep q1" });
      submit(t, "/compact keep the API decisions");
      await t.waitForText(/📦 Compacting with instruction: keep the API decisions/);
      // the task (q1) is kept verbatim; a1 is summarised
      await t.waitForText(/✓ Compacted: 6 → 6 messages \(preserved: keep the API decisions\)/);
      await turns(t, [["q4", "a4"]]);
      const compacted = sentMessages(llm.requests.at(-1)!.body);
      expect(compacted).toHaveLength(7);
      expect(compacted[0]!.content).toBe("q1");
      expect(String(compacted[1]!.content)).toContain("[COMPACTED CONTEXT");
      t.sendKeys("Escape", "Escape");
      const menu = await t.waitForText(/Select \[1-\d+\]/);
      // newest first: the q4 turn, then the /compact itself (taken before it replaced the history)
      expect(menu).toMatch(/❯ \[1\] {2}\d\d:\d\d:\d\d {2}6 msgs {2}q4/);
      expect(menu).toMatch(/\[2\] {2}\d\d:\d\d:\d\d {2}6 msgs {2}\/compact keep the API decisions/);
      t.type("2");
      t.sendKeys("Enter");
      await t.waitForText(
        /↩ Rewound to checkpoint \[2\] \(\d\d:\d\d:\d\d, 6 messages\)\n❯ \/compact keep the API decisions/,
      );
      t.sendKeys("C-u"); // the rewound command is back in the input
      await turns(t, [["q5", "a5"]]);
      expect(sentMessages(llm.requests.at(-1)!.body).map((m) => m.content)).toEqual([
        "q1",
        "a1",
        "q2",
        "a2",
        "q3",
        "a3",
        "q5",
      ]);
      // the menu now starts at the restored point's successor
      t.sendKeys("Escape", "Escape");
      const after = (await t.waitForText(/a5\n❯\nREWIND[\s\S]*Select \[1-\d+\]/))
        .split("REWIND")
        .at(-1)!;
      expect(after).toMatch(/❯ \[1\] {2}\d\d:\d\d:\d\d {2}6 msgs {2}q5/);
      expect(after).not.toContain("q4");
      t.sendKeys("Escape");
      await t.waitForText(/Rewind cancelled\./);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest("rewinding past an /agent run drops its messages", async () => {
    await using home = await tempDir();
    await using t = chatTerm(home.path, llm);
    await t.waitForText(PROMPT_READY);
    await turns(t, [["q1", "a1"]]);
    llm.push(
      { tool_calls: [{ name: "list_directory", arguments: { path: "." } }] },
      { text: "Listed." },
    );
    submit(t, "/agent look around");
    await t.waitForText(/Listed\.\n❯$/m);
    t.sendKeys("Escape", "Escape");
    const menu = await t.waitForText(/Select \[1-\d+\]/);
    const agentRow = /\[(\d+)\] {2}\d\d:\d\d:\d\d {2}2 msgs {2}\/agent look around/.exec(menu);
    expect(agentRow).not.toBeNull();
    t.type(agentRow![1]!);
    t.sendKeys("Enter");
    await t.waitForText(
      /↩ Rewound to checkpoint \[\d+\] \(\d\d:\d\d:\d\d, 2 messages\)\n❯ \/agent look around/,
    );
    t.sendKeys("C-u");
    await turns(t, [["q2", "a2"]]);
    expect(sentMessages(llm.requests.at(-1)!.body).map((m) => m.content)).toEqual([
      "q1",
      "a1",
      "q2",
    ]);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest(
    "one checkpoint per /coder turn; rewinding it offers conversation, code or both and names the files",
    async () => {
      await using home = await tempDir();
      writeFileSync(join(home.path, "a.txt"), "original\n");
      await using t = chatTerm(home.path, llm, { height: 40 });
      await t.waitForText(PROMPT_READY);
      await turns(t, [["q1", "a1"]]);
      llm.push(
        {
          tool_calls: [{ name: "write_file", arguments: { file: "a.txt", content: "changed\n" } }],
        },
        { tool_calls: [{ name: "write_file", arguments: { file: "b.txt", content: "new\n" } }] },
        { text: "Edited." },
      );
      submit(t, "/coder edit the files");
      await t.waitForText(/Allow\? \[y\/n\/a\]/);
      t.type("a");
      await t.waitForText(/Edited\.\n❯$/m);
      expect(readFileSync(join(home.path, "a.txt"), "utf8")).toBe("changed\n");
      t.sendKeys("Escape", "Escape");
      const menu = await t.waitForText(/Select \[1-2\]/);
      expect(menu).toMatch(/\[1\] {2}\d\d:\d\d:\d\d {2}2 msgs {2}\/coder edit the files/);
      expect(menu).toMatch(/\[2\] {2}\d\d:\d\d:\d\d {2}0 msgs {2}q1/);
      t.sendKeys("Enter");
      const asked = await t.waitForText(/Restore \(c\)onversation, co\(d\)e or \(b\)oth\?/);
      expect(asked).toMatch(/modified +a\.txt/);
      expect(asked).toMatch(/deleted +b\.txt/);
      t.type("b");
      await t.waitForText(
        /↩ Rewound to checkpoint \[1\] \(\d\d:\d\d:\d\d, 2 messages, 2 file\(s\) restored\)/,
      );
      expect(readFileSync(join(home.path, "a.txt"), "utf8")).toBe("original\n");
      expect(existsSync(join(home.path, "b.txt"))).toBe(false);
      await t.waitForText(/\n❯ \/coder edit the files/);
      t.sendKeys("C-u", "C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "the rewind menu fits a 40x10 terminal: it scrolls with the selection, never into scrollback",
    async () => {
      await using home = await tempDir();
      await using t = chatTerm(home.path, llm, { width: 40, height: 10 });
      await t.waitForText(PROMPT_READY);
      const pairs: Array<[string, string]> = Array.from({ length: 12 }, (_, i) => [
        `q${i + 1}`,
        `a${i + 1}`,
      ]);
      await turns(t, pairs);
      t.sendKeys("Escape", "Escape");
      await t.waitForText(/Select \[1-12\]/);
      for (let i = 0; i < 11; i++) t.sendKeys("Down");
      const screen = await t.waitForText(/❯ \[12\] .* q1$/m);
      expect(screen).toMatch(/^REWIND \(↑5 more\) — /m);
      expect(screen.split("\n").length).toBeLessThanOrEqual(10);
      for (const line of screen.split("\n"))
        expect(Array.from(line).length).toBeLessThanOrEqual(40);
      t.sendKeys("Escape");
      await t.waitForText(/Rewind cancelled\./);
      expect(t.captureHistory().match(/REWIND/g)?.length).toBe(1);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest("after rewinding to the very first checkpoint, the menu still lists it", async () => {
    await using home = await tempDir();
    await using t = chatTerm(home.path, llm);
    await t.waitForText(PROMPT_READY);
    await turns(t, [
      ["q1", "a1"],
      ["q2", "a2"],
    ]);
    t.sendKeys("Escape", "Escape");
    await t.waitForText(/Select \[1-2\]/);
    t.type("2");
    t.sendKeys("Enter");
    await t.waitForText(/↩ Rewound to checkpoint \[2\] \(\d\d:\d\d:\d\d, 0 messages\)\n❯ q1$/m);
    t.sendKeys("C-u", "Escape", "Escape");
    const menu = (await t.waitForText(/0 messages\)\n❯\nREWIND[\s\S]*Select \[1-1\]/))
      .split("REWIND")
      .at(-1)!;
    expect(menu).toMatch(/❯ \[1\] {2}\d\d:\d\d:\d\d {2}0 msgs {2}q1/);
    t.sendKeys("Escape");
    await t.waitForText(/Rewind cancelled\./);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });
});
