import { expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openExtensions } from "../../../lib/extensions/open.ts";
import { tempDir } from "../../support/ctx.ts";
import { alive, stdioEntry, writeGoConfig } from "../../support/mcp.ts";

const ctx = (cwd: string) => ({
  cwd,
  fetch,
  version: "0.0.0-test",
  signal: new AbortController().signal,
});

test("nothing starts until tools() is asked for; close() stops every server it started", async () => {
  await using dir = await tempDir();
  const pid = join(dir.path, "pid");
  await writeGoConfig(dir.path, [stdioEntry("fx", { FIXTURE_PID_OUT: pid })]);
  const env = { HOME: dir.path, PATH: process.env["PATH"] ?? "/bin" };
  const lazy = await openExtensions(ctx(dir.path), {
    env,
    workspaceRoot: dir.path,
    trusted: false,
  });
  expect(lazy.systemBlocks()).toEqual([]);
  await lazy.close();
  expect(await Bun.file(pid).exists()).toBe(false);
  const ext = await openExtensions(ctx(dir.path), { env, workspaceRoot: dir.path, trusted: false });
  const tools = await ext.tools();
  expect(tools.map((t) => [t.name, t.origin, t.deferred ?? false])).toEqual([
    ["mcp__fx__add_tool", "mcp", false],
    ["mcp__fx__env_dump", "mcp", false],
    ["mcp__fx__lookup_weather", "mcp", false],
  ]);
  const weather = tools.find((t) => t.name === "mcp__fx__lookup_weather");
  expect((await weather?.call({ city: "Rome" }, new AbortController().signal))?.output).toContain(
    "Weather in Rome",
  );
  const [started] = ext.pids();
  expect(started && alive(started)).toBe(true);
  await ext.close();
  expect(alive(started as number)).toBe(false);
});

test("over the budget: tool_search first, the found tools from newTools(), one line per server in systemBlocks()", async () => {
  await using dir = await tempDir();
  await writeGoConfig(dir.path, [stdioEntry("fx", { FIXTURE_TOOLS: "5" })]);
  const env = {
    HOME: dir.path,
    PATH: process.env["PATH"] ?? "/bin",
    CHATCLI_MCP_TOOL_BUDGET: "100",
  };
  const ext = await openExtensions(ctx(dir.path), { env, workspaceRoot: dir.path, trusted: false });
  try {
    const tools = await ext.tools();
    expect(tools.filter((t) => !t.deferred).map((t) => t.name)).toEqual(["tool_search"]);
    expect(tools.filter((t) => t.deferred)).toHaveLength(8);
    expect(ext.systemBlocks()).toEqual([
      { id: "mcp_servers", text: expect.stringContaining("- fx (8 tools): A test server.") },
    ]);
    const search = tools[0];
    const found = await search?.call({ query: "pull requests" }, new AbortController().signal);
    expect(found?.output).toContain("mcp__fx__tool_01");
    expect(ext.newTools().map((t) => t.name)).toContain("mcp__fx__tool_01");
    expect(ext.newTools()).toEqual([]);
    expect(ext.servers()).toEqual([{ name: "fx", status: "connected", tools: 8, scope: "global" }]);
  } finally {
    await ext.close();
  }
});

test("an untrusted workspace's .chatcli/mcp_servers.json is listed as untrusted with a warning; trusted, it starts", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  await mkdir(join(ws, ".chatcli"), { recursive: true });
  await writeFile(
    join(ws, ".chatcli", "mcp_servers.json"),
    JSON.stringify({ mcpServers: [stdioEntry("wsrv")] }),
  );
  const env = { HOME: join(dir.path, "home"), PATH: process.env["PATH"] ?? "/bin" };
  const untrusted = await openExtensions(ctx(ws), { env, workspaceRoot: ws, trusted: false });
  expect(await untrusted.tools()).toEqual([]);
  expect(untrusted.servers()).toEqual([
    { name: "wsrv", status: "untrusted", tools: 0, scope: "workspace" },
  ]);
  expect(untrusted.warnings().map((w) => w.code)).toEqual(["untrusted_workspace_setting"]);
  expect(untrusted.warnings()).toEqual([]); // drained
  await untrusted.close();
  const trusted = await openExtensions(ctx(ws), { env, workspaceRoot: ws, trusted: true });
  try {
    expect((await trusted.tools()).length).toBe(3);
  } finally {
    await trusted.close();
  }
});
