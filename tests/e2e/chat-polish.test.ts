/**
 * The REPL's rough edges from a first hour, in a real terminal (tmux): /compact summarises, the status
 * row follows /compact and /rewind, a rewind puts the prompt back, a stopped `!command` offers
 * nothing, a paste's newline is not a line, an approved command shows its output, edit approvals show
 * the file's lines, and an emptied autosave is not left behind.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import type { TmuxSession } from "../support/tmux.ts";
import { chatTerm, PROMPT_READY, sentMessages, submit, tmuxTest } from "./chat-term.ts";

let llm: MockLlm;
beforeAll(async () => {
  llm = await startMockLlm();
});
afterAll(() => llm.close());

/** Chat turns; each answer ends with its own marker, waited for (long answers wrap). */
async function turns(t: TmuxSession, pairs: Array<[string, string]>) {
  for (const [i, [q, a]] of pairs.entries()) {
    llm.push({ text: `${a} END${i}` });
    submit(t, q);
    await t.waitForText(new RegExp(`END${i}\\n❯`, "m"));
  }
}

/** The context figure of the status row under the prompt (`context 1.2k/128k`), in tokens. */
function contextOf(screen: string): number {
  const m = [...screen.matchAll(/· context ([\d.]+)(k?)\//g)].at(-1);
  if (!m) throw new Error(`no status row on the screen:\n${screen}`);
  return Number(m[1]) * (m[2] === "k" ? 1000 : 1);
}

describe("chatcli chat: first-hour polish", () => {
  tmuxTest(
    "/compact with no instruction summarises (level 2) and the status row shrinks with it",
    async () => {
      await using home = await tempDir();
      await using t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      const long = (n: number) => `answer ${n} ${"lorem ipsum ".repeat(150)}`.trim();
      await turns(
        t,
        Array.from({ length: 6 }, (_, i) => [`q${i + 1}`, long(i + 1)] as [string, string]),
      );
      const before = contextOf(await t.waitForText(/· context /));
      llm.push({ text: "## Key Decisions\n- short" });
      submit(t, "/compact");
      await t.waitForText(/🧠 Summarizing \d+ old messages/);
      const screen = await t.waitForText(/📦 Compacted: 12 → \d+ messages[\s\S]*· context /);
      const after = Number(/📦 Compacted: 12 → (\d+) messages/.exec(screen)?.[1]);
      expect(after).toBeLessThan(12);
      expect(contextOf(screen)).toBeLessThan(before);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "a rewind puts the rewound prompt back in the input and refreshes the status row; Esc Esc clears it",
    async () => {
      await using home = await tempDir();
      await using t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      await turns(t, [
        ["first question", `a1 ${"x ".repeat(2000)}`],
        ["second question", `a2 ${"y ".repeat(2000)}`],
      ]);
      const before = contextOf(await t.waitForText(/· context /));
      t.sendKeys("Escape", "Escape");
      await t.waitForText(/Select \[1-2\]/);
      t.sendKeys("Enter"); // [1]: before "second question"
      const screen = await t.waitForText(/↩ Rewound to checkpoint \[1\][^\n]*\n❯ second question/);
      expect(contextOf(screen)).toBeLessThan(before);
      // the text can be edited and sent again
      llm.push({ text: "again" });
      t.type(" please");
      t.sendKeys("Enter");
      await t.waitForText(/^again\n❯/m);
      expect(sentMessages(llm.requests.at(-1)!.body).map((m) => m.content)).toEqual([
        "first question",
        expect.stringMatching(/^a1 /),
        "second question please",
      ]);
      // after another rewind, Esc Esc on the put-back text clears it; again opens the menu
      t.sendKeys("Escape", "Escape");
      await t.waitForText(/again\n❯\nREWIND[\s\S]*Select \[1-\d\]/);
      t.sendKeys("Enter");
      await t.waitForText(/↩ Rewound[^\n]*\n❯ second question please\n[^\n]*· context[^\n]*$/);
      t.sendKeys("Escape", "Escape");
      await t.waitForText(/↩ Rewound[^\n]*\n❯\n[^\n]*· context[^\n]*$/);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  // sandboxed (no sandbox_off notice, which would stop the running-command line waited on here)
  (SANDBOX_MISSING ? test.skip : tmuxTest)(
    "!sleep 30 stopped with Esc: said once, its output is not offered",
    async () => {
      await using home = await tempDir();
      await using t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      submit(t, "!sleep 30");
      await t.waitForText(/\$ sleep 30 +\d+\.\ds \(Esc stops\)/);
      t.sendKeys("Escape");
      const screen = await t.waitForText(/🛑 !sleep 30 stopped\n❯$/m);
      expect(screen).not.toContain("Send this output");
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest("a paste ending in a newline is one line: no empty line is sent", async () => {
    await using home = await tempDir();
    await using t = chatTerm(home.path, llm);
    await t.waitForText(PROMPT_READY);
    llm.push({ text: "pasted ok" });
    const hits = llm.requests.length;
    t.paste("the copied line\n");
    await t.waitForText(/^❯ the copied line$/m);
    t.sendKeys("Enter");
    await t.waitForText(/^pasted ok\n❯/m);
    expect(llm.requests.length).toBe(hits + 1);
    expect(sentMessages(llm.requests.at(-1)!.body).at(-1)?.content).toBe("the copied line");
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest(
    "an approved run_command shows the last lines of its output, not only its exit",
    async () => {
      await using home = await tempDir();
      await using t = chatTerm(home.path, llm, { env: { CHATCLI_SANDBOX: "off" } });
      await t.waitForText(PROMPT_READY);
      llm.push(
        {
          tool_calls: [
            {
              name: "run_command",
              arguments: { cmd: "touch made.txt && printf 'l1\\nl2\\nl3\\nl4\\nl5\\nl6\\nl7\\n'" },
            },
          ],
        },
        { text: "Ran it." },
      );
      submit(t, "/agent make the file");
      await t.waitForText(/Allow\? \[y\/n\]$/m);
      t.type("y");
      const screen = await t.waitForText(/Ran it\.\n❯/);
      expect(screen).toMatch(
        /▸ run_command [^\n]*→ exit 0[^\n]*\n\s+│ … 2 earlier lines\n\s+│ l3\n/,
      );
      expect(screen).toMatch(/│ l7\n/);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "patch_file and multipatch approvals show the file's lines around the change",
    async () => {
      await using home = await tempDir();
      writeFileSync(join(home.path, "a.ts"), "one\ntwo\nconst a = 1;\nfour\nfive\n");
      writeFileSync(join(home.path, "b.ts"), "bee\n");
      await using t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      llm.push(
        {
          tool_calls: [
            { name: "patch_file", arguments: { file: "a.ts", search: "a = 1", replace: "a = 2" } },
          ],
        },
        {
          tool_calls: [
            {
              name: "multipatch",
              arguments: {
                edits: [
                  { file: "a.ts", search: "four", replace: "FOUR" },
                  { file: "b.ts", search: "bee", replace: "BEE" },
                ],
              },
            },
          ],
        },
        { text: "Both refused." },
      );
      submit(t, "/coder change them");
      const patch = await t.waitForText(/Allow\? \[y\/n\/a\]$/m);
      expect(patch).toMatch(
        / one\n\s+ two\n\s+-const a = 1;\n\s+\+const a = 2;\n\s+ four\n\s+ five/,
      );
      t.type("n");
      const multi = await t.waitForText(/\+FOUR[\s\S]*Allow\? \[y\/n\/a\]$/m);
      expect(multi).toMatch(
        /a\.ts\n\s+ two\n\s+ const a = 1;\n\s+-four\n\s+\+FOUR\n\s+ five\n\s+b\.ts\n\s+-bee\n\s+\+BEE/,
      );
      t.type("n");
      await t.waitForText(/Both refused\.\n❯/);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest("rewinding to the start and leaving keeps no empty autosave session", async () => {
    await using home = await tempDir();
    await using t = chatTerm(home.path, llm);
    await t.waitForText(PROMPT_READY);
    await turns(t, [["only question", "only answer"]]);
    const sessions = join(home.path, ".chatcli", "sessions");
    expect(readdirSync(sessions).some((f) => f.endsWith(".json"))).toBe(true);
    t.sendKeys("Escape", "Escape");
    await t.waitForText(/Select \[1-1\]/);
    t.sendKeys("Enter");
    await t.waitForText(/0 messages\)\n❯ only question$/m);
    t.sendKeys("C-u", "C-d");
    expect(await t.waitForExit()).toBe(0);
    const left = existsSync(sessions) ? readdirSync(sessions) : [];
    expect(left.filter((f) => f.startsWith("autosave-"))).toEqual([]);
  });
});
