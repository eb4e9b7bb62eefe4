/** The REPL in a real terminal (tmux) against streams cut off and refused: never a completed turn. */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { chunk, comment, sse } from "../support/wire-fixtures.ts";
import { chatTerm, PROMPT_READY, sentMessages, submit, tmuxTest } from "./chat-term.ts";

let llm: MockLlm;
beforeAll(async () => {
  llm = await startMockLlm();
});
afterAll(() => llm.close());

describe("chatcli chat: a stream cut off mid-answer", () => {
  tmuxTest("the error is printed, and the partial answer is not kept in the history", async () => {
    await using home = await tempDir();
    llm.push({ text: "a1" });
    llm.pushRaw(
      sse([
        comment("OPENROUTER PROCESSING"),
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "The half-sent ans" }),
      ]),
    );
    llm.push({ text: "recovered" });
    await using t = chatTerm(home.path, llm, { env: { CHATCLI_RETRY_BASE_MS: "1" } });
    await t.waitForText(PROMPT_READY);
    submit(t, "q1");
    await t.waitForText(/^a1\n❯$/m);
    submit(t, "q2");
    await t.waitForText(/Error: [^\n]*without finish_reason or \[DONE\][^\n]*\n❯$/m);
    submit(t, "q3");
    await t.waitForText(/^recovered\n❯$/m);
    const sent = sentMessages(llm.requests.at(-1)!.body).map((m) => m.content);
    expect(sent).toEqual(["q1", "a1", "q3"]);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });
});
