import { describe, expect, test } from "bun:test";
import { complete } from "../../../lib/llm/complete.ts";
import { resolveModel } from "../../../lib/llm/models.ts";
import { createProvider } from "../../../lib/llm/registry.ts";
import { startMockLlm } from "../../support/mock-llm.ts";

import type { Json } from "../../support/mock-llm-wire.ts";

async function postJson(url: string, body: unknown): Promise<Json> {
  return (await post(url, body)).json();
}

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("mock LLM server", () => {
  test("non-streaming OpenAI and Anthropic replies", async () => {
    await using llm = await startMockLlm();
    llm.push(
      { text: "hi", tool_calls: [{ id: "c", name: "t", arguments: { a: 1 } }] },
      { text: "yo" },
    );
    const openai = await postJson(`${llm.url}/v1/chat/completions`, { model: "m", messages: [] });
    expect(openai.choices[0].message).toEqual({
      role: "assistant",
      content: "hi",
      tool_calls: [{ id: "c", type: "function", function: { name: "t", arguments: '{"a":1}' } }],
    });
    expect(openai.choices[0].finish_reason).toBe("tool_calls");
    const anthropic = await postJson(`${llm.url}/v1/messages`, { model: "m", messages: [] });
    expect(anthropic.content).toEqual([{ type: "text", text: "yo" }]);
    expect(anthropic.stop_reason).toBe("end_turn");
  });

  test("an empty queue answers the default text; unknown paths are 404 and recorded", async () => {
    await using llm = await startMockLlm({ defaultText: "default!" });
    const res = await postJson(`${llm.url}/v1/chat/completions`, { model: "m", messages: [] });
    expect(res.choices[0].message.content).toBe("default!");
    const missing = await fetch(`${llm.url}/v1/models`);
    expect(missing.status).toBe(404);
    expect(llm.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/chat/completions",
      "GET /v1/models",
    ]);
  });

  test("errors carry retry-after and the API's error shape", async () => {
    await using llm = await startMockLlm();
    llm.push({ error: { status: 429, message: "slow", retry_after: 5 } });
    const res = await post(`${llm.url}/v1/messages`, { model: "m", messages: [] });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("5");
    expect((await res.json()) as Json).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "slow" },
    });
  });

  test("waitForHits resolves once enough requests arrived", async () => {
    await using llm = await startMockLlm();
    const waiting = llm.waitForHits(2);
    let resolved = false;
    void waiting.then(() => {
      resolved = true;
    });
    await post(`${llm.url}/v1/chat/completions`, { model: "m", messages: [] });
    expect(resolved).toBe(false);
    await post(`${llm.url}/v1/chat/completions`, { model: "m", messages: [] });
    await waiting;
    expect(llm.requests).toHaveLength(2);
    expect(llm.pending()).toBe(0);
  });

  test("OpenAI streams end with [DONE], usage only when asked for", async () => {
    await using llm = await startMockLlm();
    const text = await (
      await post(`${llm.url}/v1/chat/completions`, { model: "m", messages: [], stream: true })
    ).text();
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(text).not.toContain('"usage"');
    const withUsage = await (
      await post(`${llm.url}/v1/chat/completions`, {
        model: "m",
        messages: [],
        stream: true,
        stream_options: { include_usage: true },
      })
    ).text();
    expect(withUsage).toContain('"usage"');
  });

  test("env() points resolveModel and the real providers at the server", async () => {
    await using llm = await startMockLlm();
    llm.push({ text: "via openai env" }, { text: "via anthropic env" });
    for (const api of ["openai", "anthropic"] as const) {
      const ref = resolveModel(undefined, llm.env(api));
      const p = await createProvider(ref, { fetch: globalThis.fetch });
      const result = await complete(
        p,
        { model: ref.model, system: [], messages: [{ role: "user", content: "hi" }] },
        new AbortController().signal,
      );
      expect(result.text).toBe(`via ${api} env`);
    }
    expect(llm.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/v1/messages"]);
  });
});
