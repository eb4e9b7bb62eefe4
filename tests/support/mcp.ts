/**
 * MCP test helpers: the SDK-built fixture server (tests/support/mcp-fixture.ts) as a stdio entry
 * for a config file, or running over streamable HTTP / legacy SSE on 127.0.0.1.
 */
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

export const FIXTURE = resolve(import.meta.dir, "mcp-fixture.ts");
/** The bun running the tests starts the fixture (the compiled chatcli has no `bun` of its own). */
export const BUN = process.execPath;

/** A Go-format stdio entry for the fixture. */
export function stdioEntry(
  name: string,
  env: Record<string, string> = {},
  extra: Record<string, unknown> = {},
) {
  return {
    name,
    command: BUN,
    args: [FIXTURE, "stdio"],
    env: { FIXTURE_NAME: name, ...env },
    transport: "stdio",
    enabled: true,
    ...extra,
  };
}

/** Writes `~/.chatcli/mcp_servers.json` as the Go ChatCLI does. */
export async function writeGoConfig(
  home: string,
  servers: unknown[],
  extra: Record<string, unknown> = {},
) {
  const path = join(home, ".chatcli", "mcp_servers.json");
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify({ mcpServers: servers, ...extra }, null, 2)}\n`);
  return path;
}

export interface HttpFixture extends AsyncDisposable {
  url: string;
  stop(): Promise<void>;
}

/** Starts the fixture over HTTP (`http`: streamable, URL …/mcp; `sse`: legacy, URL …/sse). */
export async function startHttpFixture(
  mode: "http" | "sse",
  env: Record<string, string> = {},
): Promise<HttpFixture> {
  const proc = Bun.spawn([BUN, FIXTURE, mode], {
    env: {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HOME: process.env["HOME"] ?? "/tmp",
      ...env,
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  let text = "";
  const decoder = new TextDecoder();
  while (!/listening (\d+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the ${mode} fixture exited before listening`);
    text += decoder.decode(value);
  }
  reader.releaseLock();
  const port = /listening (\d+)/.exec(text)?.[1];
  const stop = async () => {
    proc.kill();
    await proc.exited;
  };
  return {
    url: `http://127.0.0.1:${port}/${mode === "http" ? "mcp" : "sse"}`,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Whether a process is still there (not a zombie). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return true;
  }
}
