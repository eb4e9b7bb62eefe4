import { describe, expect, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { alive, startHttpFixture, stdioEntry, writeGoConfig } from "../support/mcp.ts";
import { type MockRequest, startMockLlm } from "../support/mock-llm.ts";

type Body = {
  tools?: Array<{ name: string }>;
  system?: Array<{ text: string; cache_control?: unknown }>;
  messages: unknown[];
};
const body = (r: MockRequest | undefined) => r?.body as Body;
const toolNames = (r: MockRequest | undefined) => (body(r)?.tools ?? []).map((t) => t.name);
const call = (name: string, args: Record<string, unknown>, id = `c_${name}`) => ({
  tool_calls: [{ id, name, arguments: args }],
});
function events(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

describe("MCP tools in an agent run (spawned binary, SDK-built fixture servers, mock LLM)", () => {
  test("27 tools: the first request carries only tool_search and one line per server (≤ 2.5k tokens); a search finds the tool, it is called, and the answer comes from its result", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    const pidFile = join(dir.path, "server.pid");
    await writeGoConfig(dir.path, [
      stdioEntry("fx", { FIXTURE_TOOLS: "24", FIXTURE_PID_OUT: pidFile }),
    ]);
    llm.push(
      call("tool_search", { query: "weather for a city" }),
      call("mcp__fx__lookup_weather", { city: "Lisbon" }),
      { text: "It is 21°C with a clear sky in Lisbon." },
    );
    const r = await runChatcli(
      [
        "agent",
        "--ephemeral",
        "--output-format",
        "stream-json",
        "--allow-tool",
        "mcp__fx__lookup_weather",
        "what's the weather in Lisbon?",
      ],
      {
        env: baseEnv(dir.path, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" }),
        cwd: dir.path,
      },
    );
    expect(r.stderr).not.toContain("mcp_server_failed");
    expect(r.code).toBe(0);
    const ev = events(r.stdout);
    const started = ev.find((e) => e["type"] === "session.started") as Record<string, unknown>;
    expect(started["mcp_servers"]).toEqual([
      { name: "fx", status: "connected", tools: 27, scope: "global", error: null },
    ]);
    // first request: tool_search, no MCP definition; the server's line in the cached prefix
    const [first, second, third] = llm.requests;
    expect(toolNames(first)).toContain("tool_search");
    expect(toolNames(first).filter((n) => n.startsWith("mcp__"))).toEqual([]);
    const cachedText = (b: Body) => {
      const sys = b.system ?? [];
      return JSON.stringify(
        sys.slice(0, sys.findLastIndex((s) => s.cache_control !== undefined) + 1),
      );
    };
    expect(cachedText(body(first))).toContain("- fx (27 tools)");
    const firstTurn = ev.find((e) => e["type"] === "turn.completed") as {
      usage: { input_tokens: number };
    };
    expect(firstTurn.usage.input_tokens).toBeLessThanOrEqual(2500);
    // the found tool joins the next request (and stays); the cached system prefix keeps its bytes
    expect(toolNames(second)).toEqual([...toolNames(first), "mcp__fx__lookup_weather"].sort());
    expect(cachedText(body(second))).toBe(cachedText(body(first)));
    expect(toolNames(third)).toEqual(toolNames(second));
    // the result reached the model, marked as untrusted content
    const wire = JSON.stringify(body(third)?.messages);
    expect(wire).toContain("Weather in Lisbon: 21°C, clear sky");
    expect(wire).toContain("untrusted content");
    const result = ev.at(-1) as Record<string, unknown>;
    expect(result["result"]).toBe("It is 21°C with a clear sky in Lisbon.");
    expect(result["tools"]).toMatchObject({
      by_name: { tool_search: 1, mcp__fx__lookup_weather: 1 },
    });
    expect(result["mcp_servers"]).toEqual([
      { name: "fx", status: "connected", tools: 27, scope: "global", error: null },
    ]);
    // the run ended: its server with it
    const pid = Number(await readFile(pidFile, "utf8"));
    expect(alive(pid)).toBe(false);
  }, 60_000);

  test("read-only: an MCP tool without an allow rule is denied (its readOnlyHint grants nothing) and never reaches the server, which sees no provider key; an allow rule opens it", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    const envOut = join(dir.path, "server-env.json");
    const calls = join(dir.path, "calls.jsonl");
    await writeGoConfig(dir.path, [
      stdioEntry("fx", {
        FIXTURE_ENV_OUT: envOut,
        FIXTURE_CALLS_OUT: calls,
        MY_SETTING: "named-in-config",
      }),
    ]);
    const secrets = {
      OPENAI_API_KEY: "sk-test-openai-000000000000000000",
      ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
      GITHUB_TOKEN: "ghp_00000000000000000000000000000000",
      AWS_SECRET_ACCESS_KEY: "aws-secret-value",
      SOME_PASSWORD: "hunter2",
    };
    const env = baseEnv(dir.path, {
      ...secrets,
      ...llm.env("openai"),
      CHATCLI_MEMORY_ENABLED: "false",
    });
    llm.push(call("mcp__fx__lookup_weather", { city: "Oslo" }), { text: "Could not check." });
    const denied = await runChatcli(["agent", "--ephemeral", "--json", "weather in Oslo?"], {
      env,
      cwd: dir.path,
    });
    // the one call the model tried was denied: blocked (exit 6)
    expect(denied.code).toBe(6);
    const e = JSON.parse(denied.stdout);
    expect(e.terminal_reason).toBe("blocked");
    expect(e.permission_denials).toMatchObject([{ tool: "mcp__fx__lookup_weather", turn: 1 }]);
    expect(e.permission_denials[0].reason).toContain("outbound channel");
    expect(denied.stderr).toContain("--allow-tool 'mcp__fx__lookup_weather'");
    expect(JSON.stringify(llm.requests[1]?.body)).toContain("permission denied");
    expect(await readFile(calls, "utf8").catch(() => "")).toBe("");
    const seen = JSON.parse(await readFile(envOut, "utf8")) as Record<string, string>;
    for (const name of Object.keys(secrets)) expect(seen[name]).toBeUndefined();
    expect(seen["OPENAI_BASE_URL"]).toBeUndefined();
    expect(seen["CHATCLI_HOME"]).toBeUndefined();
    expect(seen["MY_SETTING"]).toBe("named-in-config");
    expect(seen["HOME"]).toBe(dir.path);
    expect(seen["PATH"]).toBeTruthy();
    // the same call with a rule for the server's tools
    llm.push(call("mcp__fx__lookup_weather", { city: "Oslo" }), { text: "Sunny." });
    const allowed = await runChatcli(
      ["agent", "--ephemeral", "--json", "--allow-tool", "mcp__fx__*", "weather in Oslo?"],
      { env, cwd: dir.path },
    );
    expect(JSON.parse(allowed.stdout).permission_denials).toEqual([]);
    expect(await readFile(calls, "utf8")).toContain('"city":"Oslo"');
  }, 60_000);

  test("streamable HTTP and legacy SSE servers from --mcp-config (Claude Code's format): headers expand ${VAR}, both connect, their tools run", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    const headers = join(dir.path, "headers.jsonl");
    await using http = await startHttpFixture("http", {
      FIXTURE_NAME: "web",
      FIXTURE_HEADERS_OUT: headers,
    });
    await using sse = await startHttpFixture("sse", { FIXTURE_NAME: "old" });
    const file = join(dir.path, "servers.json");
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          web: { type: "http", url: http.url, headers: { "X-Api-Key": "${MY_MCP_TOKEN}" } },
          old: { type: "sse", url: sse.url },
        },
      }),
    );
    llm.push(
      {
        tool_calls: [
          { id: "a", name: "mcp__web__lookup_weather", arguments: { city: "Porto" } },
          { id: "b", name: "mcp_env_dump", arguments: {} },
        ],
      },
      call("mcp__old__lookup_weather", { city: "Faro" }),
      { text: "done" },
    );
    const r = await runChatcli(
      ["agent", "--ephemeral", "--json", "--mcp-config", file, "--allow-tool", "mcp__*", "go"],
      {
        env: baseEnv(dir.path, {
          ...llm.env("openai"),
          CHATCLI_MEMORY_ENABLED: "false",
          MY_MCP_TOKEN: "tok-123",
        }),
        cwd: dir.path,
      },
    );
    expect(r.code).toBe(0);
    const e = JSON.parse(r.stdout);
    expect(e.mcp_servers).toEqual([
      { name: "web", status: "connected", tools: 3, scope: "flag", error: null },
      { name: "old", status: "connected", tools: 3, scope: "flag", error: null },
    ]);
    const wire = JSON.stringify(llm.requests.map((q) => q.body));
    expect(wire).toContain("Weather in Porto: 21°C");
    expect(wire).toContain("Weather in Faro: 21°C");
    // Go's mcp_<tool> is accepted when only one server has that tool… and env_dump is on both
    expect(e.tools.by_name).toMatchObject({
      mcp__web__lookup_weather: 1,
      mcp__old__lookup_weather: 1,
    });
    expect(await readFile(headers, "utf8")).toContain('"x-api-key":"tok-123"');
  }, 60_000);

  test("an untrusted workspace's .mcp.json starts nothing (and says so); trusted, it connects; a server that cannot start is a warning", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm({ defaultText: "ok" });
    const ws = join(dir.path, "repo");
    await Bun.write(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
    const pidFile = join(dir.path, "ws-server.pid");
    await writeFile(
      join(ws, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          repo: {
            command: stdioEntry("repo").command,
            args: stdioEntry("repo").args,
            env: { FIXTURE_PID_OUT: pidFile },
          },
        },
      }),
    );
    await writeGoConfig(dir.path, [
      { name: "broken", command: "/nonexistent/mcp-server", transport: "stdio", enabled: true },
    ]);
    const env = baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const untrusted = await runChatcli(["agent", "--ephemeral", "--json", "hi there, list files"], {
      env,
      cwd: ws,
    });
    expect(untrusted.code).toBe(0);
    const u = JSON.parse(untrusted.stdout);
    expect(await Bun.file(pidFile).exists()).toBe(false);
    expect(u.mcp_servers).toContainEqual({
      name: "repo",
      status: "untrusted",
      tools: 0,
      scope: "workspace",
      error: null,
    });
    const warning = u.warnings.find((w: { code: string; message: string }) =>
      w.message.includes(".mcp.json"),
    );
    expect(warning.code).toBe("untrusted_workspace_setting");
    expect(warning.message).toContain("not started");
    expect(u.warnings.map((w: { code: string }) => w.code)).toContain("mcp_server_failed");
    const trusted = await runChatcli(
      ["agent", "--ephemeral", "--json", "--trust-workspace", "hi there, list files"],
      {
        env,
        cwd: ws,
      },
    );
    expect(trusted.code).toBe(0);
    const t = JSON.parse(trusted.stdout);
    expect(t.mcp_servers).toContainEqual({
      name: "repo",
      status: "connected",
      tools: 3,
      scope: "workspace",
      error: null,
    });
    expect(t.mcp_servers.find((s: { name: string }) => s.name === "broken")).toMatchObject({
      status: "failed",
    });
    expect(alive(Number(await readFile(pidFile, "utf8")))).toBe(false);
  }, 60_000);

  test("tools/list_changed between turns: a tool the server adds is offered on the next request and runs", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await writeGoConfig(dir.path, [stdioEntry("fx")]);
    // the second call uses Go's name for it (mcp_<tool>): an alias of mcp__fx__late_tool
    llm.push(call("mcp__fx__add_tool", {}), call("mcp_late_tool", {}), { text: "done" });
    const r = await runChatcli(
      ["agent", "--ephemeral", "--json", "--allow-tool", "mcp__fx__*", "add it"],
      {
        env: baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" }),
        cwd: dir.path,
      },
    );
    expect(r.code).toBe(0);
    const names = (q: MockRequest | undefined) =>
      (((q?.body ?? {}) as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map(
        (t) => t.function.name,
      );
    expect(names(llm.requests[0])).not.toContain("mcp__fx__late_tool");
    expect(names(llm.requests[1])).toContain("mcp__fx__late_tool");
    expect(JSON.stringify(llm.requests[2]?.body)).toContain("late tool ran");
    expect(JSON.parse(r.stdout).tools.by_name).toEqual({
      mcp__fx__add_tool: 1,
      mcp__fx__late_tool: 1,
    });
  }, 60_000);
});
