/** Built-in test models (CONTRACT §8): `mock:echo` and `mock:script` with `--fake-responses FILE.jsonl`. */
import { readFile } from "node:fs/promises";
import { ConfigError } from "../../core/errors.ts";
import { kindFromStatus, ProviderError } from "../errors.ts";
import type { ModelRef } from "../models.ts";
import type { LlmEvent, LlmRequest, Provider, ProviderDeps } from "../types.ts";
import { parseToolArguments } from "./openai-format.ts";
import { DEFAULT_IDLE_TIMEOUT_MS } from "./request-guard.ts";
import { parseScript, type ScriptReply, scriptStop, scriptUsage } from "./script-format.ts";

/** What mock:echo answers: the request it received, as JSON. */
export function echoAnswer(request: LlmRequest): string {
  return JSON.stringify({
    model: request.model,
    system: request.system,
    messages: request.messages,
    tools: (request.tools ?? []).map((t) => t.name),
  });
}

/** Splits text into `count` roughly equal chunks (at least one, never empty ones). */
export function chunkText(text: string, count: number): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / count));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function requestChars(request: LlmRequest): number {
  return JSON.stringify([request.system, request.messages, request.tools ?? []]).length;
}

function cancelled(): ProviderError {
  return new ProviderError("cancelled", "mock: request cancelled", { provider: "mock" });
}

/** Waits `ms` (or forever when undefined) unless the signal aborts first; rejects on abort. */
function wait(ms: number | undefined, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(cancelled());
    const timer = ms === undefined ? undefined : setTimeout(done, ms);
    function done() {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }
    function onAbort() {
      if (timer) clearTimeout(timer);
      reject(cancelled());
    }
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

async function* echo(request: LlmRequest): AsyncIterable<LlmEvent> {
  const answer = echoAnswer(request);
  for (const piece of chunkText(answer, 4)) yield { type: "text", text: piece };
  yield {
    type: "usage",
    usage: scriptUsage({}, requestChars(request), answer.length),
  };
  yield { type: "done", stop: "end" };
}

async function* replay(
  reply: ScriptReply,
  request: LlmRequest,
  { signal, idleTimeoutMs }: { signal: AbortSignal; idleTimeoutMs: number },
): AsyncIterable<LlmEvent> {
  if (reply.delay_ms) await wait(reply.delay_ms, signal);
  if (reply.stall) {
    await wait(idleTimeoutMs, signal);
    throw new ProviderError("timeout", `mock: no response for ${idleTimeoutMs / 1000}s (stalled)`, {
      provider: "mock",
    });
  }
  const text = reply.text ?? "";
  // text plus error: the answer starts, then fails mid-stream
  for (const piece of reply.error ? chunkText(text, 3) : []) yield { type: "text", text: piece };
  if (reply.error) {
    const { status, message } = reply.error;
    throw new ProviderError(kindFromStatus(status, message), `mock: ${status} ${message}`, {
      provider: "mock",
      status,
      retryAfterMs:
        reply.error.retry_after === undefined ? undefined : reply.error.retry_after * 1000,
    });
  }
  for (const piece of chunkText(text, 3)) yield { type: "text", text: piece };
  for (const call of reply.tool_calls ?? []) {
    yield {
      type: "tool_call",
      call: {
        id: call.id ?? "call",
        type: "function",
        name: call.name,
        ...(call.raw_arguments === undefined
          ? { arguments: call.arguments }
          : parseToolArguments(call.raw_arguments)),
      },
    };
  }
  const outChars = text.length + (reply.tool_calls ? JSON.stringify(reply.tool_calls).length : 0);
  yield { type: "usage", usage: scriptUsage(reply, requestChars(request), outChars) };
  yield { type: "done", stop: scriptStop(reply) };
}

/** Builds a mock provider; each mock:script instance consumes its own copy of the script in order. */
export function createProvider(ref: ModelRef, deps: ProviderDeps): Provider {
  if (ref.model !== "echo" && ref.model !== "script") {
    throw new ConfigError(`unknown mock model ${JSON.stringify(`mock:${ref.model}`)}`, {
      hint: "use mock:echo or mock:script --fake-responses FILE.jsonl",
    });
  }
  let script: Promise<ScriptReply[]> | undefined;
  let next = 0;
  async function load(): Promise<ScriptReply[]> {
    const path = deps.fakeResponsesPath;
    if (!path) {
      throw new ConfigError("mock:script needs a script of replies", {
        hint: "pass --fake-responses FILE.jsonl (one JSON reply per line)",
      });
    }
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      throw new ConfigError(`cannot read fake responses ${path}: ${(error as Error).message}`, {
        hint: "pass --fake-responses FILE.jsonl (one JSON reply per line)",
      });
    }
    return parseScript(text, path);
  }
  return {
    name: "mock",
    model: ref.model,
    async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
      if (signal.aborted) throw cancelled();
      if (ref.model === "echo") {
        yield* echo(request);
        return;
      }
      script ??= load();
      const replies = await script;
      const reply = replies[next];
      if (!reply) {
        throw new ConfigError(
          `mock:script ran out of replies: the script has ${replies.length}, request ${next + 1} needs one more`,
          { hint: `add lines to ${deps.fakeResponsesPath}` },
        );
      }
      next++;
      yield* replay(reply, request, {
        signal,
        idleTimeoutMs: deps.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      });
    },
  };
}
