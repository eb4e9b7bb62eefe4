import { describe, expect, test } from "bun:test";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { LlmEvent, LlmRequest } from "../../../lib/llm/types.ts";
import { sessionTitle } from "../../../lib/repl/session-files.ts";
import { createStandaloneServices } from "../../../lib/repl/standalone-services.ts";
import { run, tempDir } from "../../support/ctx.ts";
import { fakeTty } from "./fakes.ts";

/** Standalone services over a scripted provider, in a temp HOME. */
async function services(home: string, session?: string) {
  const tty = fakeTty({ HOME: home });
  const seen: LlmRequest[] = [];
  const svc = await createStandaloneServices(tty.ctx, {
    model: { provider: "mock", protocol: "mock", model: "echo" },
    ...(session ? { session } : {}),
  });
  // Swap the provider for a scripted one (the mock provider is still a placeholder).
  (svc as unknown as { provider: unknown }).provider = {
    name: "mock",
    model: "echo",
    async *stream(req: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
      seen.push(req);
      const last = req.messages.at(-1)?.content ?? "";
      yield { type: "text", text: `re: ${last}` };
      if (last === "hang") {
        if (signal.aborted) throw signal.reason;
        await new Promise((_, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason)),
        );
      }
      yield { type: "done", stop: "end" };
    },
  };
  return { svc, seen, tty };
}

describe("standalone REPL services", () => {
  test("turns append on success only; checkpoints follow the Go rules", async () => {
    await using home = await tempDir();
    const { svc, seen } = await services(home.path);
    await svc.sendTurn("first", { onText: () => {} }, new AbortController().signal);
    const ctl = new AbortController();
    const pending = svc.sendTurn("hang", { onText: () => ctl.abort() }, ctl.signal);
    await expect(pending).rejects.toBeDefined();
    expect(svc.history().map((m) => m.content)).toEqual(["first", "re: first"]);
    expect(seen[1]!.messages.map((m) => m.content)).toEqual(["first", "re: first", "hang"]);
    const cps = svc.listCheckpoints();
    expect(cps.map((c) => [c.index, c.messages, c.label])).toEqual([
      [1, 2, "first"],
      [2, 0, "(start)"],
    ]);
    const restored = await svc.rewind(2);
    expect(restored.messages).toBe(0);
    expect(svc.history()).toEqual([]);
    expect(svc.listCheckpoints()).toHaveLength(1);
  });

  test("long labels are cut to 57 bytes + ...; at most 20 checkpoints", async () => {
    await using home = await tempDir();
    const { svc } = await services(home.path);
    const signal = new AbortController().signal;
    await svc.sendTurn("x".repeat(80), { onText: () => {} }, signal);
    for (let i = 0; i < 20; i++) await svc.sendTurn(`q${i}`, { onText: () => {} }, signal);
    const cps = svc.listCheckpoints();
    expect(cps).toHaveLength(20);
    expect(cps.at(-1)!.label).toBe(`${"x".repeat(57)}...`);
  });

  test("sessions: save v2 with title, list, load, autosave on close, remove", async () => {
    await using home = await tempDir();
    const { svc } = await services(home.path);
    const signal = new AbortController().signal;
    await svc.sendTurn(
      "my  key is sk-abcdefghijklmnopqrstuvwxyz0123",
      { onText: () => {} },
      signal,
    );
    await svc.saveSession("work");
    const file = JSON.parse(await readFile(join(home.path, ".chatcli/sessions/work.json"), "utf8"));
    expect(file.version).toBe(2);
    expect(file.title).toBe("my key is sk-abcdefghijklmnopqrstuvwxyz0123");
    expect(JSON.stringify(file.chat_history)).not.toContain("sk-abcdefghijklmnop");
    expect(await svc.listSessions()).toEqual([{ name: "work", title: file.title }]);
    await expect(svc.saveSession("../bad")).rejects.toThrow("alphanumeric");
    svc.newSession();
    expect(await svc.close()).toBeUndefined();
    await svc.loadSession("work");
    expect(svc.history()).toHaveLength(2);
    expect(await svc.close()).toBe("Session 'work' saved.");
    expect(await svc.removeSession("work")).toBe(true);
    expect(svc.history()).toEqual([]);
    await expect(svc.loadSession("work")).rejects.toThrow("sessão 'work' não encontrada");
  });

  test("unbound sessions with a real exchange are auto-saved at exit", async () => {
    await using home = await tempDir();
    const { svc } = await services(home.path);
    await svc.sendTurn("hi", { onText: () => {} }, new AbortController().signal);
    expect(await svc.close()).toMatch(
      /^session auto-saved as autosave-\d{8}-\d{6} \(disable with CHATCLI_SESSION_AUTOSAVE=false\)$/,
    );
  });

  test("--session continues a legacy file and merges agent/coder histories", async () => {
    await using home = await tempDir();
    await mkdir(join(home.path, ".chatcli/sessions"), { recursive: true });
    await writeFile(
      join(home.path, ".chatcli/sessions/old.json"),
      JSON.stringify({
        version: 1,
        chat_history: [{ role: "user", content: "a" }],
        agent_history: [
          { role: "system", content: "s" },
          { role: "assistant", content: "b" },
        ],
      }),
    );
    const { svc } = await services(home.path, "old");
    expect(svc.history().map((m) => m.content)).toEqual(["a", "b"]);
    expect(svc.sessionName()).toBe("old");
  });

  test("title rule: first user message, collapsed, 60 runes + …", () => {
    expect(sessionTitle([{ role: "user", content: `  ${"é".repeat(70)}` }])).toBe(
      `${"é".repeat(60)}…`,
    );
    expect(sessionTitle([])).toBe("");
  });
});

describe("chatcli chat without a terminal", () => {
  test("exits 2 with a one-line reason", async () => {
    const r = await run(["chat"], { stdin: { kind: "tty" } });
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toBe(
      "chatcli: chat needs an interactive terminal (stdin and stdout must be TTYs); use `chatcli ask` in pipes and scripts\n",
    );
    expect((await run(["chat"], { stdin: "piped", stdoutTTY: true })).code).toBe(2);
  });

  test("a --session name that could not be saved is a usage error", async () => {
    const ctx = fakeTty({ HOME: "/nonexistent" }).ctx;
    const { runCli } = await import("../../../commands/cli.ts");
    const errors: string[] = [];
    const code = await runCli(["chat", "--session", "../etc"], {
      ...ctx,
      stderr: { isTTY: false, write: (t: string) => errors.push(t) > 0 },
    });
    expect(code).toBe(2);
    expect(errors.join("")).toContain("--session: session name must be alphanumeric");
  });
});
