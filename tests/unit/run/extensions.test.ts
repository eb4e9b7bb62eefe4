import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { agentSpec } from "../../../commands/agent.ts";
import type { ExtensionTool, HookEvent, RunExtensions } from "../../../lib/extensions/types.ts";
import { RunOutput } from "../../../lib/output/sinks.ts";
import { runHeadless } from "../../../lib/run/headless.ts";
import { tempDir, testCtx } from "../../support/ctx.ts";
import { cliOptions, ScriptedProvider } from "../agent/support.ts";

function fakeExtensions(options: { blockTool?: string }) {
  const fired: HookEvent[] = [];
  const called: string[] = [];
  let closed = false;
  const tool: ExtensionTool = {
    name: "mcp__docs__search",
    description: "search the docs",
    input_schema: { type: "object", properties: { q: { type: "string" } } },
    origin: "mcp",
    server: "docs",
    untrustedOutput: true,
    async call(args) {
      called.push(String(args["q"]));
      return { output: `found ${String(args["q"])}` };
    },
  };
  const ext: RunExtensions = {
    systemBlocks: () => [{ id: "skills", text: "## Skills\n- deploy: how we deploy" }],
    tools: async () => [tool],
    newTools: () => [],
    contextFor: () => [{ id: "skill_deploy", text: "Deploy with make ship." }],
    skillEffects: () => ({ allow: [] }),
    fire: async (event) => {
      fired.push(event);
      const blocked = event.type === "PreToolUse" && event.toolName === options.blockTool;
      return {
        blocked,
        ...(blocked ? { reason: "no writes on Fridays" } : {}),
        ran: [
          {
            name: "guard.sh",
            event: event.type,
            status: blocked ? "blocked" : "ok",
            duration_ms: 1,
          },
        ],
        warnings: [],
      };
    },
    servers: () => [{ name: "docs", status: "connected", tools: 1, scope: "global" }],
    warnings: () => [],
    close: async () => {
      closed = true;
    },
  };
  return { ext, fired, called, closed: () => closed };
}

