import { describe, expect, test } from "bun:test";
import { complete } from "../../../lib/llm/complete.ts";
import { ProviderError } from "../../../lib/llm/errors.ts";
import { endpointOf } from "../../../lib/llm/providers/openai.ts";
import { withResilience } from "../../../lib/llm/retry.ts";
import type { ToolSpec } from "../../../lib/llm/types.ts";
import { startMockLlm } from "../../support/mock-llm.ts";
import { collect, failure, mockRef, provider, request } from "./_helpers.ts";

const signal = () => new AbortController().signal;
const noSleep = { sleep: async () => {}, baseDelayMs: 1 };

function tool(name: string): ToolSpec {
  return { name, description: `${name} tool`, input_schema: { type: "object", properties: {} } };
}

describe("openai provider: streaming", () => {
  test("streams text in several deltas, then usage and done", async () => {
    await using llm = await startMockLlm();
    llm.push({ text: "Hello there, friend" });
    const p = await provider(mockRef("openai", llm.url));
    const events = await collect(p.stream(request(), signal()));
    const texts = events.flatMap((e) => (e.type === "text" ? [e.text] : []));
    expect(texts.join("")).toBe("Hello there, friend");
    expect(texts.length).toBeGreaterThan(1);
    expect(events.at(-1)).toEqual({ type: "done", stop: "end" });
    expect(events.at(-2)?.type).toBe("usage");
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]?.path).toBe("/v1/chat/completions");
    expect(llm.requests[0]?.headers["authorization"]).toBe("Bearer sk-test");
  });

  test("accumulates tool-call arguments streamed across deltas", async () => {
    await using llm = await startMockLlm();
    llm.push({
      tool_calls: [
        { id: "call_a", name: "read_file", arguments: { path: "src/main.ts", start: 10 } },
        { id: "call_b", name: "search", arguments: { query: "TODO" } },
      ],
    });
    const p = await provider(mockRef("openai", llm.url));
    const result = await complete(p, request(), signal());
    expect(result.toolCalls).toEqual([
      {
        id: "call_a",
        type: "function",
        name: "read_file",
        arguments: { path: "src/main.ts", start: 10 },
      },
      { id: "call_b", type: "function", name: "search", arguments: { query: "TODO" } },
    ]);
    expect(result.stop).toBe("tool_use");
  });

  test("invalid JSON arguments become {} with the raw text kept", async () => {
    await using llm = await startMockLlm();
    llm.push({
      tool_calls: [{ id: "c1", name: "write_file", arguments: {}, raw_arguments: '{"path": "a' }],
    });
    const p = await provider(mockRef("openai", llm.url));
    const result = await complete(p, request(), signal());
    expect(result.toolCalls[0]).toMatchObject({
      name: "write_file",
      arguments: {},
      raw: '{"path": "a',
    });
  });

  test("maps length to max_tokens", async () => {
    await using llm = await startMockLlm();
    llm.push({ text: "cut", stop: "max_tokens" });
    const p = await provider(mockRef("openai", llm.url));
    expect((await complete(p, request(), signal())).stop).toBe("max_tokens");
  });
});

