/**
 * Context-length rejections in each provider's own wording, through the built binary: the error keeps
 * the provider's words, and every number chatcli adds agrees with them (exit 8 context_overflow).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { jsonError } from "../support/wire-fixtures.ts";

beforeAll(() => {
  requireBinary();
});

interface Wording {
  provider: string;
  api: "openai" | "anthropic";
  status: number;
  body: unknown;
  /** The provider's words, as they must appear in error.message. */
  words: string;
  prompt?: number;
  limit?: number;
}

const WORDINGS: Wording[] = [
  {
    provider: "OpenAI",
    api: "openai",
    status: 400,
    body: {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
    words:
      "maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens",
    prompt: 130532,
    limit: 128000,
  },
  {
    provider: "Anthropic",
    api: "anthropic",
    status: 400,
    body: {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "prompt is too long: 208000 tokens > 200000 maximum",
      },
    },
    words: "prompt is too long: 208000 tokens > 200000 maximum",
    prompt: 208000,
    limit: 200000,
  },
  {
    provider: "DeepSeek",
    api: "openai",
    status: 400,
    body: {
      error: {
        message:
          "This model's maximum context length is 65536 tokens. However, you requested 70123 tokens (70123 in the messages, 0 in the completion). Please reduce the length of the messages or completion.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_request_error",
      },
    },
    words: "maximum context length is 65536 tokens. However, you requested 70123 tokens",
    prompt: 70123,
    limit: 65536,
  },
  {
    provider: "Mistral",
    api: "openai",
    status: 400,
    body: {
      object: "error",
      message:
        "Prompt contains 40321 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
      type: "invalid_request_message_error",
      param: null,
      code: "3051",
    },
    words:
      "Prompt contains 40321 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
    prompt: 40321,
    limit: 32768,
  },
  {
    provider: "xAI",
    api: "openai",
    status: 400,
    body: {
      code: "Client specified an invalid argument",
      error: "This model's maximum prompt length is 131072 but the request contains 140500 tokens.",
    },
    words: "maximum prompt length is 131072 but the request contains 140500 tokens",
    prompt: 140500,
    limit: 131072,
  },
  {
    provider: "OpenRouter",
    api: "openai",
    status: 400,
    body: {
      error: {
        message:
          'This endpoint\'s maximum context length is 163840 tokens. However, you requested about 201733 tokens (201733 of text input). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
        code: 400,
        metadata: { provider_name: null },
      },
    },
    words: "maximum context length is 163840 tokens. However, you requested about 201733 tokens",
    prompt: 201733,
    limit: 163840,
  },
  {
    provider: "Groq",
    api: "openai",
    status: 400,
    body: {
      error: {
        message: "Please reduce the length of the messages or completion.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
    words: "Please reduce the length of the messages or completion.",
  },
  {
    provider: "Ollama",
    api: "openai",
    status: 400,
    body: {
      error: {
        message: "the input length exceeds the context length",
        type: "api_error",
        param: null,
        code: null,
      },
    },
    words: "the input length exceeds the context length",
  },
];

describe("context-length errors keep the provider's words and numbers", () => {
  for (const w of WORDINGS) {
    test(`${w.provider}: exit 8 context_overflow, its message verbatim, no number that contradicts it`, async () => {
      await using home = await tempDir();
      await using llm = await startMockLlm();
      llm.pushRaw(jsonError(w.status, w.body));
      llm.push({ text: "not asked: compaction cannot shrink a one-line prompt" });
      const r = await runChatcli(["ask", "summarise the attached logs", "--json"], {
        env: baseEnv(home.path, { ...llm.env(w.api), CHATCLI_RETRY_BASE_MS: "1" }),
        cwd: home.path,
      });
      expect(r.code).toBe(8);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({
        terminal_reason: "context_overflow",
        error: { code: "context_overflow" },
      });
      const message = out.error.message as string;
      expect(message).toContain(w.words);
      expect(llm.requests).toHaveLength(1);
      // every token count in the message is one of the provider's, or chatcli's estimate scaled to them
      const numbers = [...message.matchAll(/~?(\d{3,})(?= tokens|\))/g)].map((m) => Number(m[1]));
      if (w.prompt && w.limit) {
        expect(message).toContain(`~${w.prompt} tokens after compaction by the provider's count`);
        expect(message).toContain(`the limit is ${w.limit}`);
        for (const n of numbers) expect([w.prompt, w.limit]).toContain(n);
        // one message is not a history: no compaction progress report, the error says it all
        expect(r.stderr).not.toContain("Compacting history");
      } else {
        expect(message).toContain("an estimated ~");
        expect(message).not.toContain("provider's count");
      }
      expect(message).not.toMatch(/~1\d tokens after compaction, more than/);
    });
  }
});
