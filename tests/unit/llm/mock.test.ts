import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ConfigError } from "../../../lib/core/errors.ts";
import { complete } from "../../../lib/llm/complete.ts";
import type { ProviderError } from "../../../lib/llm/errors.ts";
import { resolveModel } from "../../../lib/llm/models.ts";
import { parseScript } from "../../../lib/llm/providers/script-format.ts";
import { createProvider } from "../../../lib/llm/registry.ts";
import { withResilience } from "../../../lib/llm/retry.ts";
import { tempDir } from "../../support/ctx.ts";
import { collect, failure, request } from "./_helpers.ts";

const signal = () => new AbortController().signal;

function mock(model: string, fakeResponsesPath?: string, idleTimeoutMs?: number) {
  return createProvider(resolveModel(`mock:${model}`, {}), {
    fetch: (() =>
      Promise.reject(new Error("mock providers never use the network"))) as unknown as typeof fetch,
    fakeResponsesPath,
    idleTimeoutMs,
  });
}

async function script(dir: string, lines: string[]): Promise<string> {
  const path = join(dir, "replies.jsonl");
  await Bun.write(path, `${lines.join("\n")}\n`);
  return path;
}

describe("mock:echo", () => {
  test("answers with the JSON of the request, in several chunks, with chars/4 usage", async () => {
    const p = await mock("echo");
    const req = request({
      model: "echo",
      tools: [{ name: "read_file", description: "", input_schema: {} }],
    });
    const events = await collect(p.stream(req, signal()));
    const texts = events.flatMap((e) => (e.type === "text" ? [e.text] : []));
    expect(texts.length).toBeGreaterThan(1);
    const answer = JSON.parse(texts.join(""));
    expect(answer).toEqual({
      model: "echo",
      system: [{ id: "core", text: "You are terse.", cache: true }],
      messages: [{ role: "user", content: "hello" }],
      tools: ["read_file"],
    });
    const usage = events.find((e) => e.type === "usage");
    expect(usage).toMatchObject({ usage: { output_tokens: Math.ceil(texts.join("").length / 4) } });
    expect(events.at(-1)).toEqual({ type: "done", stop: "end" });
  });

  test("is deterministic", async () => {
    const p = await mock("echo");
    const a = await complete(p, request(), signal());
    const b = await complete(p, request(), signal());
    expect(a).toEqual(b);
  });
});

