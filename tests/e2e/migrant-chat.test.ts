/** A Go ChatCLI user's first `chatcli chat` in a real terminal (tmux), against the mock LLM. */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { chatTerm, PROMPT_READY, sentMessages, submit, tmuxTest } from "./chat-term.ts";
import { GO_SESSION, writeGoHome } from "./migrant-home.ts";

let llm: MockLlm;
beforeAll(async () => {
  llm = await startMockLlm();
});
afterAll(() => llm.close());

const GO_HISTORY = "how do I set the proxy?\n/memory today\n/session load go-v2\n";

describe("chatcli chat in a Go ChatCLI home", () => {
  tmuxTest(
    "↑ recalls the Go ChatCLI's ./.chatcli_history; /session load continues a Go session and keeps what Go wrote",
    async () => {
      await using home = await tempDir();
      const { chatcli } = await writeGoHome(home.path);
      // Go keeps line-input history in the working directory (the terminal starts in $HOME here).
      writeFileSync(join(home.path, ".chatcli_history"), GO_HISTORY);
      llm.push({ text: "Set HTTP_PROXY too." });
      {
        await using t = chatTerm(home.path, llm, { env: { CHATCLI_SESSION_AUTOSAVE: "false" } });
        await t.waitForText(PROMPT_READY);
        t.sendKeys("Up");
        await t.waitForText(/❯ \/session load go-v2$/m);
        t.sendKeys("Up");
        await t.waitForText(/❯ \/memory today$/m);
        t.sendKeys("Down", "Enter");
        await t.waitForText(/Session 'go-v2' loaded\./);
        submit(t, "and for git?");
        await t.waitForText(/^Set HTTP_PROXY too\.\n❯$/m);
        t.sendKeys("C-d");
        expect(await t.waitForExit()).toBe(0);
      }
      const sent = sentMessages(llm.requests.at(-1)?.body);
      expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
      expect(JSON.stringify(llm.requests.at(-1)?.body)).not.toContain("ACTIVE MODE: /agent");
      // Go's file is read, never written; chatcli's own inputs go to its own file.
      expect(readFileSync(join(home.path, ".chatcli_history"), "utf8")).toBe(GO_HISTORY);
      expect(readFileSync(join(chatcli, ".chatcli_history"), "utf8")).toBe(
        "/session load go-v2\nand for git?\n",
      );
      const doc = JSON.parse(readFileSync(join(chatcli, "sessions", "go-v2.json"), "utf8"));
      expect(doc.x_future).toEqual(GO_SESSION.x_future);
      expect(doc.chat_history.slice(0, GO_SESSION.chat_history.length)).toEqual(
        GO_SESSION.chat_history,
      );
    },
  );

  tmuxTest(
    "a chat session counts in Go's usage_stats.json: session_count, last_session, average length",
    async () => {
      await using home = await tempDir();
      const { chatcli } = await writeGoHome(home.path);
      {
        await using t = chatTerm(home.path, llm, {
          env: { CHATCLI_MEMORY_ENABLED: "true", CHATCLI_SESSION_AUTOSAVE: "false", TZ: "UTC" },
        });
        await t.waitForText(PROMPT_READY);
        submit(t, "/memory stats");
        await t.waitForText(/Sessions: 13/);
        t.sendKeys("C-d");
        expect(await t.waitForExit()).toBe(0);
      }
      const text = readFileSync(join(chatcli, "memory", "usage_stats.json"), "utf8");
      const usage = JSON.parse(text);
      expect(text.trimEnd()).toBe(JSON.stringify(usage, null, 2));
      expect(usage.session_count).toBe(13);
      expect(usage.last_session).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      // 12 sessions averaging 1310.5 s, then one of a few seconds.
      expect(usage.avg_session_secs).toBeGreaterThan(1209);
      expect(usage.avg_session_secs).toBeLessThan(1310.5 - (1310.5 - 30) / 13);
      expect(usage.feature_usage).toEqual({ chat: 30, agent: 6, coder: 4 });
      expect(usage.common_errors[0].pattern).toBe("go: module not found");
    },
  );

  tmuxTest(
    "chat --session on a Go session: the memory worker extracts the new turns, not Go's old conversation again",
    async () => {
      await using home = await tempDir();
      await writeGoHome(home.path);
      const first = llm.requests.length;
      llm.push({ text: "one" }, { text: "two" }, { text: "NOTHING_NEW" }, { text: "NOTHING_NEW" });
      {
        await using t = chatTerm(home.path, llm, {
          args: ["--session", "go-v2"],
          env: { CHATCLI_MEMORY_ENABLED: "true", TZ: "UTC" },
        });
        await t.waitForText(PROMPT_READY);
        submit(t, "first new question");
        await t.waitForText(/^one\n❯$/m);
        submit(t, "second new question");
        await t.waitForText(/^two\n❯$/m);
        await llm.waitForHits(first + 4);
        t.sendKeys("C-d");
        expect(await t.waitForExit()).toBe(0);
      }
      const extractions = llm.requests
        .slice(first)
        .map((r) => JSON.stringify(r.body))
        .filter((b) => b.includes("CONVERSATION SEGMENT TO ANALYZE"));
      // Go's queued segment is drained first; then only the turns typed here.
      expect(extractions).toHaveLength(2);
      expect(extractions[0]).toContain("I switched from vim to neovim");
      expect(extractions[1]).toContain("first new question");
      expect(extractions[1]).toContain("second new question");
      for (const e of extractions) expect(e).not.toContain("how do I set the proxy?");
      expect(llm.requests).toHaveLength(first + 4);
    },
  );

  tmuxTest(
    "/agent in a loaded Go session: Go's agent prompt is not sent and stays in the file",
    async () => {
      await using home = await tempDir();
      const { chatcli } = await writeGoHome(home.path);
      const first = llm.requests.length;
      llm.push(
        { tool_calls: [{ name: "list_directory", arguments: { path: "." } }] },
        { text: "Listed it." },
      );
      {
        await using t = chatTerm(home.path, llm, {
          args: ["--session", "go-v2"],
          env: { CHATCLI_SESSION_AUTOSAVE: "false" },
        });
        await t.waitForText(PROMPT_READY);
        submit(t, "/agent list the files here");
        await t.waitForText(/Listed it\.\n❯$/m);
        t.sendKeys("C-d");
        expect(await t.waitForExit()).toBe(0);
      }
      const sent = llm.requests.slice(first).map((r) => JSON.stringify(r.body));
      expect(sent).toHaveLength(2);
      for (const body of sent) {
        expect(body).not.toContain("ACTIVE MODE: /agent");
        expect(body).toContain("Use HTTPS_PROXY.");
      }
      const doc = JSON.parse(readFileSync(join(chatcli, "sessions", "go-v2.json"), "utf8"));
      expect(doc.chat_history.slice(0, 5)).toEqual(GO_SESSION.chat_history);
      expect(doc.chat_history.at(-1)).toEqual({ role: "assistant", content: "Listed it." });
      expect(doc.x_future).toEqual(GO_SESSION.x_future);
    },
  );
});
