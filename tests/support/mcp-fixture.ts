/**
 * A tiny MCP server built with the official SDK, for tests: `bun tests/support/mcp-fixture.ts
 * stdio|http|sse`. http/sse print `listening <port>` on stdout, then serve on 127.0.0.1.
 *
 * FIXTURE_NAME (server name), FIXTURE_TOOLS=N (N extra `tool_NN` tools with realistic schemas),
 * FIXTURE_ENV_OUT (file: the server's environment as JSON, written at start),
 * FIXTURE_PID_OUT (file: its pid), FIXTURE_CALLS_OUT (file: one JSON line per tool call).
 *
 * Tools: lookup_weather(city), env_dump(), add_tool() (registers `late_tool`: tools/list_changed).
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const mode = process.argv[2] ?? "stdio";
const env = process.env;
if (env["FIXTURE_ENV_OUT"]) writeFileSync(env["FIXTURE_ENV_OUT"], JSON.stringify(env));
if (env["FIXTURE_PID_OUT"]) writeFileSync(env["FIXTURE_PID_OUT"], String(process.pid));

function logCall(tool: string, args: unknown) {
  if (env["FIXTURE_CALLS_OUT"])
    appendFileSync(env["FIXTURE_CALLS_OUT"], `${JSON.stringify({ tool, args })}\n`);
}

const TOPICS = [
  "issues",
  "pull requests",
  "releases",
  "branches",
  "commits",
  "workflows",
  "deployments",
  "secrets scanning",
  "code search",
  "gists",
  "labels",
  "milestones",
  "projects",
  "wikis",
  "discussions",
  "notifications",
  "teams",
  "webhooks",
  "packages",
  "environments",
  "runners",
  "artifacts",
  "caches",
  "pages",
  "tags",
  "reviews",
  "comments",
  "reactions",
  "stars",
  "forks",
];

function build(): McpServer {
  const server = new McpServer(
    { name: env["FIXTURE_NAME"] ?? "fixture", version: "1.0.0" },
    { instructions: "A test server." },
  );
  server.registerTool(
    "lookup_weather",
    {
      description: "Current weather for a city (temperature and sky)",
      inputSchema: { city: z.string().describe("city name") },
      annotations: { readOnlyHint: true },
    },
    async ({ city }) => {
      logCall("lookup_weather", { city });
      return { content: [{ type: "text", text: `Weather in ${city}: 21°C, clear sky` }] };
    },
  );
  server.registerTool("env_dump", { description: "The server's environment" }, async () => {
    logCall("env_dump", {});
    return { content: [{ type: "text", text: JSON.stringify(process.env) }] };
  });
  server.registerTool("add_tool", { description: "Registers late_tool" }, async () => {
    logCall("add_tool", {});
    server.registerTool("late_tool", { description: "A tool added at run time" }, async () => ({
      content: [{ type: "text", text: "late tool ran" }],
    }));
    return { content: [{ type: "text", text: "late_tool registered" }] };
  });
  const extra = Number(env["FIXTURE_TOOLS"] ?? 0);
  for (let i = 0; i < extra; i++) {
    const topic = TOPICS[i % TOPICS.length] as string;
    const n = String(i).padStart(2, "0");
    server.registerTool(
      `tool_${n}`,
      {
        description: `List, filter and inspect ${topic} of a repository. Returns at most \`limit\` entries with their ids, titles, authors, states and timestamps, newest first.`,
        inputSchema: {
          owner: z.string().describe("repository owner (user or organisation)"),
          repo: z.string().describe("repository name"),
          state: z.enum(["open", "closed", "all"]).optional().describe("which entries"),
          limit: z.number().int().min(1).max(100).optional().describe("how many (default 30)"),
        },
      },
      async (args) => {
        logCall(`tool_${n}`, args);
        return {
          content: [{ type: "text", text: `${topic} of ${args.owner}/${args.repo}: none` }],
        };
      },
    );
  }
  return server;
}

if (mode === "stdio") {
  await build().connect(new StdioServerTransport());
} else if (mode === "http") {
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    if (env["FIXTURE_HEADERS_OUT"])
      appendFileSync(env["FIXTURE_HEADERS_OUT"], `${JSON.stringify(req.headers)}\n`);
    // stateless: one server and transport per request
    const server = build();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  http.listen(0, "127.0.0.1", () => {
    const address = http.address();
    process.stdout.write(
      `listening ${typeof address === "object" && address ? address.port : 0}\n`,
    );
  });
} else if (mode === "sse") {
  const sessions = new Map<string, SSEServerTransport>();
  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      res.on("close", () => sessions.delete(transport.sessionId));
      await build().connect(transport);
      return;
    }
    if (req.method === "POST" && url.pathname === "/messages") {
      const transport = sessions.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) {
        res.writeHead(404).end("no session");
        return;
      }
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  http.listen(0, "127.0.0.1", () => {
    const address = http.address();
    process.stdout.write(
      `listening ${typeof address === "object" && address ? address.port : 0}\n`,
    );
  });
}
