/**
 * The end-to-end checks every provider gets (the ones `ask` and `agent` have for OpenAI and
 * Anthropic): streaming text, a tool-call round trip, usage and cost in the envelope, 401 → exit 3
 * at once, 5xx → retried, a context-length error → compaction and a retry. Each provider's test file
 * calls `providerSuite` with a ChatCLI-style env pointing at the mock.
 */
import { describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, runChatcli, spawnChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, type MockRequest, startMockLlm } from "../support/mock-llm.ts";

// biome-ignore lint/suspicious/noExplicitAny: envelopes and bodies are inspected freely
type Json = Record<string, any>;

export interface ProviderCase {
  /** LLM_PROVIDER value, for test names. */
  name: string;
  /** The envelope's `model`. */
  label: string;
  /** ChatCLI-style env pointing the provider at the mock. */
  env(llm: MockLlm): Record<string, string>;
  /** The path model requests go to. */
  path: RegExp;
  /** Price per 1M tokens (input, output, cache read) of the default model. */
  price: { input: number; output: number; cacheRead: number; cacheWrite?: number };
  /** What this provider answers when the prompt is over its window (HTTP 400). */
  contextError: string;
  /** Extra checks on the first request (headers, body fields). */
  checkRequest?(request: MockRequest): void;
}

function run(c: ProviderCase, llm: MockLlm, home: string, args: string[], extra: Json = {}) {
  const env = baseEnv(home, {
    ...c.env(llm),
    CHATCLI_RETRY_BASE_MS: "5",
    CHATCLI_MEMORY_ENABLED: "false",
    ...extra,
  });
  return runChatcli(args, { env, cwd: home });
}

async function longSession(home: string): Promise<void> {
  const history: Json[] = [];
  for (let i = 0; i < 18; i++) {
    history.push({
      role: i % 2 === 0 ? "user" : "assistant",
      content: `turn ${i} ${"z".repeat(800)}`,
    });
  }
  const dir = join(home, ".chatcli", "sessions");
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, "long.json"),
    JSON.stringify({ version: 2, title: "long", chat_history: history }),
  );
}

export function providerSuite(c: ProviderCase): void {
  describe(`LLM_PROVIDER=${c.name} end to end`, () => {
    test("ask streams the answer to stdout as it arrives; the request went to the provider's path", async () => {
      await using home = await tempDir();
      await using llm = await startMockLlm();
      llm.push({ text: `Hello from ${c.name}, streamed in pieces.` });
      const child = spawnChatcli(["ask", "say hello"], {
        env: baseEnv(home.path, { ...c.env(llm), CHATCLI_MEMORY_ENABLED: "false" }),
        cwd: home.path,
      });
      const r = await child.done;
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`Hello from ${c.name}, streamed in pieces.\n`);
      expect(llm.requests).toHaveLength(1);
      const request = llm.requests[0] as MockRequest;
      expect(request.path).toMatch(c.path);
      expect(JSON.stringify(request.body)).toContain("say hello");
      c.checkRequest?.(request);
    });

    test("usage and cost in the envelope, priced as the model that answered", async () => {
      await using home = await tempDir();
      await using llm = await startMockLlm();
      llm.push({
        text: "priced",
        usage: { input_tokens: 20_000, output_tokens: 3_000, cache_read_input_tokens: 8_000 },
      });
      const r = await run(c, llm, home.path, ["ask", "what does it cost", "--json"]);
      expect(r.code).toBe(0);
      const envelope = JSON.parse(r.stdout) as Json;
      expect(envelope["model"]).toBe(c.label);
      expect(envelope["result"]).toBe("priced");
      expect(envelope["usage"]).toMatchObject({
        input_tokens: 20_000,
        output_tokens: 3_000,
        cache_read_input_tokens: 8_000,
      });
      const created = envelope["usage"]["cache_creation_input_tokens"] as number;
      const p = c.price;
      const expected =
        ((20_000 - 8_000 - created) * p.input +
          8_000 * p.cacheRead +
          created * (p.cacheWrite ?? p.input) +
          3_000 * p.output) /
        1_000_000;
      expect(envelope["total_cost_usd"]).toBeCloseTo(expected, 9);
      expect(envelope["total_cost_usd"]).toBeGreaterThan(0);
    });

    test("agent: a tool call round trip — the tool's output reaches the model, the answer is the result", async () => {
      await using home = await tempDir();
      await writeFile(join(home.path, "notes.txt"), "canary-7f3a the build uses port 8123\n");
      await using llm = await startMockLlm();
      llm.push(
        {
          text: "Reading it.",
          tool_calls: [{ name: "read_file", arguments: { file: "notes.txt" } }],
        },
        { text: "The build uses port 8123." },
      );
      const r = await run(c, llm, home.path, ["agent", "which port does the build use?", "--json"]);
      expect(r.code).toBe(0);
      const envelope = JSON.parse(r.stdout) as Json;
      expect(envelope["result"]).toBe("The build uses port 8123.");
      expect(envelope["model"]).toBe(c.label);
      expect(envelope["tools"]["by_name"]).toEqual({ read_file: 1 });
      expect(envelope["num_turns"]).toBe(2);
      expect(llm.requests).toHaveLength(2);
      const second = JSON.stringify(llm.requests[1]?.body);
      expect(second).toContain("canary-7f3a");
      expect(JSON.stringify(llm.requests[0]?.body)).not.toContain("canary-7f3a");
      expect(second).toContain("read_file");
    });

    test("401 → exit 3 at once, no retry", async () => {
      await using home = await tempDir();
      await using llm = await startMockLlm();
      llm.push({ error: { status: 401, message: "invalid credentials" } }, { text: "never" });
      const r = await run(c, llm, home.path, ["ask", "hi", "--json"]);
      expect(r.code).toBe(3);
      const envelope = JSON.parse(r.stdout) as Json;
      expect(envelope["terminal_reason"]).toBe("auth_error");
      expect(envelope["error"]["message"]).toContain("401");
      expect(llm.requests).toHaveLength(1);
    });

    test("5xx → retried, then the answer", async () => {
      await using home = await tempDir();
      await using llm = await startMockLlm();
      llm.push(
        { error: { status: 503, message: "service unavailable" } },
        { error: { status: 500, message: "internal" } },
        { text: "third time" },
      );
      const r = await run(c, llm, home.path, ["ask", "hi"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("third time\n");
      expect(r.stderr).toContain("retrying");
      expect(llm.requests).toHaveLength(3);
    });

    test("a context-length error compacts the session and retries the request", async () => {
      await using home = await tempDir();
      await longSession(home.path);
      await using llm = await startMockLlm();
      llm.push(
        { error: { status: 400, message: c.contextError } },
        { text: "## Current Task State\n- Done: nothing" },
        { text: "ok after compaction" },
      );
      const r = await run(c, llm, home.path, ["ask", "--session", "long", "next", "--json"]);
      expect(r.code).toBe(0);
      const envelope = JSON.parse(r.stdout) as Json;
      expect(envelope["result"]).toBe("ok after compaction");
      expect(envelope["compaction"]).toMatchObject({ status: "compacted" });
      expect(llm.requests).toHaveLength(3);
      const long = "z".repeat(800);
      const first = JSON.stringify(llm.requests[0]?.body);
      const retried = JSON.stringify(llm.requests[2]?.body);
      expect(first.split(long).length - 1).toBe(18);
      expect(retried.split(long).length - 1).toBeLessThan(18);
      expect(retried).toContain("STRUCTURED SUMMARY");
      expect(retried).toContain("next");
    });
  });
}
