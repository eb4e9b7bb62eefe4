import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AskRequest } from "../../../lib/agent/approval.ts";
import { runAgent } from "../../../lib/agent/loop.ts";
import type { Tool } from "../../../lib/agent/types.ts";
import { ProviderError } from "../../../lib/llm/errors.ts";
import type { LlmEvent } from "../../../lib/llm/types.ts";
import { tempDir } from "../../support/ctx.ts";
import { agentInput, ScriptedProvider, writeTree } from "./support.ts";

describe("runAgent", () => {
  test("native calls: results go back as role tool messages paired by id; final text returned", async () => {
    await using d = await tempDir();
    await writeTree(d.path, { "a.txt": "hello\n" });
    const provider = new ScriptedProvider([
      {
        calls: [
          { name: "read_file", arguments: { file: "a.txt" } },
          { name: "list_directory", arguments: {} },
        ],
      },
      { text: "It says hello." },
    ]);
    const { input } = agentInput(d.path, provider);
    const r = await runAgent(input);
    expect(r.terminalReason).toBe("completed");
    expect(r.finalText).toBe("It says hello.");
    expect(r.numTurns).toBe(2);
    expect(r.tools).toEqual({
      calls: 2,
      failed: 0,
      denied: 0,
      by_name: { read_file: 1, list_directory: 1 },
    });
    const second = provider.requests[1]?.messages ?? [];
    expect(second.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(second[2]).toMatchObject({
      role: "tool",
      tool_call_id: "call_1_1",
      content: "a.txt (lines 1-1 of 1)\n1 | hello",
    });
    expect(second[3]?.tool_call_id).toBe("call_1_2");
  });

  test("text-format calls in messy prose are parsed and answered with one feedback message", async () => {
    await using d = await tempDir();
    await writeTree(d.path, { "a.txt": "x\n" });
    const provider = new ScriptedProvider([
      {
        text: `<reasoning>check</reasoning>\nSure!\n<tool_call name="@coder" args='{"cmd":"read","args":{"file":"a.txt"}}' />\ntrailing words`,
      },
      { text: "done" },
    ]);
    const { input } = agentInput(d.path, provider);
    const r = await runAgent(input);
    expect(r.finalText).toBe("done");
    const feedback = provider.requests[1]?.messages.at(-1);
    expect(feedback).toMatchObject({ role: "user", meta: { agent_feedback: true } });
    expect(feedback?.content).toContain(
      "--- [1] read_file (ok) ---\na.txt (lines 1-1 of 1)\n1 | x",
    );
  });

  test("unknown tool, bad JSON and schema violations become error results; the loop continues", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      {
        calls: [
          { name: "delete_everything", arguments: {} },
          { name: "read_file", arguments: {}, raw: '{"file": ' },
          { name: "read_file", arguments: { start: "x" } },
          { name: "patch_file", arguments: { file: "a", search: "s" } },
        ],
      },
      { text: "sorry" },
    ]);
    const { input } = agentInput(d.path, provider);
    const r = await runAgent(input);
    expect(r.terminalReason).toBe("completed");
    expect(r.tools.failed).toBe(4);
    const results = (provider.requests[1]?.messages ?? [])
      .filter((m) => m.role === "tool")
      .map((m) => m.content);
    expect(results[0]).toStartWith('error: unknown tool "delete_everything". Available tools: ');
    expect(results[1]).toContain("not valid JSON");
    expect(results[2]).toContain('"file" is required; "start" must be an integer');
    expect(results[3]).toContain('"replace" is required');
  });

  test("without a TTY an ask is denied at once, returned to the model and listed", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      { calls: [{ name: "write_file", arguments: { file: "x.txt", content: "x" } }] },
      { text: "I could not write." },
    ]);
    const { input, ctx } = agentInput(d.path, provider, {
      policy: {
        mode: "read-only",
        allow: [],
        deny: [],
        onAsk: "deny",
        workspaceRoot: d.path,
        cwd: d.path,
      },
    });
    const r = await runAgent(input);
    // the only thing it tried was denied: the run could do nothing it was asked (exit 6)
    expect(r.terminalReason).toBe("blocked");
    expect(r.permissionDenials).toMatchObject([{ tool: "write_file", input: "x.txt", turn: 1 }]);
    expect(r.permissionDenials[0]?.reason).toContain("no TTY; --on-ask deny");
    expect(provider.requests[1]?.messages.at(-1)?.content).toStartWith(
      "error: permission denied — edits need --permission-mode edit",
    );
    expect(await Bun.file(join(d.path, "x.txt")).exists()).toBe(false);
    expect(ctx.err()).toContain("▸ write_file x.txt → denied (");
  });

  test("--on-ask fail ends the run with permission_denied (exit 6) and runs nothing after", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      {
        calls: [
          { name: "run_command", arguments: { cmd: "touch made" } },
          { name: "read_file", arguments: { file: "y" } },
        ],
      },
    ]);
    const { input } = agentInput(d.path, provider, {
      policy: {
        mode: "read-only",
        allow: [],
        deny: [],
        onAsk: "fail",
        workspaceRoot: d.path,
        cwd: d.path,
      },
    });
    const r = await runAgent(input);
    expect(r.terminalReason).toBe("permission_denied");
    expect(r.error?.exitCode).toBe(6);
    expect(r.error?.hint).toContain("--permission-mode auto");
    expect(await Bun.file(join(d.path, "made")).exists()).toBe(false);
    expect(provider.requests).toHaveLength(1);
  });

  test("dangerous commands: denied without a TTY even in auto; on a TTY only an explicit yes runs them", async () => {
    await using d = await tempDir();
    await writeTree(d.path, { "dir/f": "x" });
    const script = () =>
      new ScriptedProvider([
        { calls: [{ name: "run_command", arguments: { cmd: "ls && rm -rf dir" } }] },
        { text: "ok" },
      ]);
    const auto = {
      mode: "auto" as const,
      allow: [],
      deny: [],
      onAsk: "fail" as const,
      workspaceRoot: d.path,
      cwd: d.path,
    };
    const headless = await runAgent(agentInput(d.path, script(), { policy: auto }).input);
    expect(headless.terminalReason).toBe("blocked");
    expect(headless.permissionDenials[0]?.reason).toContain("recursive or forced deletion");
    const asked: AskRequest[] = [];
    const no = await runAgent(
      agentInput(d.path, script(), {
        policy: auto,
        ask: async (q) => {
          asked.push(q);
          return false;
        },
      }).input,
    );
    expect(no.permissionDenials).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      tool: "run_command",
      input: "ls && rm -rf dir",
      dangerous: true,
    });
    expect(await Bun.file(join(d.path, "dir/f")).exists()).toBe(true);
    const yes = await runAgent(
      agentInput(d.path, script(), { policy: auto, ask: async () => true }).input,
    );
    expect(yes.permissionDenials).toHaveLength(0);
    expect(await Bun.file(join(d.path, "dir/f")).exists()).toBe(false);
  });

  test("max turns → max_turns (exit 4)", async () => {
    await using d = await tempDir();
    await writeTree(d.path, { "a.txt": "1\n2\n3\n4\n5\n" });
    const provider = new ScriptedProvider(
      [
        (req) => ({
          calls: [{ name: "read_file", arguments: { file: "a.txt", start: req.messages.length } }],
        }),
      ],
      { repeatLast: true },
    );
    const { input } = agentInput(d.path, provider, { limits: { maxTurns: 3 } });
    const r = await runAgent(input);
    expect(r.terminalReason).toBe("max_turns");
    expect(r.error?.exitCode).toBe(4);
    expect(r.numTurns).toBe(3);
    expect(provider.requests).toHaveLength(3);
  });

  test("budget → max_budget (exit 5); the over-budget turn's calls are closed, not run", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider(
      [
        (req) => ({
          calls: [
            { name: "run_command", arguments: { cmd: `echo ${req.messages.length} >> log` } },
          ],
        }),
      ],
      { repeatLast: true },
    );
    const { input } = agentInput(d.path, provider, {
      limits: { maxTurns: 10, maxBudgetUsd: 1 },
      costOf: () => 0.6,
    });
    const r = await runAgent(input);
    expect(r.terminalReason).toBe("max_budget");
    expect(r.error?.exitCode).toBe(5);
    expect(r.costUsd).toBeCloseTo(1.2);
    expect(await readFile(join(d.path, "log"), "utf8")).toBe("1\n");
    expect(r.messages.at(-1)).toMatchObject({
      role: "tool",
      content: "not executed: --max-budget-usd reached",
    });
  });

  test("stagnation → exit 7 after N identical turns; disabled by CHATCLI_AGENT_EARLY_EXIT=0", async () => {
    await using d = await tempDir();
    await writeTree(d.path, { "a.txt": "x\n" });
    const same = { calls: [{ name: "read_file", arguments: { file: "a.txt" } }] };
    const r = await runAgent(
      agentInput(d.path, new ScriptedProvider([same], { repeatLast: true })).input,
    );
    expect(r.terminalReason).toBe("stagnation");
    expect(r.error?.exitCode).toBe(7);
    expect(r.error?.hint).toContain("CHATCLI_AGENT_EARLY_EXIT=0");
    expect(r.tools.calls).toBe(2);
    const { input, ctx } = agentInput(d.path, new ScriptedProvider([same], { repeatLast: true }), {
      limits: { maxTurns: 5 },
    });
    const off = await runAgent({ ...input, env: { ...ctx.env, CHATCLI_AGENT_EARLY_EXIT: "0" } });
    expect(off.terminalReason).toBe("max_turns");
  });

  test("timeout while the model hangs → timeout (exit 124)", async () => {
    await using d = await tempDir();
    const { input } = agentInput(d.path, new ScriptedProvider([{ hang: true }]), {
      limits: { maxTurns: 5, timeoutMs: 50 },
    });
    const r = await runAgent(input);
    expect(r.terminalReason).toBe("timeout");
    expect(r.error?.exitCode).toBe(124);
  });

  test("abort mid-tool kills the command and ends cancelled", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      {
        calls: [
          { name: "run_command", arguments: { cmd: "sleep 30" } },
          { name: "write_file", arguments: { file: "after.txt", content: "x" } },
        ],
      },
      { text: "never" },
    ]);
    const { input, ctx } = agentInput(d.path, provider, { format: "stream-json" });
    const emit = input.emit;
    input.emit = (event) => {
      emit(event);
      if (event.type === "tool.started") ctx.abort("SIGTERM");
    };
    const started = performance.now();
    const r = await runAgent(input);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(r.terminalReason).toBe("cancelled");
    expect(provider.requests).toHaveLength(1);
    expect(r.messages.at(-2)?.content).toContain("[cancelled; process killed]");
    expect(r.messages.at(-1)?.content).toBe("not executed: the run stopped before this call");
    expect(await Bun.file(join(d.path, "after.txt")).exists()).toBe(false);
  });

  test("tool output is capped per result with a head+tail marker", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      { calls: [{ name: "run_command", arguments: { cmd: "seq 1 20000" } }] },
      { text: "ok" },
    ]);
    const { input, ctx } = agentInput(d.path, provider);
    await runAgent({ ...input, env: { ...ctx.env, CHATCLI_TOOL_RESULT_MAX_CHARS: "2000" } });
    const result = provider.requests[1]?.messages.at(-1)?.content ?? "";
    expect(result.length).toBeLessThanOrEqual(2000);
    expect(result).toContain("chars omitted (output capped at 2000 chars)");
    expect(result).toStartWith("exit code: 0\n1\n2\n");
    expect(result).toEndWith("19999\n20000");
  });

  test("requests keep a byte-stable prefix (system, sorted tools, history) for the prompt cache", async () => {
    await using d = await tempDir();
    await writeTree(d.path, { "a.txt": "x\n" });
    const provider = new ScriptedProvider([
      { calls: [{ name: "read_file", arguments: { file: "a.txt" } }] },
      { text: "ok" },
    ]);
    const { input } = agentInput(d.path, provider);
    const r = await runAgent(input);
    const [a, b] = provider.requests;
    expect(JSON.stringify(b?.system)).toBe(JSON.stringify(a?.system));
    expect(JSON.stringify(b?.tools)).toBe(JSON.stringify(a?.tools));
    expect(JSON.stringify(b?.messages.slice(0, a?.messages.length))).toBe(
      JSON.stringify(a?.messages),
    );
    const names = a?.tools?.map((t) => t.name) ?? [];
    expect(names).toEqual([...names].sort());
    expect(r.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  test("stream-json events follow CONTRACT §2", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      {
        text: "writing",
        calls: [{ name: "write_file", arguments: { file: "n.txt", content: "hi" } }],
      },
      { text: "done" },
    ]);
    const { input, ctx } = agentInput(d.path, provider, { format: "stream-json" });
    const r = await runAgent(input);
    const events = ctx
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.map((e) => e.type)).toEqual([
      "session.started",
      "turn.started",
      "message.delta",
      "message.delta",
      "message.completed",
      "permission.decided",
      "tool.started",
      "file.changed",
      "tool.completed",
      "turn.completed",
      "turn.started",
      "message.delta",
      "message.delta",
      "message.completed",
      "turn.completed",
    ]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.find((e) => e.type === "file.changed")).toMatchObject({
      path: "n.txt",
      change: "created",
    });
    expect(events.find((e) => e.type === "tool.completed")).toMatchObject({
      status: "ok",
      name: "write_file",
    });
    expect(r.filesChanged).toEqual([{ path: "n.txt", change: "created" }]);
  });

  test("text mode: one stderr line per tool call", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      { calls: [{ name: "run_command", arguments: { cmd: "exit 1" } }] },
      { text: "failed" },
    ]);
    const { input, ctx } = agentInput(d.path, provider);
    await runAgent(input);
    expect(ctx.err()).toMatch(/^▸ run_command exit 1 → exit 1 \(\d+\.\d s\)\n$/);
    expect(ctx.out()).toBe("");
  });

  test("smart routing: agent + auto answers a question without tools; coder is never re-routed", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([{ text: "42" }]);
    const { input, ctx } = agentInput(d.path, provider, {
      mode: "agent",
      task: "what is the answer?",
    });
    await runAgent({ ...input, env: { ...ctx.env, CHATCLI_AGENT_SMART_ROUTE: "auto" } });
    expect(provider.requests[0]?.tools).toBeUndefined();
    const coder = new ScriptedProvider([{ text: "42" }]);
    const c = agentInput(d.path, coder, { mode: "coder", task: "what is the answer?" });
    await runAgent({ ...c.input, env: { ...c.ctx.env, CHATCLI_AGENT_SMART_ROUTE: "auto" } });
    expect(coder.requests[0]?.tools?.length).toBeGreaterThan(0);
    const hint = agentInput(d.path, new ScriptedProvider([{ text: "42" }]), {
      mode: "agent",
      task: "what is the answer?",
    });
    await runAgent(hint.input);
    expect(hint.ctx.err()).toContain("looks conversational");
  });

  test("a reply cut by max_tokens is continued", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      { text: "part one, ", stop: "max_tokens" },
      { text: "part two" },
    ]);
    const r = await runAgent(agentInput(d.path, provider).input);
    expect(r.finalText).toBe("part one, part two");
    expect(provider.requests[1]?.messages.at(-1)?.content).toContain(
      "Continue exactly where you stopped",
    );
  });

  test("a provider that ignores the abort signal still cannot outlive --timeout", async () => {
    await using d = await tempDir();
    const stubborn = {
      name: "mock",
      model: "stubborn",
      async *stream(): AsyncIterable<LlmEvent> {
        await new Promise(() => {});
      },
    };
    const { input } = agentInput(d.path, stubborn, { limits: { maxTurns: 3, timeoutMs: 30 } });
    const r = await runAgent(input);
    expect(r.terminalReason).toBe("timeout");
  });

  test("memory writes are counted and emitted; recalls are not", async () => {
    await using d = await tempDir();
    const facts: string[] = [];
    const memory = {
      remember: async (c: string) => {
        facts.push(c);
        return `Remembered: ${c}`;
      },
      profile: async () => "Profile updated",
      forget: async () => "Removed 0 matching fact(s).",
      recall: async () => facts.join("\n"),
    };
    const provider = new ScriptedProvider([
      { calls: [{ name: "memory", arguments: { cmd: "remember", content: "project uses bun" } }] },
      { calls: [{ name: "memory", arguments: { cmd: "recall", query: "bun" } }] },
      { text: "noted" },
    ]);
    const { input, ctx } = agentInput(d.path, provider, {
      memory,
      memoryMode: "write",
      format: "stream-json",
    });
    const r = await runAgent(input);
    expect(r.memoryWrites).toBe(1);
    expect(facts).toEqual(["project uses bun"]);
    expect(provider.requests[2]?.messages.at(-1)?.content).toBe("project uses bun");
    expect(ctx.out()).toContain('"type":"memory.written"');
  });

  test("independent read-only calls run in parallel; results keep call order", async () => {
    await using d = await tempDir();
    let releaseB: () => void = () => {};
    const bStarted = new Promise<void>((resolve) => {
      releaseB = resolve;
    });
    const readTool = (name: string, run: () => Promise<string>): Tool => ({
      name,
      description: name,
      input_schema: { type: "object", properties: {} },
      kind: "read",
      subject: () => name,
      execute: async () => ({ output: await run() }),
    });
    const a = readTool("wait_for_b", async () => {
      const outcome = await Promise.race([
        bStarted.then(() => "saw b"),
        Bun.sleep(3000).then(() => "sequential"),
      ]);
      return outcome;
    });
    const b = readTool("b", async () => {
      releaseB();
      return "b done";
    });
    const provider = new ScriptedProvider([
      { calls: [{ name: "wait_for_b" }, { name: "b" }] },
      { text: "ok" },
    ]);
    const { input } = agentInput(d.path, provider, { tools: [a, b] });
    await runAgent(input);
    const results = (provider.requests[1]?.messages ?? [])
      .filter((m) => m.role === "tool")
      .map((m) => m.content);
    expect(results).toEqual(["saw b", "b done"]);
  });

  test("a provider error ends the run with its reason and keeps partial results", async () => {
    await using d = await tempDir();
    const failing = {
      name: "mock",
      model: "failing",
      // biome-ignore lint/correctness/useYield: fails before yielding
      async *stream(): AsyncIterable<LlmEvent> {
        throw new ProviderError("server", "HTTP 503 from mock", { provider: "mock", status: 503 });
      },
    };
    const r = await runAgent(agentInput(d.path, failing).input);
    expect(r.terminalReason).toBe("provider_error");
    expect(r.error?.exitCode).toBe(1);
    expect(r.numTurns).toBe(1);
  });

  test("escape sequences from commands never reach the model or the JSON events", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      { calls: [{ name: "run_command", arguments: { cmd: "printf '\\033[31mred\\033[0m\\n'" } }] },
      { text: "\u001b[1mdone\u001b[0m" },
    ]);
    const { input, ctx } = agentInput(d.path, provider, { format: "stream-json" });
    await runAgent(input);
    expect(provider.requests[1]?.messages.at(-1)?.content).toBe("exit code: 0\nred");
    expect(ctx.out()).not.toContain("\\u001b");
  });

  test("hooks: beforeRequest replaces the history, beforeFileChange sees edits, emit sees events", async () => {
    await using d = await tempDir();
    const seen: string[] = [];
    const changed: string[] = [];
    const provider = new ScriptedProvider([
      { calls: [{ name: "write_file", arguments: { file: "a.txt", content: "1" } }] },
      { text: "ok" },
    ]);
    const { input } = agentInput(d.path, provider, {
      hooks: {
        beforeRequest: (messages, turn) =>
          turn === 2 ? [{ role: "user", content: "compacted" }, ...messages.slice(1)] : messages,
        beforeFileChange: (p) => void changed.push(p),
      },
      emit: (event) => void seen.push(event.type),
    });
    const r = await runAgent(input);
    expect(provider.requests[1]?.messages[0]?.content).toBe("compacted");
    expect(r.messages[0]?.content).toBe("compacted");
    expect(changed).toEqual([join(d.path, "a.txt")]);
    expect(seen).toContain("file.changed");
    expect(seen.at(-1)).toBe("turn.completed");
  });
});

