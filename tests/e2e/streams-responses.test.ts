/**
 * OpenAI Responses API streams as the API sends them (tests/support/wire-responses.ts), through the
 * built binary and the real `openai` SDK: message `phase` (commentary is progress, final_answer the
 * answer, unknown phases never lose text), each request's usage in a tool loop, and quota errors
 * (`insufficient_quota` in response.failed, in an `error` event, or as an HTTP 429) reported as quota,
 * not as a spent retry budget.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { jsonError } from "../support/wire-fixtures.ts";
import { responsesStream } from "../support/wire-responses.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: envelopes and bodies are inspected freely
type Json = any;

function run(llm: MockLlm, home: string, args: string[], extra: Record<string, string> = {}) {
  return runChatcli(args, {
    env: baseEnv(home, {
      LLM_PROVIDER: "OPENAI",
      OPENAI_API_KEY: "sk-mock-openai",
      OPENAI_BASE_URL: `${llm.url}/v1`,
      OPENAI_USE_RESPONSES: "true",
      CHATCLI_MEMORY_ENABLED: "false",
      ...extra,
    }),
    cwd: home,
  });
}

function lines(stdout: string): Json[] {
  return stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

const QUOTA_MESSAGE =
  "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.";

describe("message phase: commentary is progress, final_answer is the answer", () => {
  test("commentary then final_answer in one response: only the final answer is printed and is the result", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const stream = responsesStream(
      [
        { type: "reasoning", id: "rs_1", encrypted_content: "gAAAA-1" },
        { type: "message", phase: "commentary", text: "Let me work this out step by step." },
        { type: "reasoning", id: "rs_2", encrypted_content: "gAAAA-2" },
        { type: "message", phase: "final_answer", text: "The answer is 42." },
      ],
      { type: "completed", usage: { input: 120, output: 60, reasoning: 30 } },
    );
    llm.pushRaw(stream, stream);
    const text = await run(llm, home.path, ["ask", "what is it?"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe("The answer is 42.\n");
    const json = await run(llm, home.path, ["ask", "what is it?", "--json"]);
    expect(json.code).toBe(0);
    const envelope = JSON.parse(json.stdout);
    expect(envelope.result).toBe("The answer is 42.");
    expect(envelope.usage).toMatchObject({
      input_tokens: 120,
      output_tokens: 60,
      reasoning_tokens: 30,
    });
  });

  test("agent: commentary around tool calls never becomes the result, and goes back with its phase, in order", async () => {
    await using home = await tempDir();
    await writeFile(join(home.path, "a.txt"), "alpha-content\n");
    await using llm = await startMockLlm();
    llm.pushRaw(
      responsesStream(
        [
          { type: "reasoning", id: "rs_1", encrypted_content: "gAAAA-1" },
          { type: "message", phase: "commentary", text: "I'll read a.txt first." },
          {
            type: "function_call",
            call_id: "call_1",
            name: "read_file",
            arguments: '{"file":"a.txt"}',
          },
        ],
        { type: "completed", usage: { input: 900, output: 40 } },
      ),
      responsesStream(
        [
          { type: "message", phase: "commentary", text: "Got it; summarising." },
          { type: "message", phase: "final_answer", text: "It says alpha." },
        ],
        { type: "completed", usage: { input: 1000, output: 20, cached: 800 } },
      ),
    );
    const r = await run(llm, home.path, ["agent", "what is in a.txt?", "--json"]);
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.result).toBe("It says alpha.");
    expect(r.stdout).not.toContain("summarising");
    const input = (llm.requests[1]?.body as Json)?.input as Json[];
    const tail = input.slice(-4);
    expect(tail[0]).toMatchObject({ type: "reasoning", id: "rs_1" });
    expect(tail[1]).toEqual({
      role: "assistant",
      content: "I'll read a.txt first.",
      phase: "commentary",
    });
    expect(tail[2]).toMatchObject({ type: "function_call", call_id: "call_1", name: "read_file" });
    expect(tail[3]).toMatchObject({ type: "function_call_output", call_id: "call_1" });
    expect(JSON.stringify(input)).not.toContain("summarising");
  });

  test("--show-reasoning: commentary streams as reasoning.delta, never as message.delta", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      responsesStream(
        [
          { type: "message", phase: "commentary", text: "Checking the docs." },
          { type: "message", phase: "final_answer", text: "Use --json." },
        ],
        { type: "completed", usage: { input: 10, output: 10 } },
      ),
    );
    const r = await run(llm, home.path, ["ask", "how?", "--jsonl", "--show-reasoning"]);
    expect(r.code).toBe(0);
    const events = lines(r.stdout);
    const said = (type: string) =>
      events
        .filter((e) => e.type === type)
        .map((e) => e.text)
        .join("");
    expect(said("message.delta")).toBe("Use --json.");
    expect(said("reasoning.delta")).toContain("Checking the docs.");
    expect(events.at(-1)).toMatchObject({ type: "result", result: "Use --json." });
  });

  test("a response with only commentary answers with it; an unknown phase is never the answer beside a final_answer, and never lost alone", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const usage = { input: 10, output: 5 };
    llm.pushRaw(
      responsesStream([{ type: "message", phase: "commentary", text: "Only this." }], {
        type: "completed",
        usage,
      }),
      responsesStream(
        [
          { type: "message", phase: "deliberation", text: "Hmm, maybe." },
          { type: "message", phase: "final_answer", text: "Final." },
        ],
        { type: "completed", usage },
      ),
      responsesStream([{ type: "message", phase: "deliberation", text: "Still said." }], {
        type: "completed",
        usage,
      }),
      responsesStream([{ type: "message", phase: null, text: "No phase at all." }], {
        type: "completed",
        usage,
      }),
    );
    for (const expected of ["Only this.", "Final.", "Still said.", "No phase at all."]) {
      const r = await run(llm, home.path, ["ask", "q", "--json"]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).result).toBe(expected);
    }
  });

  test("a message whose text arrives only whole, in output_item.done (no deltas), is still the answer", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const stream = responsesStream([{ type: "message", phase: "final_answer", text: "Whole." }], {
      type: "completed",
      usage: { input: 10, output: 2 },
    });
    stream.frames = stream.frames.filter((f) => !f.startsWith("event: response.output_text.delta"));
    llm.pushRaw(stream);
    const r = await run(llm, home.path, ["ask", "q"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Whole.\n");
  });
});

test("a refusal item is a refusal (exit 1 refused, its words, usage still counted), not an empty answer", async () => {
  await using home = await tempDir();
  await using llm = await startMockLlm();
  llm.pushRaw(
    responsesStream([{ type: "refusal", refusal: "I can't help with that request." }], {
      type: "completed",
      usage: { input: 50, output: 9 },
    }),
  );
  const r = await run(llm, home.path, ["ask", "q", "--json"]);
  expect(r.code).toBe(1);
  const envelope = JSON.parse(r.stdout);
  expect(envelope.terminal_reason).toBe("refused");
  expect(envelope.error.message).toContain("I can't help with that request.");
  expect(envelope.usage).toMatchObject({ input_tokens: 50, output_tokens: 9 });
});

describe("usage on a tool loop: each request counts its own response.completed usage", () => {
  test("three requests: per-turn usage, cumulative sums, cached and reasoning tokens, cost", async () => {
    await using home = await tempDir();
    await writeFile(join(home.path, "a.txt"), "alpha\n");
    await writeFile(join(home.path, "b.txt"), "beta\n");
    await using llm = await startMockLlm();
    const call = (id: string, file: string) => ({
      type: "function_call" as const,
      call_id: id,
      name: "read_file",
      arguments: JSON.stringify({ file }),
    });
    llm.pushRaw(
      responsesStream(
        [
          { type: "reasoning", id: "rs_1", encrypted_content: "gAAAA-1" },
          { type: "message", phase: "commentary", text: "Reading both." },
          call("call_a", "a.txt"),
          call("call_b", "b.txt"),
        ],
        { type: "completed", usage: { input: 2000, output: 300, cached: 0, reasoning: 250 } },
      ),
      responsesStream([call("call_c", "a.txt")], {
        type: "completed",
        usage: { input: 2600, output: 40, cached: 1920, reasoning: 16 },
      }),
      responsesStream([{ type: "message", phase: "final_answer", text: "alpha and beta." }], {
        type: "completed",
        usage: { input: 2700, output: 12, cached: 2560, reasoning: 0 },
      }),
    );
    const r = await run(llm, home.path, ["agent", "read both", "--output-format", "stream-json"]);
    expect(r.code).toBe(0);
    const events = lines(r.stdout);
    const turns = events.filter((e) => e.type === "turn.completed");
    expect(turns.map((t) => t.usage)).toEqual([
      {
        input_tokens: 2000,
        output_tokens: 300,
        reasoning_tokens: 250,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
      {
        input_tokens: 2600,
        output_tokens: 40,
        reasoning_tokens: 16,
        cache_read_input_tokens: 1920,
        cache_creation_input_tokens: 0,
      },
      {
        input_tokens: 2700,
        output_tokens: 12,
        reasoning_tokens: 0,
        cache_read_input_tokens: 2560,
        cache_creation_input_tokens: 0,
      },
    ]);
    const total = {
      input_tokens: 7300,
      output_tokens: 352,
      reasoning_tokens: 266,
      cache_read_input_tokens: 4480,
      cache_creation_input_tokens: 0,
    };
    // the engine names the running total `cumulative` (agent) or `cumulative_usage` (ask)
    const last = turns.at(-1);
    expect(last.cumulative ?? last.cumulative_usage).toEqual(total);
    const result = events.at(-1);
    expect(result).toMatchObject({ type: "result", result: "alpha and beta.", usage: total });
    // gpt-5.4: $2.50 input, $0.25 cached input, $15 output per 1M tokens
    expect(result.total_cost_usd).toBeCloseTo(
      ((7300 - 4480) * 2.5 + 4480 * 0.25 + 352 * 15) / 1e6,
      10,
    );
    expect(llm.requests).toHaveLength(3);
  });

  test("a connection held open after response.completed: the request's usage counts once, not a stall retried as another request", async () => {
    await using home = await tempDir();
    await writeFile(join(home.path, "a.txt"), "alpha\n");
    await using llm = await startMockLlm();
    const first = responsesStream(
      [
        {
          type: "function_call",
          call_id: "call_1",
          name: "read_file",
          arguments: '{"file":"a.txt"}',
        },
      ],
      { type: "completed", usage: { input: 500, output: 30 } },
    );
    llm.pushRaw(
      { ...first, hold: true },
      responsesStream([{ type: "message", text: "It says alpha." }], {
        type: "completed",
        usage: { input: 600, output: 10, cached: 400 },
      }),
    );
    const r = await run(llm, home.path, ["agent", "read a.txt", "--json"], {
      CHATCLI_STREAM_IDLE_TIMEOUT_MS: "8000",
    });
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.result).toBe("It says alpha.");
    expect(envelope.tools.by_name).toEqual({ read_file: 1 });
    expect(envelope.usage).toMatchObject({
      input_tokens: 1100,
      output_tokens: 40,
      cache_read_input_tokens: 400,
    });
    expect(llm.requests).toHaveLength(2);
  });
});

describe("quota errors are quota errors, not a spent retry budget", () => {
  test("response.failed insufficient_quota before any output: one request, exit 1 rate_limited naming the quota", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    for (let i = 0; i < 5; i++) {
      llm.pushRaw(
        responsesStream([], { type: "failed", code: "insufficient_quota", message: QUOTA_MESSAGE }),
      );
    }
    const r = await run(llm, home.path, ["ask", "hi", "--json"], { CHATCLI_RETRY_BASE_MS: "5" });
    expect(r.code).toBe(1);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.terminal_reason).toBe("rate_limited");
    expect(envelope.error).toMatchObject({ code: "rate_limited", retryable: false });
    expect(envelope.error.message).toContain("exceeded your current quota");
    expect(envelope.error.message).toContain("insufficient_quota");
    expect(envelope.error.message).not.toContain("gave up");
    expect(envelope.error.hint).toContain("billing");
    expect(r.stderr).not.toContain("retrying in");
    expect(llm.requests).toHaveLength(1);
  });

  test("an `error` event with code insufficient_quota after text started: exit 1 naming the quota, the partial kept", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      responsesStream([{ type: "message", text: "Partial answ" }], {
        type: "error",
        code: "insufficient_quota",
        message: QUOTA_MESSAGE,
      }),
    );
    const r = await run(llm, home.path, ["ask", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toStartWith("Partial answ");
    expect(r.stderr).toContain("exceeded your current quota");
    expect(r.stderr).toContain("(insufficient_quota)");
    expect(r.stderr).not.toContain("gave up");
    expect(llm.requests).toHaveLength(1);
  });

  test("an HTTP 429 insufficient_quota is not retried; the fallback chain still answers", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const quota = jsonError(429, {
      error: {
        message: QUOTA_MESSAGE,
        type: "insufficient_quota",
        param: null,
        code: "insufficient_quota",
      },
    });
    llm.pushRaw(quota);
    const alone = await run(llm, home.path, ["ask", "hi", "--jsonl"]);
    expect(alone.code).toBe(1);
    const result = lines(alone.stdout).at(-1);
    expect(result.terminal_reason).toBe("rate_limited");
    expect(result.error.message).toMatch(
      /^openai: 429 You exceeded your current quota.*\(insufficient_quota\)$/,
    );
    expect(lines(alone.stdout).filter((e) => e.type === "retry")).toEqual([]);
    expect(llm.requests).toHaveLength(1);

    llm.pushRaw(quota);
    llm.push({ text: "from the fallback" });
    const chained = await run(llm, home.path, ["ask", "hi"], {
      CHATCLI_FALLBACK_PROVIDERS: "CLAUDEAI",
      ANTHROPIC_API_KEY: "sk-ant-test-key-000000000000000000",
      ANTHROPIC_BASE_URL: llm.url,
    });
    expect(chained.code).toBe(0);
    expect(chained.stdout).toBe("from the fallback\n");
    expect(llm.requests.at(-1)?.path).toMatch(/messages$/);
  });

  test("response.failed rate_limit_exceeded is a rate limit: retried after the wait its message states", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      responsesStream([], {
        type: "failed",
        code: "rate_limit_exceeded",
        message:
          "Rate limit reached for gpt-5.4 in organization org-mock on tokens per min (TPM): Limit 30000, Used 29800, Requested 900. Please try again in 40ms. Visit https://platform.openai.com/account/rate-limits to learn more.",
      }),
      responsesStream([{ type: "message", text: "after the wait" }], {
        type: "completed",
        usage: { input: 10, output: 3 },
      }),
    );
    const r = await run(llm, home.path, ["ask", "hi", "--jsonl"]);
    expect(r.code).toBe(0);
    const events = lines(r.stdout);
    expect(events.filter((e) => e.type === "retry").map((e) => e.delay_ms)).toEqual([40]);
    expect(events.at(-1)).toMatchObject({ result: "after the wait" });
  });
});
