/**
 * A stream that ends without its terminal event is a dropped connection, never an answer (built binary,
 * mock LLM replaying real wire shapes): OpenAI-compatible streams with neither finish_reason nor
 * [DONE], Anthropic streams without message_stop. Asked again while nothing reached stdout; otherwise
 * exit 1 `stream_truncated` with the partial text in `result` and the turn not saved as complete.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import {
  anthropicAnswer,
  chunk,
  comment,
  DONE,
  event,
  messageDelta,
  messageStart,
  openaiAnswer,
  sse,
  textBlock,
  usageChunk,
} from "../support/wire-fixtures.ts";

beforeAll(() => {
  requireBinary();
});

function env(llm: MockLlm, home: string, api: "openai" | "anthropic" = "openai") {
  return baseEnv(home, { ...llm.env(api), CHATCLI_RETRY_BASE_MS: "1" });
}

/** OpenRouter-style: keep-alive comments, two deltas, then the connection drops. */
const CUT_OPENAI = sse([
  comment("OPENROUTER PROCESSING"),
  chunk({ role: "assistant", content: "" }, { model: "deepseek/deepseek-chat-v3" }),
  chunk({ content: "The deploy failed because " }, { model: "deepseek/deepseek-chat-v3" }),
  chunk({ content: "the migration" }, { model: "deepseek/deepseek-chat-v3" }),
]);

/** Anthropic: the text block even closed, but message_delta and message_stop never came. */
const CUT_ANTHROPIC = sse([
  messageStart(),
  event("ping"),
  ...textBlock(0, ["Three files ", "import it"]),
]);

describe("OpenAI-compatible streams without finish_reason and [DONE]", () => {
  test("text: the partial answer stays on stdout, exit 1 stream_truncated, not asked again", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(CUT_OPENAI);
    llm.push({ text: "never asked" });
    const r = await runChatcli(["ask", "why did it fail"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("The deploy failed because the migration\n");
    expect(r.stderr).toContain("the stream ended without finish_reason or [DONE]");
    expect(llm.requests).toHaveLength(1);
  });

  test("--json: asked again from the start (nothing reached stdout); the second, complete answer wins", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(CUT_OPENAI, sse(openaiAnswer(["The migration ", "timed out."])));
    const r = await runChatcli(["ask", "why did it fail", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ result: "The migration timed out.", status: "success" });
    expect(out.warnings).toEqual([
      { code: "answer_restarted", message: expect.stringContaining("without finish_reason") },
    ]);
    expect(llm.requests).toHaveLength(2);
  });

  test("--json: cut off twice → exit 1, error and terminal_reason stream_truncated, the partial in result", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(CUT_OPENAI, CUT_OPENAI);
    const r = await runChatcli(["ask", "why did it fail", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      status: "error",
      is_error: true,
      exit_code: 1,
      terminal_reason: "stream_truncated",
      result: "The deploy failed because the migration",
      error: { code: "stream_truncated", retryable: true },
    });
    expect(llm.requests).toHaveLength(2);
  });

  test("cut before any text: retried with backoff like a network error, then answered (exit 0)", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(sse([chunk({ role: "assistant", content: "" })]), sse(openaiAnswer(["fine"])));
    const r = await runChatcli(["ask", "status?", "--jsonl"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.find((e) => e.type === "retry")).toMatchObject({
      attempt: 1,
      error: { code: "truncated" },
    });
    expect(lines.at(-1)).toMatchObject({ type: "result", result: "fine", exit_code: 0 });
  });

  test("finish_reason without [DONE] (some servers), or [DONE] after a usage chunk without finish_reason: complete answers", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    // Ollama's OpenAI-compatible endpoint closing right after the finish chunk
    const ollama = { model: "llama3.2", id: "chatcmpl-412" };
    llm.pushRaw(
      sse([
        chunk({ role: "assistant", content: "Hel" }, ollama),
        chunk({ content: "lo" }, ollama),
        chunk({ content: "" }, { ...ollama, finish: "stop" }),
      ]),
      sse([chunk({ role: "assistant", content: "usage then done" }), usageChunk(10, 4), DONE]),
    );
    const a = await runChatcli(["ask", "hi"], { env: env(llm, home.path), cwd: home.path });
    const b = await runChatcli(["ask", "hi", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect([a.code, a.stdout]).toEqual([0, "Hello\n"]);
    expect(b.code).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({
      result: "usage then done",
      usage: { input_tokens: 10, output_tokens: 4 },
    });
  });

  test("ask --session: a cut-off answer is not saved as a completed turn", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(CUT_OPENAI);
    const r = await runChatcli(["ask", "--session", "deploy", "why did it fail"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    const dir = join(home.path, ".chatcli", "sessions");
    const files = await readdir(dir).catch(() => [] as string[]);
    for (const file of files.filter((f) => f.endsWith(".json"))) {
      const text = await readFile(join(dir, file), "utf8");
      expect(text).not.toContain("the migration");
    }
  });
});

describe("Anthropic streams without message_stop", () => {
  test("text: exit 1 stream_truncated with the partial printed", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(CUT_ANTHROPIC);
    const r = await runChatcli(["ask", "who imports utils?"], {
      env: env(llm, home.path, "anthropic"),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("Three files import it\n");
    expect(r.stderr).toContain("the stream ended without message_stop");
  });

  test("--json: message_delta arrived but no message_stop → asked again, the complete answer wins", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      sse([...CUT_ANTHROPIC.frames, messageDelta("end_turn", 5)]),
      sse(anthropicAnswer(["Three files: ", "a.ts, b.ts, c.ts."])),
    );
    const r = await runChatcli(["ask", "who imports utils?", "--json"], {
      env: env(llm, home.path, "anthropic"),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.result).toBe("Three files: a.ts, b.ts, c.ts.");
    expect(out.warnings.map((w: { code: string }) => w.code)).toEqual(["answer_restarted"]);
  });
});

describe("agent", () => {
  test("--json: cut off twice → exit 1 stream_truncated, the partial in result, no assistant turn saved", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(CUT_OPENAI, CUT_OPENAI);
    const r = await runChatcli(["agent", "why did the deploy fail", "--session", "ops", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      terminal_reason: "stream_truncated",
      error: { code: "stream_truncated" },
      result: "The deploy failed because the migration",
    });
    const saved = await readFile(join(home.path, ".chatcli", "sessions", "ops.json"), "utf8");
    expect(saved).toContain("why did the deploy fail");
    expect(saved).not.toContain("the migration");
  });

  test("--jsonl: the deltas already went out, so a cut-off reply ends the run at once", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(CUT_ANTHROPIC);
    llm.push({ text: "not asked" });
    const r = await runChatcli(["agent", "who imports utils?", "--jsonl"], {
      env: env(llm, home.path, "anthropic"),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    const last = JSON.parse(r.stdout.trim().split("\n").at(-1) as string);
    expect(last).toMatchObject({
      type: "result",
      terminal_reason: "stream_truncated",
      result: "Three files import it",
    });
    expect(llm.requests).toHaveLength(1);
  });
});
