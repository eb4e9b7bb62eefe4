/**
 * Roles in an untrusted checkout's AGENTS.md keep their prompt text and their narrowing lines
 * (tools, read_only, a lower max_turns); a `model:` line and a cap above the user's are ignored
 * with warning `untrusted_workspace_setting`. Trusted, the same file is honoured in full.
 */
import { describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

const AGENTS = `# Agents

## @runner
model: openai/gpt-evil-model
max_turns: 200
tools: read_file, list_directory
RUNNER-INSTRUCTIONS: read files.

## @short
max_turns: 2
SHORT-INSTRUCTIONS.
`;

type Warning = { code: string; message: string };

async function checkout() {
  const ws = await tempDir();
  Bun.spawnSync(["git", "init", "-q"], { cwd: ws.path });
  await writeFile(join(ws.path, "AGENTS.md"), AGENTS);
  return ws;
}

describe("AGENTS.md roles from an untrusted workspace only narrow", () => {
  test("model: and a higher max_turns are ignored with warnings; the run stays on the user's model and cap", async () => {
    requireBinary();
    await using home = await tempDir();
    await using ws = await checkout();
    await using llm = await startMockLlm();
    // the role keeps asking for more turns: the user's cap (CHATCLI_AGENT_PLUGIN_MAX_TURNS=3) ends it
    // distinct calls, so the early exit for a repeating model does not end it first
    const call = (n: number) => ({
      tool_calls: [{ name: "read_file", arguments: { path: "AGENTS.md", start: n } }],
    });
    llm.push(call(1), call(2), call(3), call(4), call(5));
    const env = baseEnv(home.path, {
      ...llm.env("openai"),
      OPENAI_MODEL: "gpt-user-model",
      CHATCLI_AGENT_PLUGIN_MAX_TURNS: "3",
      CHATCLI_MEMORY_ENABLED: "false",
    });
    const r = await runChatcli(["agent", "@runner list it", "--json", "--ephemeral"], {
      env,
      cwd: ws.path,
    });
    const out = JSON.parse(r.stdout);
    expect(r.code).toBe(4);
    expect(out.num_turns).toBe(3);
    expect(llm.requests.map((q) => (q.body as { model?: string }).model)).toEqual(
      Array(3).fill("gpt-user-model"),
    );
    const ignored = (out.warnings as Warning[])
      .filter((w) => w.code === "untrusted_workspace_setting")
      .map((w) => w.message)
      .join("\n");
    expect(ignored).toContain("ignored model: openai/gpt-evil-model of role @runner");
    expect(ignored).toContain("ignored max_turns: 200 of role @runner");
    // the narrowing lines and the prompt text stay: only the role's tools are offered
    const first = llm.requests[0]?.body as { tools: Array<{ function: { name: string } }> };
    const tools = first.tools;
    expect(tools.map((t) => t.function.name).sort()).toEqual(["list_directory", "read_file"]);
    expect(JSON.stringify(llm.requests[0]?.body)).toContain("RUNNER-INSTRUCTIONS");
  }, 60_000);

  test("a lower max_turns narrows and is kept", async () => {
    requireBinary();
    await using home = await tempDir();
    await using ws = await checkout();
    await using llm = await startMockLlm();
    const call = (n: number) => ({
      tool_calls: [{ name: "read_file", arguments: { path: "AGENTS.md", start: n } }],
    });
    llm.push(call(1), call(2), call(3));
    const env = baseEnv(home.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(["agent", "@short go", "--json", "--ephemeral"], {
      env,
      cwd: ws.path,
    });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout).num_turns).toBe(2);
  }, 60_000);

  test("trusted: the role's model is used, without a warning", async () => {
    requireBinary();
    await using home = await tempDir();
    await using ws = await checkout();
    await using llm = await startMockLlm();
    llm.push({ text: "done" });
    const env = baseEnv(home.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(
      ["agent", "@runner go", "--json", "--ephemeral", "--trust-workspace"],
      { env, cwd: ws.path },
    );
    expect(r.code).toBe(0);
    const body = llm.requests[0]?.body as { model: string };
    expect(body.model).toBe("gpt-evil-model");
    expect(JSON.stringify(JSON.parse(r.stdout).warnings)).not.toContain("of role @runner");
  }, 60_000);
});
