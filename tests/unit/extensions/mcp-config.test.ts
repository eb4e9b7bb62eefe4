import { expect, test } from "bun:test";
import {
  expandServer,
  expandVars,
  parseServers,
  toolVisible,
} from "../../../lib/extensions/mcp/config.ts";
import { coreEnv, serverEnv } from "../../../lib/extensions/mcp/env.ts";

test("Go's mcpServers list, the issue's servers list and Claude's mcpServers object all parse", () => {
  const go = parseServers(
    {
      mcpServers: [
        {
          name: "fs",
          command: "npx",
          args: ["-y", "srv"],
          transport: "stdio",
          enabled: true,
          timeout: 5,
          initTimeout: 2,
        },
      ],
    },
    "g.json",
    "global",
  ).servers[0];
  expect(go).toMatchObject({
    name: "fs",
    transport: "stdio",
    command: "npx",
    args: ["-y", "srv"],
    timeoutMs: 5000,
    initTimeoutMs: 2000,
    scope: "global",
    source: "g.json",
  });
  const issue = parseServers(
    { servers: [{ name: "web", url: "http://h/mcp", transport: "http" }] },
    "x",
    "global",
  ).servers[0];
  expect(issue).toMatchObject({
    name: "web",
    transport: "http",
    url: "http://h/mcp",
    timeoutMs: 60_000,
    initTimeoutMs: 10_000,
  });
  const claude = parseServers(
    {
      mcpServers: {
        a: { command: "srv-a" },
        b: { type: "sse", url: "http://h/sse" },
        c: { type: "http", url: "http://h/mcp", headers: { X: "1" } },
      },
    },
    ".mcp.json",
    "workspace",
  ).servers;
  expect(claude.map((s) => [s.name, s.transport, s.enabled])).toEqual([
    ["a", "stdio", true],
    ["b", "sse", true],
    ["c", "http", true],
  ]);
  expect(claude[2]?.headers).toEqual({ X: "1" });
});

test("bad entries are skipped with a reason; enabled false and disabled true switch a server off", () => {
  const r = parseServers(
    {
      mcpServers: [
        { name: "", command: "x" },
        { name: "nocmd", transport: "stdio" },
        { name: "nourl", transport: "sse" },
        { name: "weird", transport: "carrier-pigeon", command: "x" },
        { name: "off", command: "x", enabled: false },
        { name: "dup", command: "x" },
        { name: "dup", command: "y" },
      ],
    },
    "f",
    "global",
  );
  expect(r.servers.map((s) => [s.name, s.enabled])).toEqual([
    ["off", false],
    ["dup", true],
  ]);
  expect(r.problems).toHaveLength(5);
  expect(r.problems.join("\n")).toContain("unknown transport");
  expect(
    parseServers({ mcpServers: { z: { command: "x", disabled: true } } }, "f", "flag").servers[0]
      ?.enabled,
  ).toBe(false);
});

test("enabledTools wins over disabledTools (Go's IsToolVisible), bare and mcp_ names, *", () => {
  const base = parseServers({ mcpServers: [{ name: "s", command: "x" }] }, "f", "global")
    .servers[0];
  if (!base) throw new Error("no server");
  expect(toolVisible({ ...base, enabledTools: ["a"] }, "a")).toBe(true);
  expect(toolVisible({ ...base, enabledTools: ["a"] }, "b")).toBe(false);
  expect(toolVisible({ ...base, enabledTools: ["a"], disabledTools: ["a"] }, "a")).toBe(true);
  expect(toolVisible({ ...base, disabledTools: ["b"] }, "mcp_b")).toBe(false);
  expect(toolVisible({ ...base, disabledTools: ["*"] }, "c")).toBe(false);
});

test("${VAR} and ${VAR:-default} expand from the user's env in command, args, env, url and headers", () => {
  expect(expandVars("Bearer ${T}", { T: "abc" })).toBe("Bearer abc");
  expect(expandVars("${MISSING:-fallback}/x", {})).toBe("fallback/x");
  expect(expandVars("$NOT_BRACED ${EMPTY}", { EMPTY: "" })).toBe("$NOT_BRACED ");
  const s = parseServers(
    {
      mcpServers: {
        a: {
          command: "~/bin/srv",
          args: ["--root", "${ROOT}"],
          env: { K: "${KEY}" },
          type: "stdio",
        },
      },
    },
    "f",
    "global",
  ).servers[0];
  if (!s) throw new Error("no server");
  expect(expandServer(s, { HOME: "/home/u", ROOT: "/r", KEY: "k" })).toMatchObject({
    command: "/home/u/bin/srv",
    args: ["--root", "/r"],
    env: { K: "k" },
  });
});

test("a server's environment: the core set without secrets, plus what its config names", () => {
  const env = {
    PATH: "/bin",
    HOME: "/h",
    LANG: "C.UTF-8",
    LC_ALL: "C",
    OPENAI_API_KEY: "sk-x",
    ANTHROPIC_API_KEY: "sk-ant-x",
    GITHUB_TOKEN: "ghp_x",
    DATABASE_URL: "postgres://u:p@h/db",
    HTTPS_PROXY: "http://user:pw@proxy:3128",
    NO_PROXY: "localhost",
    RANDOM_APP_SETTING: "1",
    CHATCLI_HOME: "/h/.chatcli",
  };
  expect(coreEnv(env)).toEqual({
    PATH: "/bin",
    HOME: "/h",
    LANG: "C.UTF-8",
    LC_ALL: "C",
    NO_PROXY: "localhost",
  });
  expect(serverEnv(env, { GITHUB_TOKEN: "ghp_named" })["GITHUB_TOKEN"]).toBe("ghp_named");
});

test("chatcli's own memory server (configured for the Go ChatCLI in the shared file) is not started by chatcli", async () => {
  const { isOwnMemoryServer } = await import("../../../lib/extensions/mcp/manager.ts");
  const [own, other] = parseServers(
    {
      mcpServers: [
        { name: "mem", command: "/usr/local/bin/chatcli", args: ["mcp", "serve"] },
        { name: "x", command: "chatcli-tools", args: ["mcp", "serve"] },
      ],
    },
    "f",
    "global",
  ).servers;
  expect(own && isOwnMemoryServer(own)).toBe(true);
  expect(other && isOwnMemoryServer(other)).toBe(false);
});
