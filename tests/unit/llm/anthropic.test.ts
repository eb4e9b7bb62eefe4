import { describe, expect, test } from "bun:test";
import { complete } from "../../../lib/llm/complete.ts";
import { ProviderError } from "../../../lib/llm/errors.ts";
import { withResilience } from "../../../lib/llm/retry.ts";
import type { LlmRequest, SystemBlock, ToolSpec } from "../../../lib/llm/types.ts";
import { startMockLlm } from "../../support/mock-llm.ts";
import { collect, failure, mockRef, provider, request } from "./_helpers.ts";

const signal = () => new AbortController().signal;

function tool(name: string): ToolSpec {
  return { name, description: `${name} tool`, input_schema: { type: "object" } };
}

function block(id: string, cache: boolean, text = id.toUpperCase()): SystemBlock {
  return { id, text, cache };
}

describe("anthropic provider: streaming", () => {
  test("streams text and tool calls with arguments split across deltas", async () => {
    await using llm = await startMockLlm();
    llm.push({
      text: "Let me look.",
      tool_calls: [
        { id: "toolu_1", name: "read_file", arguments: { path: "src/a.ts", lines: [1, 20] } },
      ],
    });
    const p = await provider(mockRef("anthropic", llm.url));
    const events = await collect(p.stream(request(), signal()));
    expect(events.filter((e) => e.type === "text").length).toBeGreaterThan(1);
    const result = {
      text: events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join(""),
      toolCalls: events.flatMap((e) => (e.type === "tool_call" ? [e.call] : [])),
      stop: events.at(-1)?.type === "done" ? (events.at(-1) as { stop: string }).stop : undefined,
    };
    expect(result.text).toBe("Let me look.");
    expect(result.toolCalls).toEqual([
      {
        id: "toolu_1",
        type: "function",
        name: "read_file",
        arguments: { path: "src/a.ts", lines: [1, 20] },
      },
    ]);
    expect(result.stop).toBe("tool_use");
    expect(events.at(-1)).toEqual({ type: "done", stop: "tool_use" });
    expect(llm.requests[0]?.path).toBe("/v1/messages");
  });

  test("max_tokens stop and the default max_tokens on the wire", async () => {
    await using llm = await startMockLlm();
    llm.push({ text: "cut", stop: "max_tokens" });
    const p = await provider(mockRef("anthropic", llm.url));
    expect((await complete(p, request(), signal())).stop).toBe("max_tokens");
    expect(llm.requests[0]?.body.max_tokens).toBe(8192);
    expect(llm.requests[0]?.body.stream).toBe(true);
  });
});