describe("mock:script", () => {
  test("replays text, tool calls and usage in order across requests", async () => {
    await using dir = await tempDir();
    const path = await script(dir.path, [
      JSON.stringify({ tool_calls: [{ name: "read_file", arguments: { path: "a.ts" } }] }),
      "",
      JSON.stringify({ text: "done", usage: { input_tokens: 42, output_tokens: 2 } }),
    ]);
    const p = await mock("script", path);
    const first = await complete(p, request(), signal());
    expect(first.toolCalls).toEqual([
      { id: "call_1_1", type: "function", name: "read_file", arguments: { path: "a.ts" } },
    ]);
    expect(first.stop).toBe("tool_use");
    const second = await complete(p, request(), signal());
    expect(second.text).toBe("done");
    expect(second.usage.input_tokens).toBe(42);
    expect(second.usage.output_tokens).toBe(2);
    const error = await failure(p.stream(request(), signal()));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain("ran out of replies: the script has 2");
  });

  test("scripted errors are ProviderErrors that withResilience retries", async () => {
    await using dir = await tempDir();
    const path = await script(dir.path, [
      JSON.stringify({ error: { status: 429, message: "slow down", retry_after: 3 } }),
      JSON.stringify({ text: "recovered" }),
    ]);
    const delays: number[] = [];
    const p = withResilience([await mock("script", path)], {
      sleep: async () => {},
      onRetry: (n) => delays.push(n.delayMs),
    });
    expect((await complete(p, request(), signal())).text).toBe("recovered");
    expect(delays).toEqual([3000]);
  });

  test("text plus error fails mid-stream after the partial text", async () => {
    await using dir = await tempDir();
    const path = await script(dir.path, [
      JSON.stringify({ text: "half", error: { status: 500, message: "boom" } }),
    ]);
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const event of (await mock("script", path)).stream(request(), signal())) {
        if (event.type === "text") seen.push(event.text);
      }
    } catch (error) {
      caught = error;
    }
    expect(seen.join("")).toBe("half");
    expect((caught as ProviderError).kind).toBe("server");
  });

  test("401 in a script is an auth error", async () => {
    await using dir = await tempDir();
    const path = await script(dir.path, [
      JSON.stringify({ error: { status: 401, message: "bad key" } }),
    ]);
    const error = (await failure(
      (await mock("script", path)).stream(request(), signal()),
    )) as ProviderError;
    expect(error.kind).toBe("auth");
    expect(error.exitCode).toBe(3);
  });

  test("stall waits for the idle timeout, then times out; abort cancels it", async () => {
    await using dir = await tempDir();
    const path = await script(dir.path, [
      JSON.stringify({ stall: true }),
      JSON.stringify({ stall: true }),
    ]);
    const p = await mock("script", path, 20);
    expect(((await failure(p.stream(request(), signal()))) as ProviderError).kind).toBe("timeout");
    const slow = await mock("script", path);
    const controller = new AbortController();
    const pending = failure(slow.stream(request(), controller.signal));
    controller.abort();
    expect(((await pending) as ProviderError).kind).toBe("cancelled");
  });

  test("a missing file, a bad line and a missing --fake-responses are ConfigErrors naming the problem", async () => {
    await using dir = await tempDir();
    const missing = await failure(
      (await mock("script", join(dir.path, "nope.jsonl"))).stream(request(), signal()),
    );
    expect(missing).toBeInstanceOf(ConfigError);
    expect((missing as Error).message).toContain("nope.jsonl");
    const bad = await script(dir.path, [JSON.stringify({ text: "ok" }), "{not json"]);
    const error = await failure((await mock("script", bad)).stream(request(), signal()));
    expect((error as Error).message).toContain("replies.jsonl:2");
    const none = await failure((await mock("script")).stream(request(), signal()));
    expect((none as ConfigError).hint).toContain("--fake-responses");
  });

  test("unknown mock models are a ConfigError", async () => {
    await expect(mock("parrot")).rejects.toBeInstanceOf(ConfigError);
  });
});

describe("script format", () => {
  test("validates keys and shapes with the line number", () => {
    expect(() => parseScript('{"txt": "typo"}', "f.jsonl")).toThrow('f.jsonl:1: unknown key "txt"');
    expect(() => parseScript('{"text": 1}', "f.jsonl")).toThrow('"text" must be a string');
    expect(() => parseScript('\n{"tool_calls": [{}]}', "f.jsonl")).toThrow(
      'f.jsonl:2: each tool call needs a "name"',
    );
    expect(() => parseScript('{"error": {"message": "x"}}', "f.jsonl")).toThrow('numeric "status"');
    expect(() => parseScript('{"stop": "halt"}', "f.jsonl")).toThrow('"stop" must be one of');
    expect(() => parseScript("[1]", "f.jsonl")).toThrow("a reply must be a JSON object");
  });

  test("normalises ids, arguments and error messages", () => {
    const replies = parseScript(
      [
        '{"tool_calls": [{"name": "a"}, {"id": "x", "name": "b", "arguments": {"k": 1}}]}',
        '{"error": {"status": 500}}',
      ].join("\n"),
      "f.jsonl",
    );
    expect(replies[0]?.tool_calls).toEqual([
      { id: "call_1_1", name: "a", arguments: {} },
      { id: "x", name: "b", arguments: { k: 1 } },
    ]);
    expect(replies[1]?.error).toEqual({ status: 500, message: "scripted error" });
  });
});
