/**
 * A provider that stalls or breaks mid-answer, as a CI job meets it (built binary, mock LLM). The idle
 * timeout is shortened with CHATCLI_STREAM_IDLE_TIMEOUT_MS; nothing here waits on wall-clock sleeps.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

function env(llm: MockLlm, home: string) {
  return baseEnv(home, {
    ...llm.env("openai"),
    CHATCLI_RETRY_BASE_MS: "1",
    CHATCLI_STREAM_IDLE_TIMEOUT_MS: "300",
  });
}

describe("a stream that stalls or breaks mid-answer", () => {
  test("--json: asked again from the start; the envelope holds the whole second answer and a warning", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "half an ans", stall: true }, { text: "the whole answer" });
    const r = await runChatcli(["ask", "why", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ result: "the whole answer", exit_code: 0, status: "success" });
    expect(out.warnings).toEqual([
      {
        code: "answer_restarted",
        message: expect.stringContaining("(stalled) after part of the answer"),
      },
    ]);
    expect(llm.requests).toHaveLength(2);
  });

  test("--json: an overloaded error mid-stream is asked again too; a second failure ends with exit 1", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push(
      { text: "partial", error: { status: 529, message: "Overloaded" } },
      { text: "again partial", error: { status: 529, message: "Overloaded" } },
    );
    const r = await runChatcli(["ask", "why", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.error.code).toBe("provider_error");
    expect(out.warnings.map((w: { code: string }) => w.code)).toEqual(["answer_restarted"]);
    expect(llm.requests).toHaveLength(2);
  });

  test("text: what was printed stays, exit 1, and the message says which knob sets the wait", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "half an ans", stall: true }, { text: "never asked" });
    const r = await runChatcli(["ask", "why"], { env: env(llm, home.path), cwd: home.path });
    expect(r.code).toBe(1);
    expect(r.stdout.endsWith("\n")).toBe(true);
    expect("half an ans".startsWith(r.stdout.trimEnd())).toBe(true);
    expect(r.stderr).toContain("no response for 0.3s (stalled)");
    expect(r.stderr).toContain("CHATCLI_STREAM_IDLE_TIMEOUT_MS");
    expect(llm.requests).toHaveLength(1);
  });

  test("agent --json: a turn that stalls mid-reply is asked again; exit 0 with the complete answer", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "Let me thi", stall: true }, { text: "nothing to change" });
    const r = await runChatcli(["agent", "check the repo", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.result).toBe("nothing to change");
    expect(out.warnings.map((w: { code: string }) => w.code)).toEqual(["answer_restarted"]);
    expect(llm.requests).toHaveLength(2);
  });

  test("agent --jsonl: deltas already went out, so the stall ends the run (exit 1) instead of a silent replay", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "Let me thi", stall: true }, { text: "not asked" });
    const r = await runChatcli(["agent", "check the repo", "--jsonl"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    const last = JSON.parse(r.stdout.trim().split("\n").at(-1) as string);
    expect(last).toMatchObject({ type: "result", exit_code: 1, is_error: true });
    expect(llm.requests).toHaveLength(1);
  });
});