describe("the run engine calls its extensions at their points", () => {
  test("MCP tools are judged as an outbound channel; hooks run and can block; servers are reported", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      {
        calls: [
          { name: "mcp__docs__search", arguments: { q: "deploy" } },
          { name: "write_file", arguments: { file: "a.txt", content: "x" } },
        ],
      },
      { text: "done" },
    ]);
    const { ext, fired, called, closed } = fakeExtensions({ blockTool: "write_file" });
    const ctx = testCtx({
      cwd: d.path,
      env: { HOME: d.path, CHATCLI_HOME: join(d.path, ".chatcli") },
    });
    const opts = cliOptions(provider, {
      format: "stream-json",
      permissionMode: "edit",
      allowTool: ["mcp__docs__*"],
    });
    const output = new RunOutput(ctx, {
      format: "stream-json",
      command: "agent",
      streamText: false,
    });
    const code = await runHeadless(ctx, { ...agentSpec("agent", opts), extensions: ext }, output);
    expect(code).toBe(0);
    const lines = ctx
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const started = lines[0];
    expect(started.mcp_servers).toEqual([
      { name: "docs", status: "connected", tools: 1, scope: "global", error: null },
    ]);
    expect(started.tools).toContain("mcp__docs__search");
    // the stable skills index sits in the cached prefix, the activated skill in the volatile tail
    const system = provider.requests[0]?.system ?? [];
    expect(system.find((b) => b.id === "skills")?.cache).toBe(true);
    expect(system.at(-1)).toMatchObject({ id: "skill_deploy", cache: false });
    expect(called).toEqual(["deploy"]);
    const decided = lines.filter((l) => l.type === "permission.decided");
    expect(decided.map((l) => [l.name, l.decision, l.source])).toEqual([
      ["mcp__docs__search", "allow", "policy"],
      ["write_file", "deny", "hook"],
    ]);
    const result = lines.at(-1);
    expect(result.permission_denials).toEqual([
      {
        tool: "write_file",
        input: "a.txt",
        reason: "no writes on Fridays",
        turn: 1,
        suggestion: null,
      },
    ]);
    expect(result.mcp_servers).toHaveLength(1);
    const toolResults = provider.requests[1]?.messages.filter((m) => m.role === "tool") ?? [];
    expect(toolResults.map((m) => m.content)).toEqual([
      "found deploy",
      expect.stringContaining("no writes on Fridays"),
    ]);
    expect(fired.map((e) => e.type)).toEqual([
      "SessionStart",
      "UserPromptSubmit",
      // every call of a turn is judged (PreToolUse) before the allowed ones run (PostToolUse)
      "PreToolUse",
      "PreToolUse",
      "PostToolUse",
      "SessionEnd",
    ]);
    expect(lines.filter((l) => l.type === "hook").map((l) => l.event)).toEqual(
      fired.map((e) => e.type),
    );
    // a block says why in its hook event too
    expect(lines.find((l) => l.type === "hook" && l.status === "blocked")).toMatchObject({
      event: "PreToolUse",
      tool: "write_file",
      reason: "no writes on Fridays",
    });
    expect(lines.find((l) => l.type === "hook" && l.status === "ok").reason).toBeNull();
    expect(closed()).toBe(true);
  });

  test("an MCP tool is a policy action named by the tool: a deny rule refuses it before it runs", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      { calls: [{ name: "mcp__docs__search", arguments: { q: "x" } }] },
      { text: "ok" },
    ]);
    const { ext, called } = fakeExtensions({});
    const ctx = testCtx({
      cwd: d.path,
      env: { HOME: d.path, CHATCLI_HOME: join(d.path, ".chatcli") },
    });
    // (closing outbound channels in read-only and edit without an allow rule is lib/policy's)
    const opts = cliOptions(provider, { format: "json", denyTool: ["mcp__docs__*"] });
    const output = new RunOutput(ctx, { format: "json", command: "agent", streamText: false });
    await runHeadless(ctx, { ...agentSpec("agent", opts), extensions: ext }, output);
    const envelope = JSON.parse(ctx.out());
    expect(called).toEqual([]);
    expect(envelope.permission_denials[0]).toMatchObject({
      tool: "mcp__docs__search",
      // what the call would send (every string of it is checked for secrets)
      input: '{"q":"x"}',
      reason: "denied by rule mcp__docs__*",
    });
  });

  test("a deferred tool is offered once newTools() finds it; a skill's allow rule opens it; a call nobody can approve is a Notification; PostToolUse gets Go's fields", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      { calls: [{ name: "write_file", arguments: { file: "a.txt", content: "x" } }] },
      { calls: [{ name: "mcp__docs__search", arguments: { q: "deploy" } }] },
      { text: "done" },
    ]);
    const { ext, fired, called } = fakeExtensions({});
    const [tool] = await ext.tools();
    let requests = 0;
    const deferred: typeof ext = {
      ...ext,
      tools: async () => [{ ...(tool as NonNullable<typeof tool>), deferred: true }],
      // found by tool_search after the first request
      newTools: () => (++requests === 2 ? [tool as NonNullable<typeof tool>] : []),
      skillEffects: () => ({ allow: ["mcp__docs__*"] }),
    };
    const ctx = testCtx({
      cwd: d.path,
      env: { HOME: d.path, CHATCLI_HOME: join(d.path, ".chatcli") },
    });
    // read-only, no TTY: the write is an ask nobody can answer
    const opts = cliOptions(provider, { format: "stream-json" });
    const output = new RunOutput(ctx, {
      format: "stream-json",
      command: "agent",
      streamText: false,
    });
    await runHeadless(ctx, { ...agentSpec("agent", opts), extensions: deferred }, output);
    const names = (i: number) => (provider.requests[i]?.tools ?? []).map((t) => t.name);
    expect(names(0)).not.toContain("mcp__docs__search");
    expect(names(1)).toContain("mcp__docs__search");
    expect(called).toEqual(["deploy"]);
    const lines = ctx
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    // the skill's rule is the outbound allowlist too
    expect(lines[0].outbound).toEqual({ policy: "allowlist", allow: ["mcp__docs__*"] });
    expect(lines[0].tools).not.toContain("mcp__docs__search");
    const notification = fired.find((e) => e.type === "Notification");
    expect(notification).toMatchObject({ toolName: "write_file" });
    expect(notification?.error).toContain("needs approval, denied unattended");
    expect(fired.find((e) => e.type === "PostToolUse")).toMatchObject({
      toolName: "mcp__docs__search",
      toolOutput: "found deploy",
    });
  });

  test("a sub-agent does not take what newTools() found: the parent offers it on its next request", async () => {
    await using d = await tempDir();
    const provider = new ScriptedProvider([
      { calls: [{ name: "delegate", arguments: { prompt: "look around" } }] },
      { text: "seen" }, // the sub-agent's one request
      { text: "done" },
    ]);
    const { ext } = fakeExtensions({});
    const [tool] = await ext.tools();
    let asked = 0;
    const later: typeof ext = {
      ...ext,
      tools: async () => [{ ...(tool as NonNullable<typeof tool>), deferred: true }],
      newTools: () => (++asked === 2 ? [tool as NonNullable<typeof tool>] : []),
    };
    const ctx = testCtx({
      cwd: d.path,
      env: { HOME: d.path, CHATCLI_HOME: join(d.path, ".chatcli"), CHATCLI_AGENT_DELEGATE: "true" },
    });
    const opts = cliOptions(provider, { format: "json", allowTool: ["mcp__docs__*"] });
    const output = new RunOutput(ctx, { format: "json", command: "agent", streamText: false });
    await runHeadless(ctx, { ...agentSpec("agent", opts), extensions: later }, output);
    const names = (i: number) => (provider.requests[i]?.tools ?? []).map((t) => t.name);
    expect(names(0)).toContain("delegate");
    expect(names(1)).not.toContain("mcp__docs__search");
    expect(names(2)).toContain("mcp__docs__search");
  });
});
