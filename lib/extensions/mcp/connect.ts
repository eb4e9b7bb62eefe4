/**
 * One live MCP server connection, through the official SDK (loaded only when a run connects a
 * server: import this module with `await import()`). stdio goes through chatcli's spawn door
 * (PipeTransport); streamable HTTP and legacy SSE through the SDK's transports with the run's fetch.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Env } from "../../core/ctx.ts";
import type { McpServerConfig } from "./config.ts";
import { serverEnv } from "./env.ts";
import { PipeTransport } from "./pipe-transport.ts";
import { resultText } from "./result.ts";

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface McpConnection {
  readonly server: string;
  /** The server's `instructions` from initialize, if any. */
  readonly instructions?: string;
  tools(): McpToolInfo[];
  call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ output: string; isError: boolean }>;
  /** Called after the server said its tool list changed and the new list was fetched. */
  onToolsChanged(listener: (tools: McpToolInfo[]) => void): void;
  /** The process id of a stdio server (tests check nothing is left behind). */
  readonly pid?: number;
  close(): Promise<void>;
}

export interface ConnectDeps {
  env: Env;
  cwd: string;
  fetch: typeof fetch;
  version: string;
  /** Aborts a connection still being made (the run ended first). */
  signal?: AbortSignal;
}

function transportFor(server: McpServerConfig, deps: ConnectDeps): Transport {
  if (server.transport === "stdio") {
    const argv = [server.command as string, ...server.args];
    return new PipeTransport(argv, {
      cwd: server.cwd ?? deps.cwd,
      env: serverEnv(deps.env, server.env),
    });
  }
  const url = new URL(server.url as string);
  const requestInit: RequestInit = { headers: server.headers };
  const fetchFn = deps.fetch as unknown as (u: string | URL, i?: RequestInit) => Promise<Response>;
  return server.transport === "sse"
    ? new SSEClientTransport(url, { requestInit, fetch: fetchFn })
    : new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchFn });
}

async function listAll(client: Client, timeout: number): Promise<McpToolInfo[]> {
  const out: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const r = await client.listTools(cursor ? { cursor } : {}, { timeout });
    for (const t of r.tools)
      out.push({
        name: t.name,
        description: t.description ?? t.title ?? "",
        inputSchema: (t.inputSchema ?? { type: "object" }) as Record<string, unknown>,
        ...(t.annotations ? { annotations: t.annotations as Record<string, unknown> } : {}),
      });
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  return out;
}

/** Connects, initializes and lists the tools within `initTimeoutMs`; throws with a one-line reason. */
export async function connectServer(
  server: McpServerConfig,
  deps: ConnectDeps,
): Promise<McpConnection> {
  const transport = transportFor(server, deps);
  const client = new Client({ name: "chatcli", version: deps.version }, { capabilities: {} });
  const stderr = () => (transport instanceof PipeTransport ? transport.stderr() : "");
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${Math.round(server.initTimeoutMs / 1000)} s`)),
      server.initTimeoutMs,
    );
    onAbort = () => reject(new Error("the run ended before it connected"));
    if (deps.signal?.aborted) onAbort();
    else deps.signal?.addEventListener("abort", onAbort, { once: true });
  });
  let tools: McpToolInfo[];
  try {
    tools = await Promise.race([
      (async () => {
        await client.connect(transport, { timeout: server.initTimeoutMs });
        return client.getServerCapabilities()?.tools ? listAll(client, server.initTimeoutMs) : [];
      })(),
      deadline,
    ]);
  } catch (error) {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    const tail = stderr().split("\n").slice(-3).join(" | ");
    throw new Error(`${(error as Error).message}${tail ? ` (stderr: ${tail})` : ""}`);
  } finally {
    clearTimeout(timer);
    if (onAbort) deps.signal?.removeEventListener("abort", onAbort);
  }
  const listeners: Array<(tools: McpToolInfo[]) => void> = [];
  let refreshing: Promise<void> | undefined;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    const refresh = (async () => {
      try {
        tools = await listAll(client, server.timeoutMs);
        for (const l of listeners) l(tools);
      } catch {
        // keep the last list: a call to a tool that went away fails on its own
      }
    })();
    refreshing = refresh;
    await refresh;
    if (refreshing === refresh) refreshing = undefined;
  });
  const instructions = client.getInstructions();
  return {
    server: server.name,
    ...(instructions ? { instructions } : {}),
    ...(transport instanceof PipeTransport && transport.pid ? { pid: transport.pid } : {}),
    tools: () => tools,
    async call(tool, args, signal) {
      const r = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: server.timeoutMs,
      });
      // a list_changed the call caused (sent before its result) is in before the next request
      await refreshing;
      return resultText(r as Record<string, unknown>);
    },
    onToolsChanged(listener) {
      listeners.push(listener);
    },
    async close() {
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
    },
  };
}