describe("anthropic provider: what reaches the wire", () => {
  test("system blocks in order with cache_control on marked blocks; tools sorted, last one cached", async () => {
    await using llm = await startMockLlm();
    const p = await provider(mockRef("anthropic", llm.url));
    await complete(
      p,
      request({
        system: [block("core", true), block("bootstrap", true), block("dynamic", false)],
        tools: [tool("write_file"), tool("grep"), tool("read_file")],
        maxTokens: 1000,
      }),
      signal(),
    );
    const body = llm.requests[0]?.body;
    expect(body.max_tokens).toBe(1000);
    expect(body.system).toEqual([
      { type: "text", text: "CORE", cache_control: { type: "ephemeral" } },
      { type: "text", text: "BOOTSTRAP", cache_control: { type: "ephemeral" } },
      { type: "text", text: "DYNAMIC" },
    ]);
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual([
      "grep",
      "read_file",
      "write_file",
    ]);
    expect(body.tools[2].cache_control).toEqual({ type: "ephemeral" });
    expect(body.tools[0].cache_control).toBeUndefined();
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [{ type: "text", text: "hello", cache_control: { type: "ephemeral" } }],
      },
    ]);
  });

  test("never more than 4 breakpoints: the latest marked system blocks are kept", async () => {
    await using llm = await startMockLlm();
    const p = await provider(mockRef("anthropic", llm.url));
    await complete(
      p,
      request({
        system: ["a", "b", "c", "d", "e"].map((id) => block(id, true)),
        tools: [tool("grep")],
      }),
      signal(),
    );
    const raw = JSON.stringify(llm.requests[0]?.body);
    expect(raw.match(/cache_control/g)).toHaveLength(4);
    const marked = llm.requests[0]?.body.system.filter(
      (b: { cache_control?: unknown }) => b.cache_control,
    );
    expect(marked.map((b: { text: string }) => b.text)).toEqual(["D", "E"]);
  });

  test("history: tool_use blocks, tool results grouped in one user message, system messages moved", async () => {
    await using llm = await startMockLlm();
    const p = await provider(mockRef("anthropic", llm.url));
    const req: LlmRequest = request({
      tools: [tool("read_file")],
      messages: [
        { role: "user", content: "look at both" },
        {
          role: "assistant",
          content: "Reading.",
          tool_calls: [
            { id: "t1", name: "read_file", arguments: { path: "a" } },
            { id: "t2", name: "read_file", arguments: { path: "b" } },
          ],
        },
        { role: "tool", tool_call_id: "t1", content: "A" },
        { role: "tool", tool_call_id: "t2", content: "no such file", is_error: true },
        { role: "system", content: "Summary of earlier turns." },
        { role: "user", content: "and now?" },
      ],
    });
    await complete(p, req, signal());
    const body = llm.requests[0]?.body;
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "look at both" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "t1", name: "read_file", input: { path: "a" } },
          { type: "tool_use", id: "t2", name: "read_file", input: { path: "b" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "A" },
          { type: "tool_result", tool_use_id: "t2", content: "no such file", is_error: true },
          { type: "text", text: "and now?", cache_control: { type: "ephemeral" } },
        ],
      },
    ]);
    expect(body.system.at(-1)).toEqual({ type: "text", text: "Summary of earlier turns." });
  });

  test("a request without tools carries earlier tool calls and results as text (the API rejects the blocks)", async () => {
    await using llm = await startMockLlm();
    const p = await provider(mockRef("anthropic", llm.url));
    await complete(
      p,
      request({
        messages: [
          {
            role: "assistant",
            content: "",
            tool_calls: [{ id: "t1", name: "read_file", arguments: { path: "a" } }],
          },
          { role: "tool", tool_call_id: "t1", content: "no such file", is_error: true },
          { role: "user", content: "and now?" },
        ],
      }),
      signal(),
    );
    const body = llm.requests[0]?.body;
    expect(body.tools).toBeUndefined();
    expect(body.messages).toEqual([
      {
        role: "assistant",
        content: [{ type: "text", text: '[tool call read_file {"path":"a"}]' }],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "[tool result (error)]\nno such file" },
          { type: "text", text: "and now?", cache_control: { type: "ephemeral" } },
        ],
      },
    ]);
  });

  test("API key and OAuth token are sent as credentials", async () => {
    await using llm = await startMockLlm();
    await complete(await provider(mockRef("anthropic", llm.url)), request(), signal());
    const oauth = { ...mockRef("anthropic", llm.url), apiKey: undefined, authToken: "oauth-tok" };
    await complete(await provider(oauth), request(), signal());
    const [first, second] = llm.requests;
    expect(
      `${first?.headers["x-api-key"] ?? ""}${first?.headers["authorization"] ?? ""}`,
    ).toContain("sk-ant-test");
    expect(second?.headers["authorization"]).toBe("Bearer oauth-tok");
  });
});