test("microcompact: after an idle spell past the provider's cache TTL the next request clears for free", async () => {
  await using d = await tempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 6; i++)
    files[`f${i}.txt`] =
      `${Array.from({ length: 120 }, (_, n) => `f${i} line ${n} ${"v".repeat(40)}`).join("\n")}\n`;
  await writeTree(d.path, files);
  let clock = Date.UTC(2026, 0, 1);
  const read = (i: number) => ({
    calls: [{ name: "read_file", arguments: { file: `f${i}.txt` } }],
  });
  const provider = new ScriptedProvider([...[0, 1, 2, 3, 4, 5].map(read), { text: "done" }]);
  const { input } = agentInput(d.path, provider);
  // the last read takes 61 minutes (a slow tool): the mock's cache (an hour, as OpenAI's) expires
  const tools = input.tools.map((t) => {
    if (t.name !== "read_file") return t;
    const slow: Tool = Object.assign(Object.create(Object.getPrototypeOf(t)), t);
    slow.execute = async (args, ctx) => {
      const out = await t.execute(args, ctx);
      clock += args["file"] === "f5.txt" ? 61 * 60_000 : 1000;
      return out;
    };
    return slow;
  });
  const r = await runAgent({ ...input, tools, now: () => new Date(clock) });
  expect(r.finalText).toBe("done");
  const cleared = provider.requests.map((q) =>
    q.messages.some((m) => m.content.startsWith("[Old tool result cleared")),
  );
  // no repeats paid for a rewrite, so only the request after the idle spell clears
  expect(cleared).toEqual([false, false, false, false, false, false, true]);
  const last = provider.requests.at(-1)?.messages.filter((m) => m.role === "tool") ?? [];
  expect(last.at(-1)?.content).toContain("f5 line 119");
  expect(last.at(-2)?.content).toContain("f4 line 119");
});
