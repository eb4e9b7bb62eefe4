/**
 * A mock LLM server for tests: real HTTP on 127.0.0.1 (port 0) speaking OpenAI Chat Completions
 * (`POST …/chat/completions`) and Anthropic Messages (`POST …/messages`), streamed (SSE) or not,
 * driven by scripted replies (lib/llm/providers/script-format.ts). Every request is recorded.
 *
 *   await using llm = await startMockLlm();
 *   llm.push({ text: "hi" }, { error: { status: 429, message: "slow", retry_after: 0 } });
 *   // OpenAI SDK: baseURL `${llm.url}/v1`; Anthropic SDK: baseURL llm.url
 *   await llm.waitForHits(2);
 *   expect(llm.requests[0].body.messages).toEqual(…);
 */
import type { ScriptReply } from "../../lib/llm/providers/script-format.ts";
import { normalizeScriptReply } from "../../lib/llm/providers/script-format.ts";
import {
  anthropicFrames,
  anthropicJson,
  CacheSimulator,
  errorFrame,
  errorJson,
  estimateTokens,
  type Json,
  openaiFrames,
  openaiJson,
  type WireUsage,
} from "./mock-llm-wire.ts";
import { extraRoute, RawAnswer } from "./mock-routes.ts";

export interface MockRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Json;
}

/**
 * A reply given verbatim: the exact bytes a real provider sent (recorded shapes, cut-off streams,
 * comment lines, error events), one chunk per frame, on any route (Chat Completions, Messages, Gemini,
 * Responses, Bedrock). See tests/support/wire-fixtures.ts, wire-responses.ts, wire-gemini.ts.
 */
export interface RawReply {
  status?: number;
  headers?: Record<string, string>;
  /** Written one per chunk, in order; the body ends after the last (no terminal event is added). */
  frames: string[];
  /** Keep the connection open after the last frame instead of ending the body (a proxy that lingers). */
  hold?: boolean;
}

export interface MockLlm extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every request received, in order (also unknown paths, which get a 404). */
  readonly requests: MockRequest[];
  /** Queues replies; each model request consumes one. An empty queue answers `defaultText`. */
  push(...replies: ScriptReply[]): void;
  /** Queues verbatim replies (same queue as `push`). */
  pushRaw(...replies: RawReply[]): void;
  /** How many queued replies are left. */
  pending(): number;
  /**
   * ChatCLI-style env that points chatcli at this server:
   * `openai` → LLM_PROVIDER=OPENAI, OPENAI_API_KEY, OPENAI_BASE_URL; `anthropic` → CLAUDEAI, ANTHROPIC_*.
   */
  env(api: "openai" | "anthropic"): Record<string, string>;
  /** Resolves once at least `n` requests have arrived. */
  waitForHits(n: number): Promise<void>;
  close(): Promise<void>;
}