describe("anthropic provider: usage and prompt caching", () => {
  test("the first request writes the cache, the second identical-prefix request reads it", async () => {
    await using llm = await startMockLlm();
    const p = await provider(mockRef("anthropic", llm.url));
    const base = request({
      system: [block("core", true, "core prompt ".repeat(300)), block("date", false, "today")],
      tools: [tool("read_file")],
    });
    const first = await complete(p, base, signal());
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(800);
    expect(first.usage.input_tokens).toBeGreaterThanOrEqual(
      first.usage.cache_creation_input_tokens,
    );
    const second = await complete(
      p,
      {
        ...base,
        messages: [
          ...base.messages,
          { role: "assistant", content: "hi" },
          { role: "user", content: "again" },
        ],
      },
      signal(),
    );
    // the whole first prompt (up to its last breakpoint, the first user message) is read back
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_read_input_tokens / second.usage.input_tokens).toBeGreaterThan(0.9);
    // the new turns up to the new last breakpoint are written
    expect(second.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.usage.input_tokens).toBeGreaterThanOrEqual(
      second.usage.cache_read_input_tokens + second.usage.cache_creation_input_tokens,
    );
  });

  test("input_tokens sums uncached, cache-read and cache-write counters", async () => {
    await using llm = await startMockLlm();
    llm.push({
      text: "x",
      usage: {
        input_tokens: 1000,
        cache_read_input_tokens: 700,
        cache_creation_input_tokens: 200,
        output_tokens: 9,
      },
    });
    const { usage } = await complete(
      await provider(mockRef("anthropic", llm.url)),
      request(),
      signal(),
    );
    expect(usage).toEqual({
      input_tokens: 1000,
      output_tokens: 9,
      reasoning_tokens: 0,
      cache_read_input_tokens: 700,
      cache_creation_input_tokens: 200,
    });
  });
});

describe("anthropic provider: errors", () => {
  test("401 → auth with a hint naming ANTHROPIC_API_KEY", async () => {
    await using llm = await startMockLlm();
    llm.push({ error: { status: 401, message: "invalid x-api-key" } });
    const error = (await failure(
      (await provider(mockRef("anthropic", llm.url))).stream(request(), signal()),
    )) as ProviderError;
    expect(error.kind).toBe("auth");
    expect(error.message).toContain("invalid x-api-key");
    expect(error.hint).toContain("ANTHROPIC_API_KEY");
  });

  test("529 overloaded → server, retried through withResilience", async () => {
    await using llm = await startMockLlm();
    llm.push({ error: { status: 529, message: "Overloaded" } }, { text: "fine" });
    const p = withResilience([await provider(mockRef("anthropic", llm.url))], {
      sleep: async () => {},
    });
    expect((await complete(p, request(), signal())).text).toBe("fine");
    expect(llm.requests).toHaveLength(2);
  });

  test("prompt is too long → context_length", async () => {
    await using llm = await startMockLlm();
    llm.push({
      error: { status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" },
    });
    const error = (await failure(
      (await provider(mockRef("anthropic", llm.url))).stream(request(), signal()),
    )) as ProviderError;
    expect(error.kind).toBe("context_length");
  });

  test("a stalled stream times out", async () => {
    await using llm = await startMockLlm();
    llm.push({ text: "partial answer", stall: true });
    const p = await provider(mockRef("anthropic", llm.url), 150);
    const error = (await failure(p.stream(request(), signal()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.kind).toBe("timeout");
  });

  test("abort mid-stream → cancelled", async () => {
    await using llm = await startMockLlm();
    llm.push({ text: "partial answer", stall: true });
    const p = await provider(mockRef("anthropic", llm.url));
    const controller = new AbortController();
    let caught: unknown;
    try {
      for await (const event of p.stream(request(), controller.signal)) {
        if (event.type === "text") controller.abort(new Error("SIGTERM"));
      }
    } catch (error) {
      caught = error;
    }
    expect((caught as ProviderError).kind).toBe("cancelled");
  });

  test("an error event after output started is rethrown, not retried", async () => {
    await using llm = await startMockLlm();
    llm.push(
      { text: "partial answer", error: { status: 529, message: "Overloaded" } },
      { text: "unused" },
    );
    const p = withResilience([await provider(mockRef("anthropic", llm.url))], {
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
