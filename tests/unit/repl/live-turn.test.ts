import { expect, test } from "bun:test";
import { ProviderError } from "../../../lib/llm/errors.ts";
import type { ChatMessage, LlmEvent, LlmRequest, Provider } from "../../../lib/llm/types.ts";
import { streamChatTurn } from "../../../lib/repl/live-turn.ts";

function provider(first: "overflow" | "ok"): Provider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    name: "fake",
    model: "m",
    requests,
    async *stream(req): AsyncIterable<LlmEvent> {
      requests.push(req);
      if (requests.length === 1 && first === "overflow") {
        throw new ProviderError("context_length", "prompt is too long", {
          provider: "fake",
          status: 400,
        });
      }
      yield { type: "text", text: "answer" };
    },
  };
}

const history: ChatMessage[] = [
  { role: "user", content: "old" },
  { role: "assistant", content: "old answer" },
  { role: "user", content: "new" },
];

test("a context-length error compacts once more and retries the turn", async () => {
  const p = provider("overflow");
  const shrunk: ChatMessage[] = [{ role: "user", content: "new" }];
  const seen: string[] = [];
  const r = await streamChatTurn(p, "m", [], history, {
    onText: (t) => seen.push(t),
    onRequest: () => {},
    signal: new AbortController().signal,
    shrink: async () => shrunk,
  });
  expect(r.text).toBe("answer");
  expect(seen).toEqual(["answer"]);
  expect(p.requests.map((q) => q.messages.length)).toEqual([3, 1]);
});

test("a second context-length error, or any other error, reaches the caller", async () => {
  const always: Provider = {
    name: "fake",
    model: "m",
    // biome-ignore lint/correctness/useYield: fails before answering
    async *stream() {
      throw new ProviderError("context_length", "prompt is too long", {
        provider: "fake",
        status: 400,
      });
    },
  };
  const options = {
    onText: () => {},
    onRequest: () => {},
    signal: new AbortController().signal,
    shrink: async (m: ChatMessage[]) => m.slice(-1),
  };
  await expect(streamChatTurn(always, "m", [], history, options)).rejects.toMatchObject({
    kind: "context_length",
  });
  const p = provider("ok");
  expect((await streamChatTurn(p, "m", [], history, options)).text).toBe("answer");
  expect(p.requests).toHaveLength(1);
});
