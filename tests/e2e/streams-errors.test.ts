/**
 * Refusals, error events inside a 200 stream, and what SDKs would print, through the built binary
 * (mock LLM replaying real wire shapes): never an exit 0, never raw SDK text on stderr.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import {
  anthropicAnswer,
  chunk,
  DONE,
  data,
  event,
  htmlPage,
  messageDelta,
  messageStart,
  openaiAnswer,
  sse,
  textBlock,
} from "../support/wire-fixtures.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: envelopes are arbitrary JSON
type Json = any;

function env(llm: MockLlm, home: string, api: "openai" | "anthropic" = "openai", extra = {}) {
  return baseEnv(home, { ...llm.env(api), CHATCLI_RETRY_BASE_MS: "1", ...extra });
}

function lines(stdout: string): Json[] {
  return stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

describe("refusals → exit 1 refused, with the provider's explanation", () => {
  test("Anthropic stop_reason refusal with stop_details (ask --json, and agent)", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const refusal = sse([
      messageStart(),
      ...textBlock(0, ["Here is how to "]),
      messageDelta("refusal", 6, {
        stop_details: {
          type: "refusal",
          category: "cyber",
          explanation: "This request was declined because it could enable cyber harm.",
        },
      }),
      event("message_stop"),
    ]);
    llm.pushRaw(refusal, refusal);
    for (const command of ["ask", "agent"]) {
      const r = await runChatcli([command, "write malware", "--json"], {
        env: env(llm, home.path, "anthropic"),
        cwd: home.path,
      });
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({
        status: "error",
        terminal_reason: "refused",
        error: { code: "refused", retryable: false },
      });
      expect(out.error.message).toContain("could enable cyber harm");
      expect(out.error.message).toContain("category cyber");
      if (command === "ask") expect(out.usage.output_tokens).toBe(6); // still billed
      expect(out.warnings.map((w: Json) => w.code)).not.toContain("empty_answer");
    }
    expect(llm.requests).toHaveLength(2);
  });

  test("OpenAI refusal deltas: the refusal text is the explanation, not the answer", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      sse([
        chunk({ role: "assistant", content: null, refusal: "" }),
        chunk({ refusal: "I'm sorry, " }),
        chunk({ refusal: "I can't help with that." }),
        chunk({}, { finish: "stop" }),
        DONE,
      ]),
    );
    const r = await runChatcli(["ask", "something", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      terminal_reason: "refused",
      result: null,
      error: {
        code: "refused",
        message: "openai: the model refused: I'm sorry, I can't help with that.",
      },
    });
  });

  test("finish_reason content_filter (Azure OpenAI): text mode exit 1, the reason on stderr", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      sse([
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "Sure, the " }),
        chunk({}, { finish: "content_filter" }),
        DONE,
      ]),
    );
    const r = await runChatcli(["ask", "something"], { env: env(llm, home.path), cwd: home.path });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("content filter stopped the answer (finish_reason content_filter)");
  });
});

describe("an error event inside the stream", () => {
  test("Anthropic event: error overloaded_error before any text is retried like a 529", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      sse([
        messageStart(),
        event("ping"),
        event("error", { error: { type: "overloaded_error", message: "Overloaded" } }),
      ]),
      sse(anthropicAnswer(["after ", "the overload"])),
    );
    const r = await runChatcli(["ask", "hi", "--jsonl"], {
      env: env(llm, home.path, "anthropic"),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const events = lines(r.stdout);
    expect(events.find((e) => e.type === "retry")).toMatchObject({
      attempt: 1,
      error: { code: "server", message: expect.stringContaining("Overloaded") },
    });
    expect(events.at(-1)).toMatchObject({ result: "after the overload", exit_code: 0 });
  });

  test("OpenRouter error chunk (code 502, finish_reason error) before any text is retried; code 429 as a rate limit", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const routerError = (code: number, message: string) =>
      data({
        id: "gen-1764547200-abc",
        object: "chat.completion.chunk",
        created: 1764547200,
        model: "moonshotai/kimi-k2",
        provider: "Chutes",
        error: { code, message, metadata: { provider_name: "Chutes" } },
        choices: [
          {
            index: 0,
            delta: { content: "" },
            finish_reason: "error",
            native_finish_reason: "error",
          },
        ],
      });
    llm.pushRaw(
      sse([": OPENROUTER PROCESSING\n\n", routerError(502, "Upstream error from Chutes")]),
      sse([routerError(429, "Rate limit exceeded: free-models-per-min")]),
      sse(openaiAnswer(["third ", "time lucky"])),
    );
    const r = await runChatcli(["ask", "hi", "--jsonl"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const retries = lines(r.stdout).filter((e) => e.type === "retry");
    expect(retries.map((e) => e.error.code)).toEqual(["server", "rate_limit"]);
    expect(lines(r.stdout).at(-1)).toMatchObject({ result: "third time lucky" });
    expect(llm.requests).toHaveLength(3);
  });

  test("after output started (text mode) an error chunk ends the run with exit 1 and the partial printed", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      sse([
        chunk({ role: "assistant", content: "Partial " }),
        chunk({ content: "answer" }),
        data({
          error: {
            message: "The server had an error while processing your request.",
            type: "server_error",
            param: null,
            code: null,
          },
        }),
      ]),
    );
    llm.push({ text: "not asked" });
    const r = await runChatcli(["ask", "hi"], { env: env(llm, home.path), cwd: home.path });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("Partial answer\n");
    expect(r.stderr).toContain("The server had an error while processing your request.");
    expect(llm.requests).toHaveLength(1);
  });
});

describe("nothing an SDK prints reaches stderr raw", () => {
  test("the Anthropic SDK's deprecation notice becomes warning model_deprecated, once per run", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push(
      { tool_calls: [{ name: "list_directory", arguments: { path: "." } }] },
      { text: "an empty directory" },
    );
    const r = await runChatcli(
      ["agent", "-m", "anthropic/claude-sonnet-4-5", "what is here", "--json"],
      { env: env(llm, home.path, "anthropic"), cwd: home.path },
    );
    expect(r.code).toBe(0);
    expect(llm.requests).toHaveLength(2);
    const out = JSON.parse(r.stdout);
    const deprecated = out.warnings.filter((w: Json) => w.code === "model_deprecated");
    expect(deprecated).toHaveLength(1);
    expect(deprecated[0].message).toContain("claude-sonnet-4-5' is deprecated");
    expect(r.stderr.match(/is deprecated/g)).toHaveLength(1);
    expect(r.stderr).toContain("chatcli: warning: The model 'claude-sonnet-4-5' is deprecated");
    expect(r.stderr).not.toContain("Please migrate to a newer model");
  });

  test("an event that is not JSON: a typed, retried error — no 'Could not parse message into JSON' dump", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const broken =
      'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"delta":{"content":"hi\n\n';
    llm.pushRaw(
      sse([broken]),
      sse(openaiAnswer(["clean"])),
      sse([chunk({ role: "assistant", content: "half" }), broken]),
    );
    const first = await runChatcli(["ask", "hi"], { env: env(llm, home.path), cwd: home.path });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("clean\n");
    expect(first.stderr).not.toContain("Could not parse message into JSON");
    expect(first.stderr).not.toContain("From chunk");
    // after output started (text mode): exit 1 with the typed error, the partial kept
    const second = await runChatcli(["ask", "hi"], { env: env(llm, home.path), cwd: home.path });
    expect(second.code).toBe(1);
    expect(second.stdout).toBe("half\n");
    expect(second.stderr).toContain("openai: the stream carried an event that is not valid JSON");
    expect(second.stderr).not.toContain("Could not parse message into JSON");
    expect(second.stderr).not.toContain("From chunk");
  });

  test("an HTML error page is summarised as status + title, never dumped", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(htmlPage(502, "502 Bad Gateway"), htmlPage(200, "Sign in to the Wi-Fi"));
    const gateway = await runChatcli(["ask", "hi", "--json", "--max-retries", "0"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    const portal = await runChatcli(["ask", "hi", "--json", "--max-retries", "0"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(gateway.code).toBe(1);
    expect(JSON.parse(gateway.stdout).error.message).toStartWith(
      'openai: 502 an HTML page ("502 Bad Gateway") — gave up',
    );
    expect(portal.code).toBe(1);
    expect(JSON.parse(portal.stdout).error.message).toContain(
      'answered with an HTML page ("Sign in to the Wi-Fi") instead of the API',
    );
    for (const r of [gateway, portal]) {
      expect(r.stderr).not.toContain("<html");
      expect(r.stdout).not.toContain("<html");
    }
  });
});