export interface MockLlmOptions {
  defaultText?: string;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function usageFor(
  reply: ScriptReply,
  base: { input: number; cacheRead: number; cacheCreation?: number },
) {
  const text = (reply.text ?? "") + (reply.tool_calls ? JSON.stringify(reply.tool_calls) : "");
  const u = reply.usage ?? {};
  const usage: WireUsage = {
    input: u.input_tokens ?? base.input,
    output: u.output_tokens ?? estimateTokens(text.length),
    reasoning: u.reasoning_tokens ?? 0,
    cacheRead: u.cache_read_input_tokens ?? base.cacheRead,
    cacheCreation: u.cache_creation_input_tokens ?? base.cacheCreation ?? 0,
  };
  return usage;
}

const encoder = new TextEncoder();

/**
 * A response that streams `frames` one per pull. `stallAfter` frames (when set) are sent and then
 * nothing more, until the client goes away: a stalled stream.
 */
function sseResponse(frames: string[], stallAfter?: number): Response {
  return bytesResponse(
    frames.map((f) => encoder.encode(f)),
    "text/event-stream",
    stallAfter,
  );
}

function bytesResponse(chunks: Uint8Array[], contentType: string, stallAfter?: number): Response {
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stallAfter !== undefined && i >= stallAfter) return new Promise<void>(() => {});
      const chunk = chunks[i++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
  return new Response(stream, {
    headers: { "content-type": contentType, "cache-control": "no-cache" },
  });
}

function rawResponse(raw: RawReply): Response {
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (raw.hold && i >= raw.frames.length) return new Promise<void>(() => {});
      const frame = raw.frames[i++];
      if (frame === undefined) controller.close();
      else controller.enqueue(encoder.encode(frame));
    },
  });
  return new Response(stream, {
    status: raw.status ?? 200,
    headers: raw.headers ?? { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** Starts the mock server; `close()` (or `await using`) stops it. */
export async function startMockLlm(options: MockLlmOptions = {}): Promise<MockLlm> {
  const queue: (ScriptReply | { raw: RawReply })[] = [];
  const requests: MockRequest[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const cache = new CacheSimulator();
  let pushed = 0;

  function record(entry: MockRequest): void {
    requests.push(entry);
    for (const waiter of [...waiters]) {
      if (requests.length >= waiter.n) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  async function answer(api: "openai" | "anthropic", body: Json, signal: AbortSignal) {
    const next = queue.shift() ?? { text: options.defaultText ?? "mock reply" };
    if ("raw" in next) return rawResponse(next.raw);
    const reply: ScriptReply = next;
    if (reply.delay_ms) await sleep(reply.delay_ms, signal);
    const model = String(body.model ?? "mock-model");
    const streaming = body.stream === true;
    if (reply.error && reply.text && streaming) {
      // the answer starts, then an error event arrives inside the 200 stream
      const { status, message } = reply.error;
      const partial = { text: reply.text };
      const frames =
        api === "openai"
          ? openaiFrames(
              partial,
              usageFor(partial, { input: 0, cacheRead: 0 }),
              model,
              false,
            ).slice(0, -2)
          : anthropicFrames(partial, usageFor(partial, { input: 0, cacheRead: 0 }), model).slice(
              0,
              -3,
            );
      frames.push(errorFrame(api, status, message));
      return sseResponse(frames);
    }
    if (reply.error) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (reply.error.retry_after !== undefined)
        headers["retry-after"] = String(reply.error.retry_after);
      return Response.json(errorJson(api, reply.error.status, reply.error.message), {
        status: reply.error.status,
        headers,
      });
    }
    if (reply.stall && !streaming) {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      return new Response(null, { status: 499 });
    }
    if (api === "openai") {
      const usage = usageFor(reply, cache.openai(body));
      if (!streaming) return Response.json(openaiJson(reply, usage, model));
      const includeUsage = body.stream_options?.include_usage === true;
      // a stall sends the opening frame, and the first text delta when there is text
      const stallAfter = reply.stall ? (reply.text ? 2 : 1) : undefined;
      return sseResponse(openaiFrames(reply, usage, model, includeUsage), stallAfter);
    }
    const usage = usageFor(reply, cache.anthropic(body));
    if (!streaming) return Response.json(anthropicJson(reply, usage, model));
    const stallAfter = reply.stall ? (reply.text ? 4 : 1) : undefined;
    return sseResponse(anthropicFrames(reply, usage, model), stallAfter);
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const text = await request.text();
      let body: Json = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // keep the raw text
      }
      const headers = Object.fromEntries(request.headers.entries());
      record({ method: request.method, path, headers, body });
      if (request.method === "POST" && path.endsWith("/chat/completions")) {
        return answer("openai", body, request.signal);
      }
      if (request.method === "POST" && path.endsWith("/messages")) {
        return answer("anthropic", body, request.signal);
      }
      const extra = await extraRoute({
        method: request.method,
        path,
        search: new URL(request.url).search,
        headers,
        body,
        signal: request.signal,
        cache,
        next: async () => {
          const reply = queue.shift() ?? { text: options.defaultText ?? "mock reply" };
          if ("raw" in reply) throw new RawAnswer(rawResponse(reply.raw));
          if (reply.delay_ms) await sleep(reply.delay_ms, request.signal);
          return reply;
        },
        usage: usageFor,
        sse: sseResponse,
        bytes: bytesResponse,
      });
      if (extra) return extra;
      return Response.json({ error: { message: `mock: no route ${path}` } }, { status: 404 });
    },
  });

  const close = async () => {
    for (const waiter of waiters.splice(0)) waiter.resolve();
    await server.stop(true);
  };
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    push(...replies: ScriptReply[]) {
      for (const reply of replies) {
        queue.push(normalizeScriptReply(reply as unknown as Record<string, unknown>, pushed++));
      }
    },
    pushRaw(...replies: RawReply[]) {
      for (const raw of replies) {
        queue.push({ raw });
        pushed++;
      }
    },
    pending: () => queue.length,
    env(api: "openai" | "anthropic"): Record<string, string> {
      const url = `http://127.0.0.1:${server.port}`;
      return api === "openai"
        ? { LLM_PROVIDER: "OPENAI", OPENAI_API_KEY: "sk-mock-openai", OPENAI_BASE_URL: `${url}/v1` }
        : { LLM_PROVIDER: "CLAUDEAI", ANTHROPIC_API_KEY: "sk-ant-mock", ANTHROPIC_BASE_URL: url };
    },
    waitForHits(n: number) {
      if (requests.length >= n) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ n, resolve }));
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
