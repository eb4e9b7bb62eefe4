import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockRequest, startMockLlm } from "../support/mock-llm.ts";

const AGENTS = `# Project agents

Plain guidance that stays prompt text.

## @scout
tools: read_file, search_files
max_turns: 3
SCOUT-INSTRUCTIONS: find things and report paths.

## @security
read_only: true
tools: read_file, git_diff, write_file
SECURITY-INSTRUCTIONS: audit for OWASP Top 10.
`;

async function workspace(dir: string): Promise<void> {
  Bun.spawnSync(["git", "init", "-q"], { cwd: dir });
  await writeFile(join(dir, "AGENTS.md"), AGENTS);
  await writeFile(join(dir, "big.txt"), `BIGFILE-CONTENT ${"x".repeat(2000)}\n`);
  await writeFile(join(dir, "a.txt"), "needle in a.txt\n");
}

const usage = (input: number) => ({
  input_tokens: input,
  output_tokens: 10,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
});
const wire = (r: MockRequest | undefined) => JSON.stringify(r?.body);
const toolNames = (r: MockRequest | undefined) =>
  ((r?.body as undefined | { tools?: Array<{ name: string }> })?.tools ?? [])
    .map((t) => t.name)
    .sort();
const lines = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

async function agent(
  dir: string,
  llm: { env(api: "anthropic"): Record<string, string> },
  args: string[],
) {
  const env = baseEnv(dir, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" });
  return runChatcli(["agent", ...args, "--ephemeral"], { env, cwd: dir });
}

describe("sub-agents: AGENTS.md roles and the delegate tool (spawned binary, mock LLM)", () => {
  test("delegate round trip: the sub-agent's requests carry none of the parent's history; only its answer comes back; usage adds up", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await workspace(dir.path);
    llm.push(
      // parent turn 1: a large read that must stay in the parent's context only
      {
        tool_calls: [{ id: "r1", name: "read_file", arguments: { file: "big.txt" } }],
        usage: usage(100),
      },
      // parent turn 2: delegate to @scout
      {
        tool_calls: [
          {
            id: "d1",
            name: "delegate",
            arguments: {
              role: "scout",
              prompt: "Find the needle file.",
              description: "find needle",
            },
          },
        ],
        usage: usage(100),
      },
      // the sub-agent: one read, then its answer
      {
        tool_calls: [{ id: "s1", name: "read_file", arguments: { file: "a.txt" } }],
        usage: usage(1000),
      },
      { text: "SCOUT-ANSWER: the needle is in a.txt", usage: usage(1000) },
      // parent final
      { text: "The needle is in a.txt.", usage: usage(100) },
    );
    const r = await agent(dir.path, llm, [
      "PARENT-SECRET: locate the needle",
      "--output-format",
      "stream-json",
    ]);
    expect(r.code).toBe(0);
    expect(llm.requests).toHaveLength(5);
    const [, , sub1, sub2, last] = llm.requests;
    for (const sub of [sub1, sub2]) {
      expect(wire(sub)).not.toContain("PARENT-SECRET");
      expect(wire(sub)).not.toContain("BIGFILE-CONTENT");
      expect(wire(sub)).toContain("SCOUT-INSTRUCTIONS");
      expect(toolNames(sub)).toEqual(["read_file", "search_files"]);
    }
    const subMessages =
      (sub1?.body as undefined | { messages: Array<{ role: string; content: unknown }> })
        ?.messages ?? [];
    expect(subMessages).toHaveLength(1);
    expect(JSON.stringify(subMessages[0]?.content)).toContain("Find the needle file.");
    expect(wire(sub2)).toContain("needle in a.txt");
    // the parent sees the sub-agent's answer, not its intermediate read
    expect(wire(last)).toContain("SCOUT-ANSWER: the needle is in a.txt");
    expect(wire(last)).not.toContain("needle in a.txt\\n");
    const events = lines(r.stdout);
    const started = events.find((e) => e["type"] === "subagent.started");
    expect(started).toMatchObject({
      parent_id: "d1",
      role: "scout",
      tools: ["read_file", "search_files"],
      max_turns: 3,
    });
    expect(events.find((e) => e["type"] === "subagent.completed")).toMatchObject({
      parent_id: "d1",
      status: "success",
      turns: 2,
    });
    // the sub-agent's own tool events are nested under the delegate call
    expect(events.find((e) => e["type"] === "tool.started" && e["id"] === "s1")).toMatchObject({
      parent_id: "d1",
      name: "read_file",
    });
    // biome-ignore lint/suspicious/noExplicitAny: the envelope is inspected freely
    const envelope = events.at(-1) as Record<string, any>;
    expect(envelope["type"]).toBe("result");
    expect(envelope["usage"]["input_tokens"]).toBe(2300);
    expect(envelope["subagents"]).toMatchObject([
      { id: "d1", role: "scout", turns: 2, status: "success", total_tokens: 2020 },
    ]);
    expect(envelope["tools"]["by_name"]).toMatchObject({ read_file: 1, delegate: 1 });
  }, 60_000);

  test("narrowing: tools the parent lacks are refused; read_only drops the edit tools and an unoffered write never happens; permissions stay the parent's", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await workspace(dir.path);
    llm.push(
      {
        tool_calls: [
          {
            id: "d1",
            name: "delegate",
            arguments: { prompt: "x", tools: ["read_file", "sudo_everything"] },
          },
        ],
      },
      {
        tool_calls: [
          {
            id: "d2",
            name: "delegate_subagent",
            arguments: { prompt: "Write out.txt", read_only: true },
          },
        ],
      },
      {
        tool_calls: [
          { id: "w1", name: "write_file", arguments: { file: "out.txt", content: "pwned" } },
        ],
      },
      { text: "I could not write." },
      // parent in read-only mode: a sub-agent cannot run a writing command either
      { tool_calls: [{ id: "d3", name: "delegate", arguments: { prompt: "touch made.txt" } }] },
      { tool_calls: [{ id: "c1", name: "run_command", arguments: { cmd: "touch made.txt" } }] },
      { text: "Denied." },
      { text: "Done." },
    );
    const r = await agent(dir.path, llm, ["try", "--json", "--permission-mode", "read-only"]);
    expect(r.code).toBe(0);
    // the first delegate never started a sub-agent (no request for it)
    expect(wire(llm.requests[1])).toContain("not available to you");
    expect(wire(llm.requests[1])).toContain("sudo_everything");
    const sub = llm.requests[2];
    expect(toolNames(sub)).not.toContain("write_file");
    expect(toolNames(sub)).not.toContain("patch_file");
    expect(toolNames(sub)).not.toContain("delegate");
    expect(toolNames(sub)).toContain("read_file");
    expect(wire(llm.requests[3])).toContain('unknown tool \\"write_file\\"');
    expect(existsSync(join(dir.path, "out.txt"))).toBe(false);
    expect(existsSync(join(dir.path, "made.txt"))).toBe(false);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.subagents).toHaveLength(2);
    expect(envelope.subagents[1].permission_denials).toMatchObject([{ tool: "run_command" }]);
  }, 60_000);

  test("a sub-agent's edits (edit mode) are the run's: files_changed, file.changed, and rewind restores them", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await workspace(dir.path);
    llm.push(
      { tool_calls: [{ id: "d1", name: "delegate", arguments: { prompt: "Fix a.txt" } }] },
      {
        tool_calls: [
          {
            id: "m1",
            name: "multipatch",
            arguments: { edits: [{ file: "a.txt", search: "needle", replace: "thread" }] },
          },
        ],
      },
      { text: "Replaced needle with thread." },
      { text: "Fixed." },
    );
    const env = baseEnv(dir.path, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(
      ["agent", "fix it", "--json", "--session", "sub", "--permission-mode", "edit"],
      { env, cwd: dir.path },
    );
    expect(r.code).toBe(0);
    expect(await Bun.file(join(dir.path, "a.txt")).text()).toBe("thread in a.txt\n");
    const envelope = JSON.parse(r.stdout);
    expect(envelope.files_changed).toEqual([{ path: "a.txt", change: "modified" }]);
    expect(envelope.subagents[0].files_changed).toEqual([{ path: "a.txt", change: "modified" }]);
    expect(wire(llm.requests[3])).toContain("files changed: a.txt (modified)");
    const rewind = await runChatcli(["rewind", "--session", "sub", "--to", "1", "--code"], {
      env,
      cwd: dir.path,
    });
    expect(rewind.code).toBe(0);
    expect(await Bun.file(join(dir.path, "a.txt")).text()).toBe("needle in a.txt\n");
  }, 60_000);

  test("a failing sub-agent is a tool error for the parent, which goes on and succeeds", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await workspace(dir.path);
    llm.push(
      {
        tool_calls: [{ id: "d1", name: "delegate", arguments: { role: "scout", prompt: "look" } }],
      },
      { error: { status: 400, message: "invalid request from sub-agent" } },
      { text: "The sub-agent failed; finishing without it." },
    );
    const r = await agent(dir.path, llm, ["go", "--json"]);
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.status).toBe("success");
    expect(envelope.result).toBe("The sub-agent failed; finishing without it.");
    expect(envelope.subagents).toMatchObject([{ role: "scout", status: "error" }]);
    expect(envelope.tools.failed).toBe(1);
    expect(wire(llm.requests[2])).toContain("@scout failed");
  }, 60_000);

  test("independent delegates of one turn run in parallel; both answers reach the parent", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await workspace(dir.path);
    llm.push(
      {
        tool_calls: [
          { id: "d1", name: "delegate", arguments: { prompt: "task one" } },
          { id: "d2", name: "delegate", arguments: { prompt: "task two" } },
        ],
      },
      { text: "ANSWER-ALPHA" },
      { text: "ANSWER-BETA" },
      { text: "Both done." },
    );
    const r = await agent(dir.path, llm, ["split", "--output-format", "stream-json"]);
    expect(r.code).toBe(0);
    const kinds = lines(r.stdout)
      .map((e) => e["type"] as string)
      .filter((t) => t.startsWith("subagent."));
    // both started before either completed: they ran at the same time
    expect(kinds).toEqual([
      "subagent.started",
      "subagent.started",
      "subagent.completed",
      "subagent.completed",
    ]);
    const last = wire(llm.requests[3]);
    expect(last).toContain("ANSWER-ALPHA");
    expect(last).toContain("ANSWER-BETA");
  }, 60_000);

  test("agent @role runs a role directly: its instructions, its tools only, read_only; a plain AGENTS.md leaves @word alone", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await workspace(dir.path);
    llm.push(
      { tool_calls: [{ name: "write_file", arguments: { file: "pwned.txt", content: "x" } }] },
      { text: "No issues found." },
    );
    const r = await agent(dir.path, llm, [
      "@security",
      "review the last commit",
      "--json",
      "--permission-mode",
      "edit",
    ]);
    expect(r.code).toBe(0);
    const first = llm.requests[0];
    expect(wire(first)).toContain("SECURITY-INSTRUCTIONS");
    // read_only drops write_file even though the role lists it
    expect(toolNames(first)).toEqual(["git_diff", "read_file"]);
    const messages =
      (first?.body as undefined | { messages: Array<{ content: unknown }> })?.messages ?? [];
    expect(JSON.stringify(messages.at(-1)?.content)).toContain("review the last commit");
    expect(JSON.stringify(messages.at(-1)?.content)).not.toContain("@security");
    expect(existsSync(join(dir.path, "pwned.txt"))).toBe(false);
    expect(JSON.parse(r.stdout).result).toBe("No issues found.");

    await writeFile(join(dir.path, "AGENTS.md"), "# Agents\n\nNo roles here.\n");
    llm.push({ text: "ok" });
    const plain = await agent(dir.path, llm, ["@security review", "--json"]);
    expect(plain.code).toBe(0);
    const req = llm.requests.at(-1);
    expect(wire(req)).toContain("@security review");
    expect(wire(req)).toContain("No roles here.");
    // no roles: delegate is not offered (a lean first request) unless CHATCLI_AGENT_DELEGATE=true
    expect(toolNames(req)).not.toContain("delegate");
    llm.push({ text: "ok" });
    const env = baseEnv(dir.path, {
      ...llm.env("anthropic"),
      CHATCLI_MEMORY_ENABLED: "false",
      CHATCLI_AGENT_DELEGATE: "true",
    });
    const forced = await runChatcli(["agent", "hi", "--json", "--ephemeral"], {
      env,
      cwd: dir.path,
    });
    expect(forced.code).toBe(0);
    expect(toolNames(llm.requests.at(-1))).toContain("delegate");
    expect(toolNames(llm.requests.at(-1))).not.toContain("delegate_subagent");
  }, 60_000);
});