describe("openai provider: what reaches the wire", () => {
  test("one system message in block order, tools sorted, include_usage, tool messages", async () => {
    await using llm = await startMockLlm();
    const p = await provider(mockRef("openai", llm.url));
    await complete(
      p,
      request({
        system: [
          { id: "core", text: "CORE", cache: true },
          { id: "memory", text: "MEMORY", cache: false },
          { id: "date", text: "DATE", cache: false },
        ],
        tools: [tool("write_file"), tool("read_file"), tool("grep")],
        maxTokens: 321,
        messages: [
          { role: "user", content: "fix it" },
          {
            role: "assistant",
            content: "",
            tool_calls: [{ id: "c1", name: "read_file", arguments: { path: "a.ts" } }],
          },
          { role: "tool", content: "file text", tool_call_id: "c1" },
        ],
      }),
      signal(),
    );
    const body = llm.requests[0]?.body;
    expect(body.model).toBe("gpt-5.4");
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.max_completion_tokens).toBe(321);
    expect(body.messages).toEqual([
      { role: "system", content: "CORE\n\nMEMORY\n\nDATE" },
      { role: "user", content: "fix it" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"a.ts"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "file text" },
    ]);
    expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      "grep",
      "read_file",
      "write_file",
    ]);
    expect(body.tools[0]).toEqual({
      type: "function",
      function: {
        name: "grep",
        description: "grep tool",
        parameters: { type: "object", properties: {} },
      },
    });
  });

  test("OpenAI-compatible providers send max_tokens", async () => {
    await using llm = await startMockLlm();
    const ref = { ...mockRef("openai", llm.url, "llama3"), provider: "ollama" };
    const p = await provider(ref);
    await complete(p, request({ maxTokens: 50 }), signal());
    expect(llm.requests[0]?.body.max_tokens).toBe(50);
    expect(llm.requests[0]?.body.max_completion_tokens).toBeUndefined();
  });

  test("OPENAI_API_URL (a full chat-completions URL) is honoured", async () => {
    await using llm = await startMockLlm();
    const ref = {
      ...mockRef("openai", llm.url),
      baseURL: undefined,
      chatUrl: `${llm.url}/proxy/v9/chat/completions`,
    };
    expect(endpointOf(ref)).toEqual({ baseURL: `${llm.url}/proxy/v9` });
    const p = await provider(ref);
    await complete(p, request(), signal());
    expect(llm.requests[0]?.path).toBe("/proxy/v9/chat/completions");
  });

  test("an OPENAI_API_URL with a query string is used verbatim", async () => {
    await using llm = await startMockLlm();
    const chatUrl = `${llm.url}/deploy/chat/completions?api-version=1`;
    const p = await provider({ ...mockRef("openai", llm.url), baseURL: undefined, chatUrl });
    await complete(p, request(), signal());
    expect(llm.requests[0]?.path).toBe("/deploy/chat/completions");
  });
});

