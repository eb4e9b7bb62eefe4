/** The background memory worker in a real terminal (tmux): extraction after 4 new messages, its notice between turns. */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { chatTerm, PROMPT_READY, submit, tmuxTest } from "./chat-term.ts";

let llm: MockLlm;
beforeAll(async () => {
  llm = await startMockLlm();
});
afterAll(() => llm.close());

/**
 * Notices print between turns: presses Enter on the empty prompt, each time waiting for the next
 * empty prompt line, until `notice` shows.
 */
async function waitForNotice(t: ReturnType<typeof chatTerm>, notice: RegExp): Promise<void> {
  const emptyPrompts = () => (t.capturePane().match(/^❯$/gm) ?? []).length;
  while (!notice.test(t.capturePane())) {
    const n = emptyPrompts();
    expect(n).toBeLessThan(40);
    t.sendKeys("Enter");
    await t.waitForText(new RegExp(`(^❯$[\\s\\S]*){${n + 1}}`, "m"));
  }
}

describe("chatcli chat: memory worker", () => {
  tmuxTest(
    "after two turns facts are extracted in the background; the notice prints between turns",
    async () => {
      await using home = await tempDir();
      llm.push(
        { text: "a1" },
        { text: "a2" },
        {
          text: "## DAILY\n- talked about indentation\n\n## LONGTERM\n- [preference] The user indents with tabs",
        },
      );
      await using t = chatTerm(home.path, llm, {
        env: { CHATCLI_MEMORY_ENABLED: "true" },
        height: 60,
      });
      await t.waitForText(PROMPT_READY);
      submit(t, "I always indent with tabs");
      await t.waitForText(/^a1\n❯$/m);
      submit(t, "remember that");
      await t.waitForText(/^a2\n❯$/m);
      // the extraction request (4 new messages) arrives without any further input
      await llm.waitForHits(3);
      const prompt = JSON.stringify(llm.requests[2]!.body);
      expect(prompt).toContain("I always indent with tabs");
      // Notices print between turns (never over the line being typed)
      await waitForNotice(t, /memory: \+1 fact\(s\)/);
      submit(t, "/memory facts");
      await t.waitForText(/The user indents with tabs \[preference\]/);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest(
    "/cost counts the background extraction requests, with a line per purpose, priced to the cent's fraction",
    async () => {
      await using home = await tempDir();
      const before = llm.requests.length;
      llm.push(
        { text: "a1", usage: { input_tokens: 100, output_tokens: 5 } },
        { text: "a2", usage: { input_tokens: 120, output_tokens: 5 } },
        {
          text: "## LONGTERM\n- [preference] The user indents with tabs",
          usage: { input_tokens: 1400, output_tokens: 20 },
        },
      );
      await using t = chatTerm(home.path, llm, {
        env: { CHATCLI_MEMORY_ENABLED: "true", OPENAI_MODEL: "gpt-5.4" },
        height: 60,
      });
      await t.waitForText(PROMPT_READY);
      submit(t, "I always indent with tabs");
      await t.waitForText(/^a1\n❯$/m);
      submit(t, "remember that");
      await t.waitForText(/^a2\n❯$/m);
      await llm.waitForHits(before + 3);
      // the extraction's usage is counted once its answer is in, before its notice prints
      await waitForNotice(t, /memory: \+1 fact\(s\)/);
      submit(t, "/cost");
      await t.waitForText(/By purpose:\n(?:.*\n)*?\s+memory .*\n(?:.*\n)*?❯$/m);
      const screen = t.capturePane();
      expect(screen).toMatch(/Requests: +3/);
      expect(screen).toMatch(/Input: +1,620 tokens/);
      expect(screen).toMatch(/chat +2 requests +220 in +10 out +\$0\.\d+/);
      expect(screen).toMatch(/memory +1 request +1,400 in +20 out +\$0\.\d+/);
      expect(screen).not.toMatch(/Cost: +\$0\.0000/);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );
});
