import { beforeAll, describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  BINARY,
  baseEnv,
  requireBinary,
  runChatcli,
  runShell,
  spawnChatcli,
} from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

function openaiEnv(llm: MockLlm, home: string, extra: Record<string, string> = {}) {
  return baseEnv(home, {
    OPENAI_API_KEY: "sk-test-openai-key-0000000000000000",
    OPENAI_BASE_URL: `${llm.url}/v1`,
    CHATCLI_RETRY_BASE_MS: "10",
    ...extra,
  });
}
function anthropicEnv(llm: MockLlm, home: string, extra: Record<string, string> = {}) {
  return baseEnv(home, {
    LLM_PROVIDER: "CLAUDEAI",
    ANTHROPIC_API_KEY: "sk-ant-test-key-000000000000000000",
    ANTHROPIC_BASE_URL: llm.url,
    CHATCLI_RETRY_BASE_MS: "10",
    ...extra,
  });
}

describe("ask against the mock LLM (spawned binary, real SDKs)", () => {
  test("OpenAI: streams the answer to stdout, nothing else; exit 0", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "The build failed because of a missing semicolon." });
    const r = await runChatcli(["ask", "why did it fail"], {
      env: openaiEnv(llm, home.path),
      cwd: home.path,
      stdin: "ERROR: expected ';' at line 3\n",
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The build failed because of a missing semicolon.\n");
    // biome-ignore lint/suspicious/noExplicitAny: the request body is inspected freely
    const body = llm.requests.at(-1)?.body as Record<string, any>;
    expect(body["stream"]).toBe(true);
    expect(body["stream_options"]).toEqual({ include_usage: true });
    const user = body["messages"].at(-1);
    expect(user.role).toBe("user");
    expect(user.content).toBe(
      "<stdin bytes=\"30\">\nERROR: expected ';' at line 3\n</stdin>\n\nwhy did it fail",
    );
  });

  test("Anthropic with --json: one envelope with usage, model and cost", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "hi there" });
    const r = await runChatcli(["ask", "say hi", "--json"], {
      env: anthropicEnv(llm, home.path, { ANTHROPIC_MODEL: "claude-sonnet-4-5" }),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const env = JSON.parse(lines[0] as string);
    expect(env).toMatchObject({
      type: "result",
      status: "success",
      is_error: false,
      exit_code: 0,
      terminal_reason: "completed",
      result: "hi there",
      model: "anthropic/claude-sonnet-4-5",
      num_turns: 1,
      error: null,
    });
    expect(env.usage.input_tokens).toBeGreaterThan(0);
    expect(env.usage.output_tokens).toBeGreaterThan(0);
    expect(typeof env.total_cost_usd).toBe("number");
    expect(llm.requests.at(-1)?.path).toMatch(/\/v1\/messages$/);
  });

  test("stream-json: seq strictly increasing, session.started first, result last and equal to --json", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "one two three" });
    const r = await runChatcli(["ask", "count", "--output-format", "stream-json"], {
      env: openaiEnv(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events[0].type).toBe("session.started");
    const last = events.at(-1);
    expect(last.type).toBe("result");
    expect(last.result).toBe("one two three");
    const seqs = events.slice(0, -1).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    const deltas = events
      .filter((e) => e.type === "message.delta")
      .map((e) => e.text)
      .join("");
    expect(deltas).toBe("one two three");
    for (const e of events.slice(0, -1)) expect(e.ts).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
  });

  test("an open stdin pipe that never writes does not hang: answer plus a stdin_no_data warning", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "ok" });
    const r = await spawnChatcli(["ask", "hi", "--stdin-timeout", "200ms"], {
      env: openaiEnv(llm, home.path),
      cwd: home.path,
      stdin: "pipe-open",
    }).done;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("ok\n");
    expect(r.stderr).toContain("stdin");
  });

  test("escape sequences from the model are stripped; secrets redacted in JSON", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "\u001b]0;pwned\u0007safe \u001b[31mtext\u001b[0m" });
    const text = await runChatcli(["ask", "x"], { env: openaiEnv(llm, home.path), cwd: home.path });
    expect(text.stdout).toBe("safe text\n");
    llm.push({ text: "your key is sk-test-openai-key-0000000000000000" });
    const json = await runChatcli(["ask", "x", "--json"], {
      env: openaiEnv(llm, home.path),
      cwd: home.path,
    });
    expect(json.stdout).not.toContain("sk-test-openai-key");
    expect(JSON.parse(json.stdout).result).toContain("[REDACTED:");
  });
});

