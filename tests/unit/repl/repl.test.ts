import { describe, expect, test } from "bun:test";
import { runRepl } from "../../../lib/repl/repl.ts";
import type { ApprovalRequest } from "../../../lib/repl/services.ts";
import { FakeServices, type FakeTty, fakeTty } from "./fakes.ts";

/** The empty prompt drawn on a fresh line (cursor moved back after the prompt). */
/** The empty prompt, with or without the status row drawn under it (cursor moved back up). */
const PROMPT = /\r❯ (?:\u001b\[K\r\n[^\n]*)?\u001b\[J(?:\u001b\[1A)?\r\u001b\[2C$/;
const ESC = "\u001b";
const CTRL_C = "\u0003";
const CTRL_D = "\u0004";

function start(options: { color?: boolean; history?: string[] } = {}) {
  const tty = fakeTty({ NO_COLOR: "1" });
  const services = new FakeServices(tty.ctx.now);
  const saved: string[][] = [];
  const done = runRepl(tty.ctx, services, {
    color: options.color ?? false,
    history: options.history,
    saveHistory: async (entries) => {
      saved.push([...entries]);
    },
  });
  return { tty, services, done, saved };
}

/** Types `keys` and waits until the prompt is back. */
async function send(tty: FakeTty, ...keys: string[]): Promise<string> {
  const mark = tty.screen.mark();
  const back = tty.screen.waitFor(
    /\n\r❯ (?:\u001b\[K\r\n[^\n]*)?\u001b\[J(?:\u001b\[1A)?\r\u001b\[2C$/,
  );
  void tty.keyboard.type(...keys);
  await back;
  return tty.screen.since(mark);
}

describe("REPL", () => {
  test("a streamed answer is printed, added to history, and Ctrl+D exits cleanly", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    services.replies.push({ deltas: ["Hel", "lo **there**"] });
    const out = await send(tty, "hi\r");
    expect(out).toContain("Hello **there**\n");
    expect(services.messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello **there**" },
    ]);
    expect(services.calls).toEqual(["turn:hi", "nudge"]);
    void tty.keyboard.type(CTRL_D);
    expect(await done).toBe(0);
    expect(services.closed).toBe(true);
    expect(tty.keyboard.rawModes).toEqual([true, false]);
  });

  test("colour mode renders markdown in the answer", async () => {
    const { tty, services, done } = start({ color: true });
    await tty.screen.waitFor(/❯ /, true);
    services.replies.push({ deltas: ["**b**\n"] });
    const mark = tty.screen.mark();
    const back = tty.screen.waitFor(/\n\r\u001b\[1m\u001b\[36m❯ /);
    void tty.keyboard.type("x\r");
    await back;
    expect(tty.screen.raw().slice(mark)).toContain("\u001b[1mb");
    void tty.keyboard.type(CTRL_D);
    await done;
  });

  test("after a turn a status row under the prompt shows model, context used and cost; a spinner counts the wait", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    expect(tty.screen.plain()).not.toContain("context");
    services.replies.push({ deltas: ["ok"] });
    const out = await send(tty, "hi\r");
    expect(out).toMatch(/⠋ thinking 0\.\d+s \(Esc cancels\)/);
    expect(out).toContain("❯ \n  mock/test · context 100 · $0.0123\r");
    // submitting erases the row: the input line is redrawn without it
    const next = await send(tty, "/help\r");
    expect(next).toContain("\r❯ /help\r\n");
    void tty.keyboard.type(CTRL_D);
    await done;
  });

  test("Ctrl+C during a reply cancels it: partial answer discarded, history unchanged", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    let release = () => {};
    services.replies.push({
      deltas: ["partial"],
      hold: new Promise((r) => {
        release = r;
      }),
    });
    const streaming = tty.screen.waitFor(/partial/);
    void tty.keyboard.type("slow question\r");
    await streaming;
    const out = await send(tty, CTRL_C);
    expect(out).toContain("cancelled");
    expect(services.messages).toEqual([]);
    release();
    const again = await send(tty, "next\r");
    expect(again).toContain("echo: next");
    expect(services.messages.map((m) => m.content)).toEqual(["next", "echo: next"]);
    void tty.keyboard.type(CTRL_D);
    expect(await done).toBe(0);
  });

  test("Esc during a reply cancels it too, and keys typed meanwhile reach the next prompt", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    services.replies.push({ deltas: ["..."], hold: new Promise(() => {}) });
    const streaming = tty.screen.waitFor(/\.\.\./);
    void tty.keyboard.type("q\r");
    await streaming;
    const out = await send(tty, "ab", ESC);
    expect(out).toContain("cancelled");
    expect(services.messages).toEqual([]);
    const next = await send(tty, "c\r");
    expect(next).toContain("echo: abc");
    void tty.keyboard.type(CTRL_D);
    await done;
  });

  test("Esc Esc within 500 ms on an empty prompt opens the rewind menu; Enter restores", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    await send(tty, "one\r");
    tty.clock.now += 1000;
    await send(tty, "two\r");
    expect(services.messages).toHaveLength(4);
    const menu = tty.screen.waitFor(/Select \[1-2\]/);
    await tty.keyboard.type(ESC);
    tty.clock.now += 300;
    await tty.keyboard.type(ESC);
    await menu;
    const shown = tty.screen.plain();
    expect(shown).toContain("REWIND — Select a checkpoint to restore");
    expect(shown).toMatch(/❯ \[1\] {2}\d\d:\d\d:\d\d {2}2 msgs {2}one/);
    expect(shown).toMatch(/\[2\] {2}\d\d:\d\d:\d\d {2}0 msgs {2}\(start\)/);
    const out = await send(tty, `${ESC}[B`, "\r");
    expect(out).toMatch(/↩ Rewound to checkpoint \[2\] \(\d\d:\d\d:\d\d, 0 messages\)/);
    expect(services.messages).toEqual([]);
    void tty.keyboard.type(CTRL_D);
    await done;
  });

  test("Esc twice more than 500 ms apart does nothing; a number picks; Esc cancels", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    const none = await send(tty, "/rewind\r");
    expect(none).toContain("No checkpoints available yet.");
    await send(tty, "one\r");
    await send(tty, "two\r");
    await tty.keyboard.type(ESC);
    tty.clock.now += 600;
    await tty.keyboard.type(ESC);
    const cancelled = await send(tty, "/rewind\r", ESC);
    expect(cancelled).toContain("Rewind cancelled.");
    expect(services.calls.filter((c) => c.startsWith("rewind"))).toEqual([]);
    const picked = await send(tty, "/rewind\r", "1", "\r");
    expect(picked).toContain("↩ Rewound to checkpoint [1]");
    expect(services.messages.map((m) => m.content)).toEqual(["one", "echo: one"]);
    const invalid = await send(tty, "/rewind\r", "9", "\r");
    expect(invalid).toContain("Invalid selection.");
    void tty.keyboard.type(CTRL_D);
    await done;
  });

  test("Ctrl+C twice at an idle prompt exits; Ctrl+C with text only clears the line", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    const first = await send(tty, CTRL_C);
    expect(first).toContain("press Ctrl+C again or Ctrl+D to exit");
    await send(tty, "typed", CTRL_C);
    const stillHere = await send(tty, CTRL_C);
    expect(stillHere).toContain("press Ctrl+C again");
    void tty.keyboard.type(CTRL_C);
    expect(await done).toBe(0);
    expect(services.closed).toBe(true);
  });

  test("/agent asks before a tool call: Enter is not an answer, n denies", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    const answers: boolean[] = [];
    const request: ApprovalRequest = { tool: "run_command", summary: "rm notes.txt" };
    services.agentScript = async (cb) => {
      cb.onActivity("▸ planning");
      answers.push(await cb.approve(request));
      answers.push(await cb.approve(request));
      cb.onText("finished");
      return { text: "finished" };
    };
    const asked = tty.screen.waitFor(/Allow\? \[y\/n\] $/);
    void tty.keyboard.type("/agent clean up\r");
    await asked;
    const second = tty.screen.waitFor(/Allow\? \[y\/n\] $/);
    void tty.keyboard.type("\r");
    await tty.screen.waitFor(/type y or n/);
    void tty.keyboard.type("n");
    await second;
    const out = await send(tty, "y");
    expect(answers).toEqual([false, true]);
    expect(out).toContain("finished");
    expect(tty.screen.plain()).toContain("? run_command rm notes.txt");
    expect(services.calls).toEqual(["agent:clean up", "nudge"]);
    void tty.keyboard.type(CTRL_D);
    await done;
  });

  test("a: always allow — the same tool is not asked again this session; dangerous ones still are", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    const answers: boolean[] = [];
    const write: ApprovalRequest = {
      tool: "write_file",
      summary: "notes.txt",
      alwaysLabel: "write_file",
      alwaysKey: "write_file",
    };
    services.agentScript = async (cb) => {
      answers.push(await cb.approve(write));
      answers.push(await cb.approve({ ...write, summary: "other.txt" }));
      cb.onText("done");
      return { text: "done" };
    };
    const asked = tty.screen.waitFor(/Allow\? \[y\/n\/a\] $/);
    void tty.keyboard.type("/coder write\r");
    await asked;
    const out = await send(tty, "a");
    expect(answers).toEqual([true, true]);
    expect(out).toContain("write_file allowed (always, this session)");
    expect(tty.screen.plain()).toContain("? write_file notes.txt\n");
    expect(tty.screen.plain()).not.toContain("write_file write_file");
    void tty.keyboard.type(CTRL_D);
    await done;
  });

  test("a pasted line starting with / is a message; so is a path; an unknown /word with text asks", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    await send(tty, "\u001b[200~/compact everything\u001b[201~\r");
    await send(tty, "/var/log/app.log:12: error: boom\r");
    const asked = tty.screen.waitFor(/Send the line as a message\? \[y\/N\] $/);
    void tty.keyboard.type("/comapct keep the api\r");
    await asked;
    await send(tty, "n");
    const again = tty.screen.waitFor(/Send the line as a message\? \[y\/N\] $/);
    void tty.keyboard.type("/explain this\r");
    await again;
    await send(tty, "y");
    expect(await send(tty, "/nosuch\r")).toContain("Unknown command: /nosuch");
    expect(services.calls.filter((c) => c.startsWith("turn") || c.startsWith("compact"))).toEqual([
      "turn:/compact everything",
      "turn:/var/log/app.log:12: error: boom",
      "turn:/explain this",
    ]);
    void tty.keyboard.type(CTRL_D);
    await done;
  });

  test("dangerous calls need the word yes typed out", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    const answers: boolean[] = [];
    services.agentScript = async (cb) => {
      const req = { tool: "run_command", summary: "rm -rf build", dangerous: true };
      answers.push(await cb.approve(req));
      answers.push(await cb.approve(req));
      return { text: "" };
    };
    const asked = tty.screen.waitFor(/Type yes to allow/);
    void tty.keyboard.type("/coder tidy\r");
    await asked;
    const again = tty.screen.waitFor(/⚠ dangerous/);
    void tty.keyboard.type("y", "\r");
    await again;
    await send(tty, "yes", "\r");
    expect(answers).toEqual([false, true]);
    void tty.keyboard.type(CTRL_D);
    await done;
  });

  test("/compact shows phases live; Esc cancels it and keeps the history", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    services.compactScript = async (_signal, onPhase) => {
      onPhase("🧹 Trim: stripping reasoning/dedup (no LLM)…");
      return { status: "compacted", before: 12, after: 5 };
    };
    const out = await send(tty, "/compact\r");
    expect(out).toContain("  │ 🧹 Trim: stripping reasoning/dedup (no LLM)…\n");
    expect(out).toContain("📦 Compacted: 12 → 5 messages");
    services.compactScript = (signal, onPhase) => {
      onPhase("🧠 Summarizing old messages via LLM (may take 30-90s — ESC cancels)…");
      return new Promise((_, reject) =>
        signal.addEventListener("abort", () => reject(new Error("context canceled"))),
      );
    };
    const summarizing = tty.screen.waitFor(/ESC cancels/);
    void tty.keyboard.type("/compact keep the API\r");
    await summarizing;
    const cancelled = await send(tty, ESC);
    expect(cancelled).toContain("Compaction cancelled — the history is unchanged.");
    expect(tty.screen.plain()).toContain("📦 Compacting with instruction: keep the API");
    void tty.keyboard.type(CTRL_D);
    await done;
  });

  test("/session save, list, new, load", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    await send(tty, "remember this\r");
    expect(await send(tty, "/session save work\r")).toContain("Session 'work' saved successfully.");
    expect(await send(tty, "/session list\r")).toContain("Saved sessions:\n- work");
    expect(await send(tty, "/session new\r")).toContain("history has been cleared");
    expect(services.messages).toEqual([]);
    expect(await send(tty, "/session load work\r")).toContain("Session 'work' loaded.");
    expect(services.messages).toHaveLength(2);
    expect(await send(tty, "/session load nope\r")).toContain(
      "Error loading session: session 'nope' not found",
    );
    expect(await send(tty, "/session frob\r")).toContain("Unknown session command: 'frob'");
    void tty.keyboard.type(CTRL_D);
    await done;
  });

  test("/memory, /cost, /context, /model, /help and unknown commands", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    expect(await send(tty, "/memory remember I like tabs\r")).toContain(
      "OK memory remember I like tabs",
    );
    expect(services.calls).toContain("memory:remember I like tabs");
    expect(await send(tty, "/cost\r")).toContain("Cost:         $0.0123 (estimate)");
    expect(await send(tty, "/context\r")).toMatch(/system\s+100 tokens/);
    expect(await send(tty, "/model\r")).toContain("Model: mock/test");
    expect(await send(tty, "/model openai/gpt-4o\r")).toContain("Model switched to openai/gpt-4o");
    expect(await send(tty, "/help\r")).toContain("/compact [instruction]");
    expect(await send(tty, "/frob\r")).toContain("Unknown command: /frob");
    services.context = () => Promise.reject(new Error("bootstrap unreadable"));
    expect(await send(tty, "/context\r")).toContain("Error: bootstrap unreadable");
    void tty.keyboard.type("/exit\r");
    expect(await done).toBe(0);
  });

  test("input history: ↑ recalls earlier sessions' inputs; each input is saved as it is submitted", async () => {
    const { tty, services, done, saved } = start({ history: ["old question"] });
    await tty.screen.waitFor(PROMPT, true);
    await send(tty, `${ESC}[A`, "\r");
    expect(services.calls[0]).toBe("turn:old question");
    await send(tty, "line one\\\r", "line two\r");
    expect(services.calls).toContain("turn:line one\nline two");
    void tty.keyboard.type(CTRL_D);
    await done;
    expect(saved).toEqual([["old question"], ["line one\nline two"]]);
  });

  test("Tab completes slash commands; Alt+Enter and pastes make multi-line input", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    expect(await send(tty, "/hel", "\t", "\r")).toContain("Commands:");
    await send(tty, "a", `${ESC}\r`, "b\r");
    await send(tty, "\u001b[200~x\ny\u001b[201~\r");
    expect(services.calls.filter((c) => c.startsWith("turn"))).toEqual(["turn:a\nb", "turn:x\ny"]);
    void tty.keyboard.type(CTRL_D);
    await done;
  });

  test("memory notices print between turns; SIGTERM at the prompt exits 143 after saving", async () => {
    const { tty, services, done } = start();
    await tty.screen.waitFor(PROMPT, true);
    services.notices.push("memory: +2 fact(s)");
    expect(await send(tty, "hi\r")).toContain("memory: +2 fact(s)");
    tty.abort("SIGTERM");
    expect(await done).toBe(143);
    expect(services.closed).toBe(true);
  });
});
