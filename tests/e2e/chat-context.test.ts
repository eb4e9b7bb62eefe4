/** `/context attach|detach|list` in a real terminal (tmux): attached files ride in the cached system prompt. */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { chatTerm, PROMPT_READY, submit, tmuxTest } from "./chat-term.ts";

let llm: MockLlm;
beforeAll(async () => {
  llm = await startMockLlm();
});
afterAll(() => llm.close());

function systemText(index: number): string {
  const body = llm.requests[index]?.body as { messages: Array<{ role: string; content: string }> };
  return body.messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n");
}

describe("chatcli chat: attached context", () => {
  tmuxTest(
    "attach puts the file in the system prompt of every turn; list and detach; binary refused",
    async () => {
      await using home = await tempDir();
      writeFileSync(join(home.path, "notes.md"), "The deploy key is rotated on Fridays.\n");
      writeFileSync(join(home.path, "blob.bin"), new Uint8Array([0, 1, 2, 3]));
      llm.push({ text: "first" }, { text: "second" }, { text: "third" });
      const before = llm.requests.length;
      await using t = chatTerm(home.path, llm, { args: ["--session", "ctx"] });
      await t.waitForText(PROMPT_READY);
      submit(t, "/context attach notes.md");
      await t.waitForText(/notes\.md {2}~\d+ tokens/);
      submit(t, "/context attach blob.bin");
      await t.waitForText(/binary file/);
      submit(t, "when is the key rotated?");
      await t.waitForText(/^first\n❯$/m);
      expect(systemText(before)).toContain("The deploy key is rotated on Fridays.");
      submit(t, "/context list");
      await t.waitForText(/total ~\d+ tokens per turn/);
      submit(t, "/context detach notes.md");
      await t.waitForText(/no attached context/);
      submit(t, "and now?");
      await t.waitForText(/^second\n❯$/m);
      expect(systemText(before + 1)).not.toContain("rotated on Fridays");
      // The list is kept with the session: attach again, leave, come back.
      submit(t, "/context attach notes.md");
      await t.waitForText(/notes\.md {2}~\d+ tokens/);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
      await using again = chatTerm(home.path, llm, { args: ["--session", "ctx"] });
      await again.waitForText(PROMPT_READY);
      submit(again, "still there?");
      await again.waitForText(/^third\n❯$/m);
      expect(systemText(llm.requests.length - 1)).toContain("rotated on Fridays");
      again.sendKeys("C-d");
      expect(await again.waitForExit()).toBe(0);
    },
  );
});
