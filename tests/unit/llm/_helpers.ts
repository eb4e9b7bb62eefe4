import type { ModelRef } from "../../../lib/llm/models.ts";
import { createProvider } from "../../../lib/llm/registry.ts";
import type { LlmEvent, LlmRequest, Provider } from "../../../lib/llm/types.ts";

/** A ModelRef pointing an SDK provider at the mock server. */
export function mockRef(protocol: "openai" | "anthropic", url: string, model?: string): ModelRef {
  return protocol === "openai"
    ? {
        provider: "openai",
        protocol,
        model: model ?? "gpt-5.4",
        apiKey: "sk-test",
        baseURL: `${url}/v1`,
      }
    : {
        provider: "anthropic",
        protocol,
        model: model ?? "claude-sonnet-4-6",
        apiKey: "sk-ant-test",
        baseURL: url,
      };
}

export function provider(ref: ModelRef, idleTimeoutMs?: number): Promise<Provider> {
  return createProvider(ref, { fetch: globalThis.fetch, idleTimeoutMs });
}

export function request(overrides: Partial<LlmRequest> = {}): LlmRequest {
  return {
    model: "",
    system: [{ id: "core", text: "You are terse.", cache: true }],
    messages: [{ role: "user", content: "hello" }],
    ...overrides,
  };
}

/** Collects all events of a stream. */
export async function collect(stream: AsyncIterable<LlmEvent>): Promise<LlmEvent[]> {
  const events: LlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Runs a stream and returns what it threw. */
export async function failure(stream: AsyncIterable<LlmEvent>): Promise<unknown> {
  try {
    await collect(stream);
  } catch (error) {
    return error;
  }
  throw new Error("expected the stream to fail");
}
