import { describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createLiveServices } from "../../../lib/repl/live-services.ts";
import type { AgentCallbacks } from "../../../lib/repl/services.ts";
import { run, tempDir, testCtx } from "../../support/ctx.ts";

function callbacks(lines: string[], text: string[]): AgentCallbacks {
  return {
    onText: (t) => void text.push(t),
    onActivity: (l) => void lines.push(l),
    approve: async () => false,
  };
}

async function workspace(config: unknown) {
  const home = await tempDir();
  const ws = join(home.path, "ws");
  await mkdir(join(ws, ".git"), { recursive: true });
  await mkdir(join(ws, ".chatcli"), { recursive: true });
  await writeFile(join(ws, ".chatcli", "config.json"), JSON.stringify(config));
  const env = {
    HOME: home.path,
    CHATCLI_HOME: join(home.path, ".chatcli"),
    CHATCLI_TRUST_WORKSPACE: "1",
    CHATCLI_SESSION_AUTOSAVE: "false",
    CHATCLI_MEMORY_ENABLED: "false",
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
  };
  return { home, ws, env };
}

describe("the REPL's /agent goes through the one engine", () => {
  test("a bad permissions.mode is the same config error as `chatcli agent` (exit 3), not read-only", async () => {
    const { home, ws, env } = await workspace({ permissions: { mode: "yolo" } });
    await using _ = home;
    const ctx = testCtx({ cwd: ws, env });
    const services = await createLiveServices(ctx, { model: "mock:echo" });
    const lines: string[] = [];
    const failure = await services
      .runAgent("agent", "list the files", callbacks(lines, []), new AbortController().signal)
      .catch((e: Error) => e);
    expect(failure).toBeInstanceOf(Error);
    const headless = await run(["agent", "list the files", "-m", "mock:echo", "--json"], {
      cwd: ws,
      env,
    });
    expect(headless.code).toBe(3);
    expect(JSON.parse(headless.out).error.message).toBe((failure as Error).message);
    expect((failure as Error).message).toContain("config.json permissions.mode");
    await services.close();
  });

  test("the offered-tools filter applies: a tool a bare deny rule names is never offered", async () => {
    const { home, ws, env } = await workspace({ permissions: { deny: ["web_fetch"] } });
    await using _ = home;
    const ctx = testCtx({ cwd: ws, env });
    const services = await createLiveServices(ctx, { model: "mock:echo" });
    const text: string[] = [];
    await services.runAgent(
      "agent",
      "list the files",
      callbacks([], text),
      new AbortController().signal,
    );
    // mock:echo answers with the request it got: the tools it was offered
    const echoed = JSON.parse(text.join("")) as { tools: string[] };
    expect(echoed.tools).toContain("read_file");
    expect(echoed.tools).not.toContain("web_fetch");
    const headless = await run(["agent", "list the files", "-m", "mock:echo", "--json"], {
      cwd: ws,
      env,
    });
    // the same filter; only a run nobody attends drops the edit tools of read-only mode
    const edits = ["multipatch", "patch_file", "write_file"];
    expect(JSON.parse(JSON.parse(headless.out).result).tools).toEqual(
      echoed.tools.filter((t) => !edits.includes(t)),
    );
    expect(echoed.tools).toEqual(expect.arrayContaining(edits));
    await services.close();
  });
});