describe("openai provider: usage and prompt caching", () => {
  test("the second request with the same prefix reports cached tokens", async () => {
    await using llm = await startMockLlm();
    const p = await provider(mockRef("openai", llm.url));
    const big = "stable system context. ".repeat(400);
    const base = request({ system: [{ id: "core", text: big, cache: true }] });
    const first = await complete(p, base, signal());
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.input_tokens).toBeGreaterThan(2000);
    const second = await complete(
      p,
      {
        ...base,
        messages: [
          ...base.messages,
          { role: "assistant", content: "hi" },
          { role: "user", content: "more" },
        ],
      },
      signal(),
    );
    expect(second.usage.cache_read_input_tokens).toBeGreaterThan(2000);
    expect(second.usage.cache_read_input_tokens % 64).toBe(0);
    expect(second.usage.cache_read_input_tokens).toBeLessThanOrEqual(second.usage.input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
  });

  test("reasoning tokens and scripted usage are mapped", async () => {
    await using llm = await startMockLlm();
    llm.push({ text: "x", usage: { input_tokens: 100, output_tokens: 40, reasoning_tokens: 30 } });
    const p = await provider(mockRef("openai", llm.url));
    const { usage } = await complete(p, request(), signal());
    expect(usage).toEqual({
      input_tokens: 100,
      output_tokens: 40,
      reasoning_tokens: 30,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
  });
});

describe("openai provider: errors", () => {
  test("401 → auth, not retried", async () => {
    await using llm = await startMockLlm();
    llm.push({ error: { status: 401, message: "Incorrect API key provided" } });
    const p = withResilience([await provider(mockRef("openai", llm.url))], noSleep);
    const error = await failure(p.stream(request(), signal()));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe("auth");
    expect((error as ProviderError).reason).toBe("auth_error");
    expect((error as ProviderError).message).toContain("Incorrect API key provided");
    expect((error as ProviderError).hint).toContain("OPENAI_API_KEY");
    expect(llm.requests).toHaveLength(1);
  });

  test("429 carries retry-after, and withResilience retries to success", async () => {
    await using llm = await startMockLlm();
    llm.push(
      { error: { status: 429, message: "Rate limit reached", retry_after: 7 } },
      { text: "ok now" },
    );
    const raw = await provider(mockRef("openai", llm.url));
    const delays: number[] = [];
    const p = withResilience([raw], { ...noSleep, onRetry: (n) => delays.push(n.delayMs) });
    const result = await complete(p, request(), signal());
    expect(result.text).toBe("ok now");
    expect(delays).toEqual([7000]);
    expect(llm.requests).toHaveLength(2);
  });

  test("429 is a rate_limit ProviderError with retryAfterMs", async () => {
    await using llm = await startMockLlm();
    llm.push({ error: { status: 429, message: "slow down", retry_after: 2 } });
    const error = (await failure(
      (await provider(mockRef("openai", llm.url))).stream(request(), signal()),
    )) as ProviderError;
    expect(error.kind).toBe("rate_limit");
    expect(error.status).toBe(429);
    expect(error.retryAfterMs).toBe(2000);
  });

  test("500 on every retry falls back to the next provider of the chain", async () => {
    await using primary = await startMockLlm();
    await using backup = await startMockLlm();
    primary.push(...Array.from({ length: 3 }, () => ({ error: { status: 500, message: "boom" } })));
    backup.push({ text: "from backup" });
    const chain = [
      await provider(mockRef("openai", primary.url)),
      await provider(mockRef("anthropic", backup.url)),
    ];
    const p = withResilience(chain, { ...noSleep, maxRetries: 2 });
    const result = await complete(p, request(), signal());
    expect(result.text).toBe("from backup");
    expect(primary.requests).toHaveLength(3);
    expect(backup.requests[0]?.body.model).toBe("claude-sonnet-4-6");
  });

  test("a context-length error is recognised", async () => {
    await using llm = await startMockLlm();
    llm.push({
      error: {
        status: 400,
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
      },
    });
    const error = (await failure(
      (await provider(mockRef("openai", llm.url))).stream(request(), signal()),
    )) as ProviderError;
    expect(error.kind).toBe("context_length");
    expect(error.reason).toBe("context_overflow");
  });

  test("a refused connection is a network error", async () => {
    const llm = await startMockLlm();
    const url = llm.url;
    await llm.close();
    const error = (await failure(
      (await provider(mockRef("openai", url))).stream(request(), signal()),
    )) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.kind).toBe("network");
  });

  test("a stream that stalls raises timeout after the idle timeout", async () => {
    await using llm = await startMockLlm();
    llm.push({ text: "never finished", stall: true });
    const p = await provider(mockRef("openai", llm.url), 150);
    const error = (await failure(p.stream(request(), signal()))) as ProviderError;
    expect(error.kind).toBe("timeout");
    expect(error.message).toContain("stalled");
  });

  test("the caller's abort signal cancels an in-flight request", async () => {
    await using llm = await startMockLlm();
    llm.push({ text: "hangs", stall: true });
    const p = await provider(mockRef("openai", llm.url));
    const controller = new AbortController();
    const pending = failure(p.stream(request(), controller.signal));
    await llm.waitForHits(1);
    controller.abort(new Error("SIGINT"));
    const error = (await pending) as ProviderError;
    expect(error.kind).toBe("cancelled");
    expect(error.reason).toBe("cancelled");
  });

  test("aborting after the first text delta cancels the stream", async () => {
    await using llm = await startMockLlm();
    llm.push({ text: "a long answer that stalls", stall: true });
    const p = await provider(mockRef("openai", llm.url));
    const controller = new AbortController();
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const event of p.stream(request(), controller.signal)) {
        seen.push(event.type);
        controller.abort(new Error("SIGINT"));
      }
    } catch (error) {
      caught = error;
    }
    expect(seen).toEqual(["text"]);
    expect((caught as ProviderError).kind).toBe("cancelled");
  });

  test("an already-aborted signal makes no request", async () => {
    await using llm = await startMockLlm();
    const controller = new AbortController();
    controller.abort();
    const error = (await failure(
      (await provider(mockRef("openai", llm.url))).stream(request(), controller.signal),
    )) as ProviderError;
    expect(error.kind).toBe("cancelled");
    expect(llm.requests).toHaveLength(0);
  });

  test("an error event after output started is rethrown, not retried", async () => {
    await using llm = await startMockLlm();
    llm.push(
      { text: "partial answer", error: { status: 529, message: "Overloaded" } },
      { text: "unused" },
    );
    const p = withResilience([await provider(mockRef("openai", llm.url))], {
      sleep: async () => {},
    });
    const texts: string[] = [];
    let caught: unknown;
    try {
      for await (const event of p.stream(request(), signal())) {
        if (event.type === "text") texts.push(event.text);
      }
    } catch (error) {
      caught = error;
    }
    expect(texts.join("")).toBe("partial answer");
    expect(caught).toBeInstanceOf(ProviderError);
    expect((caught as ProviderError).kind).toBe("server");
    expect((caught as ProviderError).message).toContain("Overloaded");
    expect(llm.requests).toHaveLength(1);
  });
});
