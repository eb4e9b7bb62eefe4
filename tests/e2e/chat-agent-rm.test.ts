/** issue 10: `rm -rf ./build` approved in the REPL is a tool result, never the end of the run. */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { chatTerm, PROMPT_READY, submit, tmuxTest } from "./chat-term.ts";

let llm: MockLlm;
beforeAll(async () => {
  llm = await startMockLlm();
});
afterAll(() => llm.close());

describe("chatcli chat: /agent with a directory target", () => {
  tmuxTest(
    "rm -rf ./build approved with yes: removed, the model gets the result, chat goes on",
    async () => {
      await using home = await tempDir();
      mkdirSync(join(home.path, "build", "sub"), { recursive: true });
      writeFileSync(join(home.path, "build", "app.js"), "1");
      writeFileSync(join(home.path, "build", "sub", "x.map"), "2");
      llm.push(
        {
          tool_calls: [
            { id: "call_rm", name: "run_command", arguments: { cmd: "rm -rf ./build" } },
          ],
        },
        { text: "Build removed." },
      );
      await using t = chatTerm(home.path, llm, { env: { CHATCLI_SANDBOX: "off" } });
      await t.waitForText(PROMPT_READY);
      submit(t, "/agent clean the build");
      await t.waitForText(/dangerous[\s\S]*Type yes to allow/);
      t.type("yes");
      t.sendKeys("Enter");
      await t.waitForText(/Build removed\.\n❯$/m);
      expect(t.capturePane()).not.toContain("cannot snapshot");
      expect(existsSync(join(home.path, "build"))).toBe(false);
      const body = llm.requests.at(-1)?.body as {
        messages: Array<{ role: string; tool_call_id?: string; content: string }>;
      };
      const results = body.messages.filter((m) => m.role === "tool");
      expect(results.map((m) => m.tool_call_id)).toEqual(["call_rm"]);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );
});