describe("ask failure exit codes", () => {
  test("401: exit 3 at once, no retry", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ error: { status: 401, message: "invalid x-api-key" } });
    const r = await runChatcli(["ask", "hi", "--json"], {
      env: anthropicEnv(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ terminal_reason: "auth_error", exit_code: 3 });
    expect(llm.requests).toHaveLength(1);
  });

  test("500 on every try: retried, then exit 1 provider_error", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    for (let i = 0; i < 3; i++) llm.push({ error: { status: 500, message: "overloaded" } });
    const r = await runChatcli(["ask", "hi", "--json", "--max-retries", "2"], {
      env: openaiEnv(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      terminal_reason: "provider_error",
      is_error: true,
    });
    expect(llm.requests).toHaveLength(3);
    expect(r.stderr).toContain("retrying");
  });

  test("429 with retry-after, then an answer: exit 0", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ error: { status: 429, message: "slow down", retry_after: 0 } }, { text: "finally" });
    const r = await runChatcli(["ask", "hi"], { env: openaiEnv(llm, home.path), cwd: home.path });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("finally\n");
  });

  test("the fallback chain answers when the primary keeps failing", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    for (let i = 0; i < 2; i++) llm.push({ error: { status: 503, message: "down" } });
    llm.push({ text: "from the fallback" });
    const env = openaiEnv(llm, home.path, {
      CHATCLI_FALLBACK_PROVIDERS: "CLAUDEAI",
      ANTHROPIC_API_KEY: "sk-ant-test-key-000000000000000000",
      ANTHROPIC_BASE_URL: llm.url,
    });
    const r = await runChatcli(["ask", "hi", "--max-retries", "1"], { env, cwd: home.path });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("from the fallback\n");
    expect(llm.requests.at(-1)?.path).toMatch(/messages$/);
  });

  test("--timeout: exit 124 with a timeout envelope", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ stall: true });
    const r = await runChatcli(["ask", "hi", "--json", "--timeout", "500ms"], {
      env: openaiEnv(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(124);
    expect(JSON.parse(r.stdout)).toMatchObject({ terminal_reason: "timeout", exit_code: 124 });
  });

  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    test(`${signal} mid-stream: the envelope says cancelled, exit ${code}`, async () => {
      await using home = await tempDir();
      await using llm = await startMockLlm();
      llm.push({ stall: true });
      const child = spawnChatcli(["ask", "hi", "--json"], {
        env: openaiEnv(llm, home.path),
        cwd: home.path,
      });
      await llm.waitForHits(1);
      child.proc.kill(signal);
      const r = await child.done;
      expect(r.code).toBe(code);
      expect(JSON.parse(r.stdout)).toMatchObject({ terminal_reason: "cancelled", exit_code: code });
    });
  }

  test("SIGINT with --session: the session is saved with the question and the partial answer", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "partial ans", stall: true });
    const env = openaiEnv(llm, home.path);
    const child = spawnChatcli(["ask", "--session", "cut", "what is up"], { env, cwd: home.path });
    await child.waitForStdout("part"); // the stalled stream sends its first delta only
    child.proc.kill("SIGINT");
    const r = await child.done;
    expect(r.code).toBe(130);
    const saved = JSON.parse(await Bun.file(join(home.path, ".chatcli/sessions/cut.json")).text());
    expect(saved.chat_history[0]).toEqual({ role: "user", content: "what is up" });
    expect(saved.chat_history[1].role).toBe("assistant");
    expect(saved.chat_history[1].content).toMatch(/^part.*\n\n\[answer interrupted\]$/);
    expect(saved.chat_history).toHaveLength(2);
  });

  test("stdout closed early (| head -c1): exit 141, no stack trace", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "x".repeat(200_000) });
    const script = `"${BINARY}" ask hi | head -c1 >/dev/null; echo "rc=\${PIPESTATUS[0]}"`;
    const { stdout: out, stderr: err } = await runShell(script, {
      env: openaiEnv(llm, home.path),
      cwd: home.path,
    });
    expect(out.trim()).toBe("rc=141");
    expect(err).toBe("");
  });
});

describe("built-in test models", () => {
  test("mock:echo answers with the request it received (no network)", async () => {
    await using home = await tempDir();
    const r = await runChatcli(["ask", "-m", "mock:echo", "ping"], {
      env: baseEnv(home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const echoed = JSON.parse(r.stdout);
    expect(JSON.stringify(echoed.messages)).toContain("ping");
  });

  test("mock:script replays --fake-responses, errors included", async () => {
    await using home = await tempDir();
    const file = join(home.path, "replies.jsonl");
    await writeFile(file, '{"text":"scripted answer"}\n');
    const r = await runChatcli(["ask", "-m", "mock:script", "--fake-responses", file, "q"], {
      env: baseEnv(home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("scripted answer\n");
  });
});
