/** `/session`, autosave, `/cost`, `/context`, `/model` and errors in a real terminal (tmux) against the mock LLM. */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { chatTerm, PROMPT_READY, sentMessages, submit, tmuxTest } from "./chat-term.ts";

let llm: MockLlm;
beforeAll(async () => {
  llm = await startMockLlm();
});
afterAll(() => llm.close());

function sessionFiles(home: string): string[] {
  const dir = join(home, ".chatcli/sessions");
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")) : [];
}

describe("chatcli chat: sessions", () => {
  tmuxTest("CHATCLI_SESSION_AUTOSAVE=false writes no session file", async () => {
    await using home = await tempDir();
    llm.push({ text: "ok" });
    await using t = chatTerm(home.path, llm, { env: { CHATCLI_SESSION_AUTOSAVE: "false" } });
    await t.waitForText(PROMPT_READY);
    submit(t, "hello");
    await t.waitForText(/^ok\n❯$/m);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
    expect(t.capturePane()).not.toContain("auto-saved");
    expect(sessionFiles(home.path)).toEqual([]);
  });

  tmuxTest("save, new, load, list and rm", async () => {
    await using home = await tempDir();
    llm.push({ text: "noted" }, { text: "fresh" }, { text: "it was 42" });
    await using t = chatTerm(home.path, llm);
    await t.waitForText(PROMPT_READY);
    submit(t, "the number is 42");
    await t.waitForText(/^noted\n❯$/m);
    submit(t, "/session save nums");
    await t.waitForText(/Session 'nums' saved successfully\./);
    // the autosaved copy of this conversation is gone now that it has a name
    expect(sessionFiles(home.path)).toEqual(["nums.json"]);
    submit(t, "/session new");
    await t.waitForText(/New conversation session started; history has been cleared\./);
    submit(t, "other");
    await t.waitForText(/^fresh\n❯$/m);
    expect(sentMessages(llm.requests.at(-1)!.body)).toEqual([{ role: "user", content: "other" }]);
    submit(t, "/session load nums");
    await t.waitForText(/Session 'nums' loaded\. The previous conversation has been restored\./);
    submit(t, "what was the number?");
    await t.waitForText(/^it was 42\n❯$/m);
    expect(sentMessages(llm.requests.at(-1)!.body).map((m) => m.content)).toEqual([
      "the number is 42",
      "noted",
      "what was the number?",
    ]);
    submit(t, "/session list");
    await t.waitForText(/Saved sessions:\n(- .*\n)*- nums — the number is 42/);
    submit(t, "/session load nope");
    await t.waitForText(/Error loading session: session 'nope' not found/);
    submit(t, "/session rm nums");
    await t.waitForText(/Session 'nums' successfully deleted from disk\./);
    await t.waitForText(/It was the current session: the conversation has been cleared\./);
    expect(sessionFiles(home.path)).not.toContain("nums.json");
    submit(t, "/session rm nums");
    await t.waitForText(/Error deleting session: session 'nums' not found/);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });
  tmuxTest(
    "/session save keeps the rewind menu; an older session of that name leaves no trace",
    async () => {
      await using home = await tempDir();
      {
        // an older conversation saved as "proj", with its own checkpoints
        llm.push({ text: "old answer" });
        await using t = chatTerm(home.path, llm, { args: ["--session", "proj"] });
        await t.waitForText(PROMPT_READY);
        submit(t, "old question");
        await t.waitForText(/^old answer\n❯$/m);
        t.sendKeys("C-d");
        expect(await t.waitForExit()).toBe(0);
      }
      llm.push({ text: "a1" }, { text: "a2" });
      await using t = chatTerm(home.path, llm);
      await t.waitForText(PROMPT_READY);
      submit(t, "q1");
      await t.waitForText(/^a1\n❯$/m);
      submit(t, "q2");
      await t.waitForText(/^a2\n❯$/m);
      submit(t, "/session save proj");
      await t.waitForText(/Session 'proj' saved successfully\./);
      t.sendKeys("Escape", "Escape");
      const menu = (await t.waitForText(/Select \[1-2\]/)).split("REWIND").at(-1)!;
      expect(menu).toMatch(/❯ \[1\] {2}\d\d:\d\d:\d\d {2}2 msgs {2}q2/);
      expect(menu).toMatch(/\[2\] {2}\d\d:\d\d:\d\d {2}0 msgs {2}q1/);
      expect(menu).not.toContain("old question");
      t.sendKeys("Escape");
      await t.waitForText(/Rewind cancelled\./);
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
    },
  );

  tmuxTest("two terminals on one --session: each turn continues from the other's", async () => {
    await using home = await tempDir();
    llm.push({ text: "ra" }, { text: "rb" });
    await using a = chatTerm(home.path, llm, { args: ["--session", "shared"] });
    await using b = chatTerm(home.path, llm, { args: ["--session", "shared"] });
    await a.waitForText(PROMPT_READY);
    await b.waitForText(PROMPT_READY);
    submit(a, "from A");
    await a.waitForText(/^ra\n❯$/m);
    submit(b, "from B");
    const screen = await b.waitForText(/^rb\n❯$/m);
    expect(screen).toMatch(
      /session 'shared' was updated by another chatcli; continuing from it \(2 messages\)/,
    );
    expect(sentMessages(llm.requests.at(-1)!.body).map((m) => m.content)).toEqual([
      "from A",
      "ra",
      "from B",
    ]);
    b.sendKeys("C-d");
    expect(await b.waitForExit()).toBe(0);
    const file = JSON.parse(readFileSync(join(home.path, ".chatcli/sessions/shared.json"), "utf8"));
    expect(file.chat_history.map((m: { content: string }) => m.content)).toEqual([
      "from A",
      "ra",
      "from B",
      "rb",
    ]);
    // A leaving does not put its older copy back over B's turn
    a.sendKeys("C-d");
    await a.waitForText(/Session 'shared' was saved by another chatcli since; left as it is\./);
    expect(await a.waitForExit()).toBe(0);
    const after = JSON.parse(
      readFileSync(join(home.path, ".chatcli/sessions/shared.json"), "utf8"),
    );
    expect(after.chat_history).toHaveLength(4);
  });
});

