/** `/agent @role …` and the delegate tool in the REPL (tmux). */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { chatTerm, PROMPT_READY, sentMessages, submit, tmuxTest } from "./chat-term.ts";

let llm: MockLlm;
beforeAll(async () => {
  llm = await startMockLlm();
});
afterAll(() => llm.close());

const toolNames = (body: unknown) =>
  ((body as { tools?: Array<{ function: { name: string } }> }).tools ?? [])
    .map((t) => t.function.name)
    .sort();

describe("chatcli chat: AGENTS.md roles", () => {
  tmuxTest(
    "/agent @dba runs the role (its instructions and tools); a delegate's sub-agent sees only its task",
    async () => {
      await using home = await tempDir();
      writeFileSync(
        join(home.path, "AGENTS.md"),
        "## @dba\nread_only: true\ntools: read_file, search_files, write_file\nDBA-INSTRUCTIONS\n",
      );
      llm.push({ text: "Tables: users." });
      await using t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      const before = llm.requests.length;
      submit(t, "/agent @dba list tables");
      await t.waitForText(/Tables: users\.\n❯$/m);
      const first = llm.requests[before]?.body;
      expect(JSON.stringify(first)).toContain("DBA-INSTRUCTIONS");
      expect(toolNames(first)).toEqual(["read_file", "search_files"]);
      expect(sentMessages(first).at(-1)).toEqual({ role: "user", content: "list tables" });

      llm.push(
        {
          tool_calls: [
            { id: "d1", name: "delegate", arguments: { role: "dba", prompt: "count rows" } },
          ],
        },
        { text: "SUB-ANSWER 42" },
        { text: "There are 42 rows." },
      );
      const start = llm.requests.length;
      submit(t, "/agent PARENT-TASK how many rows");
      await t.waitForText(/There are 42 rows\.\n❯$/m);
      const sub = llm.requests[start + 1]?.body;
      expect(sentMessages(sub)).toEqual([{ role: "user", content: "count rows" }]);
      expect(JSON.stringify(sub)).not.toContain("PARENT-TASK");
      expect(JSON.stringify(sub)).not.toContain("Tables: users.");
      expect(toolNames(sub)).toEqual(["read_file", "search_files"]);
      expect(JSON.stringify(llm.requests[start + 2]?.body)).toContain("SUB-ANSWER 42");
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );
});
