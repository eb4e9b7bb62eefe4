import { expect, test } from "bun:test";
import { runAgent } from "../../../lib/agent/loop.ts";
import { ProviderError } from "../../../lib/llm/errors.ts";
import type { ChatMessage, LlmEvent, LlmRequest, Provider } from "../../../lib/llm/types.ts";
import type { Emitted } from "../../../lib/output/events.ts";

// A chat line (and ask) is the one loop with no tools and one turn (lib/run): these are its
// context-overflow rules, as the REPL sees them.

function provider(first: "overflow" | "ok"): Provider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    name: "fake",
    model: "m",
    requests,
    async *stream(req): AsyncIterable<LlmEvent> {
      requests.push({ ...req, messages: [...req.messages] });
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
];

function chatTurn(p: Provider, shrink: (m: ChatMessage[]) => ChatMessage[], seen: Emitted[] = []) {
  return runAgent({
    provider: p,
    model: "fake/m",
    mode: "agent",
    task: "new",
    history,
    system: [],
    tools: [],
    policy: { mode: "read-only", allow: [], deny: [], onAsk: "deny", workspaceRoot: "/", cwd: "/" },
    limits: { maxTurns: 1 },
    hooks: { onContextOverflow: async (m) => shrink(m) },
    emit: (e) => void seen.push(e),
    liveDeltas: true,
    continueOnMaxTokens: false,
    signal: new AbortController().signal,
    workspaceRoot: "/",
    cwd: "/",
    env: {},
    fetch: globalThis.fetch,
    now: () => new Date(0),
  });
}

test("a context-length error compacts once more and retries the turn", async () => {
  const p = provider("overflow");
  const shrunk: ChatMessage[] = [{ role: "user", content: "new" }];
  const seen: Emitted[] = [];
  const r = await chatTurn(p, () => shrunk, seen);
  expect(r.finalText).toBe("answer");
  expect(seen.flatMap((e) => (e.type === "message.delta" ? [e.text] : []))).toEqual(["answer"]);
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
  const failed = await chatTurn(always, (m) => m.slice(-1));
  expect(failed.error).toMatchObject({ reason: "context_overflow" });
  const p = provider("ok");
  expect((await chatTurn(p, (m) => m.slice(-1))).finalText).toBe("answer");
  expect(p.requests).toHaveLength(1);
});
