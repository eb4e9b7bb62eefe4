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

describe("the REPL prices what the model that answered cost", () => {
  test("after a fallback, a chat line is priced as the fallback model, as headless runs are", async () => {
    const { startMockLlm } = await import("../../support/mock-llm.ts");
    const { costOf } = await import("../../../lib/llm/cost.ts");
    const { home, ws, env } = await workspace({});
    await using _ = home;
    await using llm = await startMockLlm();
    llm.push({ error: { status: 500, message: "upstream down" } }, { text: "from haiku" });
    const ctx = testCtx({
      cwd: ws,
      env: {
        ...env,
        LLM_PROVIDER: "OPENAI",
        OPENAI_MODEL: "gpt-5.4",
        OPENAI_API_KEY: "sk-test-openai-key-0000000000000000",
        OPENAI_BASE_URL: `${llm.url}/v1`,
        ANTHROPIC_API_KEY: "sk-ant-test-key-000000000000000000",
        ANTHROPIC_BASE_URL: llm.url,
        CHATCLI_MAX_RETRIES: "0",
        CHATCLI_FALLBACK_PROVIDERS: "anthropic/claude-haiku-4-5",
      },
    });
    const services = await createLiveServices(ctx, {});
    const text: string[] = [];
    const notices: string[] = [];
    const turn = await services.sendTurn(
      "why did it fail",
      { onText: (t) => void text.push(t), onNotice: (l) => void notices.push(l) },
      new AbortController().signal,
    );
    expect(text.join("")).toBe("from haiku");
    expect(notices.join("\n")).toContain("falling back to anthropic/claude-haiku-4-5");
    const usage = turn.usage;
    if (!usage) throw new Error("no usage");
    const cost = services.cost().costUsd;
    expect(cost).toBeCloseTo(
      costOf({ provider: "anthropic", model: "claude-haiku-4-5" }, usage) ?? -1,
      12,
    );
    expect(cost).not.toBeCloseTo(costOf({ provider: "openai", model: "gpt-5.4" }, usage) ?? -1, 12);
    await services.close();
  });
});