describe("chatcli chat: /cost, /context, /model", () => {
  tmuxTest("/cost shows the session's usage; /context the next request", async () => {
    await using home = await tempDir();
    llm.push({ text: "fine", usage: { input_tokens: 1200, output_tokens: 30 } });
    await using t = chatTerm(home.path, llm);
    await t.waitForText(PROMPT_READY);
    submit(t, "how are you");
    await t.waitForText(/^fine\n❯$/m);
    submit(t, "/cost");
    const screen = await t.waitForText(/Cost: .*/);
    expect(screen).toMatch(/Requests: +1/);
    expect(screen).toMatch(/Input: +1,200 tokens/);
    expect(screen).toMatch(/Output: +30 tokens/);
    submit(t, "/context");
    await t.waitForText(
      /Next request \(2 messages in the conversation\)[\s\S]*total +[\d,]+ tokens/,
    );
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest("/cost prices each request at the model it went to, across /model", async () => {
    await using home = await tempDir();
    const million = {
      input_tokens: 1_000_000,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    llm.push({ text: "from gpt-4o", usage: million }, { text: "from haiku", usage: million });
    await using t = chatTerm(home.path, llm, {
      env: {
        OPENAI_MODEL: "gpt-4o",
        ANTHROPIC_API_KEY: "sk-ant-mock",
        ANTHROPIC_BASE_URL: llm.url,
      },
    });
    await t.waitForText(PROMPT_READY);
    submit(t, "one");
    await t.waitForText(/^from gpt-4o\n❯$/m);
    submit(t, "/model anthropic/claude-haiku-4-5");
    await t.waitForText(/Model switched to anthropic\/claude-haiku-4-5/);
    submit(t, "two");
    await t.waitForText(/^from haiku\n❯$/m);
    submit(t, "/cost");
    // $2.50 (1M input at gpt-4o) + $1.00 (1M input at claude-haiku-4-5)
    const screen = await t.waitForText(/Cost: +\$[\d.]+/);
    expect(screen).toMatch(/Input: +2,000,000 tokens/);
    expect(screen).toMatch(/Cost: +\$3\.5000/);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest("/model switches provider: the next turn goes to the Anthropic API", async () => {
    await using home = await tempDir();
    llm.push({ text: "from openai" }, { text: "from claude" });
    await using t = chatTerm(home.path, llm, {
      env: { ANTHROPIC_API_KEY: "sk-ant-mock", ANTHROPIC_BASE_URL: llm.url },
    });
    await t.waitForText(PROMPT_READY);
    submit(t, "one");
    await t.waitForText(/^from openai\n❯$/m);
    submit(t, "/model anthropic/claude-test");
    await t.waitForText(/Model switched to anthropic\/claude-test/);
    submit(t, "two");
    await t.waitForText(/^from claude\n❯$/m);
    const last = llm.requests.at(-1)!;
    expect(last.path).toBe("/v1/messages");
    expect((last.body as { model: string }).model).toBe("claude-test");
    submit(t, "/model nonsense-provider/x");
    await t.waitForText(/Error: /);
    submit(t, "/model");
    await t.waitForText(/Model: anthropic\/claude-test/);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest("a provider error is printed; the prompt is back; history unchanged", async () => {
    await using home = await tempDir();
    llm.push({ text: "a1" }, { error: { status: 500, message: "boom" } }, { text: "recovered" });
    await using t = chatTerm(home.path, llm);
    await t.waitForText(PROMPT_READY);
    submit(t, "q1");
    await t.waitForText(/^a1\n❯$/m);
    submit(t, "first try");
    await t.waitForText(/Error: [^\n]*\n❯$/m);
    // a failed turn changed nothing, so it leaves no checkpoint: one per user turn that happened
    t.sendKeys("Escape", "Escape");
    const menu = await t.waitForText(/Select \[1-1\]/);
    expect(menu).toMatch(/❯ \[1\] {2}\d\d:\d\d:\d\d {2}0 msgs {2}q1/);
    expect(menu).not.toContain("first try\nSelect");
    t.sendKeys("Escape");
    await t.waitForText(/Rewind cancelled\./);
    submit(t, "second try");
    await t.waitForText(/^recovered\n❯$/m);
    expect(sentMessages(llm.requests.at(-1)!.body).map((m) => m.content)).toEqual([
      "q1",
      "a1",
      "second try",
    ]);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest("a session file that does not parse is moved aside and said so", async () => {
    await using home = await tempDir();
    mkdirSync(join(home.path, ".chatcli/sessions"), { recursive: true });
    writeFileSync(join(home.path, ".chatcli/sessions/broken.json"), "{not json");
    await using t = chatTerm(home.path, llm, { args: ["--session", "broken"] });
    await t.waitForText(/session file [^\n]*broken\.json did not parse[\s\S]*❯$/m);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });

  tmuxTest("a retried request says so on its own line, also after an /agent run", async () => {
    await using home = await tempDir();
    llm.push(
      { text: "agent done" },
      { error: { status: 429, message: "slow down", retry_after: 0 } },
      { text: "answer after retry" },
    );
    await using t = chatTerm(home.path, llm, {
      env: { CHATCLI_MAX_RETRIES: "1", CHATCLI_RETRY_BASE_MS: "1" },
    });
    await t.waitForText(PROMPT_READY);
    submit(t, "/agent say done");
    await t.waitForText(/^agent done\n❯$/m);
    submit(t, "hello");
    const screen = await t.waitForText(/^answer after retry\n❯$/m);
    expect(screen).toMatch(
      /❯ hello\nHTTP 429 from openai — retrying in [\d.]+ s \(attempt 1\)\nanswer after retry\n/,
    );
    const history = sentMessages(llm.requests.at(-1)!.body).map((m) => m.content);
    expect(history).toEqual(["say done", "agent done", "hello"]);
    t.sendKeys("C-d");
    expect(await t.waitForExit()).toBe(0);
  });
});
