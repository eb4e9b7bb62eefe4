/**
 * Quota versus rate limit on the other providers, through the built binary and the real SDKs: a quota
 * that ran out (OpenAI `insufficient_quota`, Anthropic's spend limit and credit balance, Bedrock's
 * ServiceQuotaExceededException) fails at once as `rate_limited` naming it, never spending the retry
 * budget; a rate limit without a retry-after header waits what its body says (OpenAI "Please try again
 * in 40ms."), the header winning when both are there; Bedrock throttling is retried.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { anthropicAnswer, jsonError, sse } from "../support/wire-fixtures.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: envelopes are inspected freely
type Json = any;

function run(home: string, env: Record<string, string>, args: string[]) {
  return runChatcli(args, {
    env: baseEnv(home, { ...env, CHATCLI_MEMORY_ENABLED: "false", CHATCLI_RETRY_BASE_MS: "5" }),
    cwd: home,
  });
}

function lines(stdout: string): Json[] {
  return stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/** Runs `ask --jsonl` on one queued error (then an answer that must not be asked for). */
async function quotaRun(
  api: "openai" | "anthropic" | "bedrock",
  error: ReturnType<typeof jsonError>,
) {
  const home = await tempDir();
  const llm = await startMockLlm();
  llm.pushRaw(error);
  llm.push({ text: "never asked" });
  const env =
    api === "bedrock"
      ? {
          LLM_PROVIDER: "BEDROCK",
          AWS_ACCESS_KEY_ID: "AKIAMOCKEXAMPLE00001",
          AWS_SECRET_ACCESS_KEY: "mock/secret/key/for/sigv4/000000000000000",
          AWS_REGION: "eu-central-1",
          AWS_ENDPOINT_URL_BEDROCK_RUNTIME: llm.url,
        }
      : llm.env(api);
  const r = await run(home.path, env, ["ask", "hi", "--jsonl"]);
  const events = lines(r.stdout);
  const out = {
    code: r.code,
    stderr: r.stderr,
    events,
    result: events.at(-1),
    requests: llm.requests.length,
  };
  await llm.close();
  await home[Symbol.asyncDispose]();
  return out;
}

function expectQuota(out: Awaited<ReturnType<typeof quotaRun>>, names: string): void {
  expect(out.code).toBe(1);
  expect(out.result).toMatchObject({ type: "result", terminal_reason: "rate_limited" });
  expect(out.result.error).toMatchObject({ code: "rate_limited", retryable: false });
  expect(out.result.error.message).toContain(names);
  expect(out.result.error.message).not.toContain("gave up");
  expect(out.events.filter((e: Json) => e.type === "retry")).toEqual([]);
  expect(out.requests).toBe(1);
}

describe("a quota that ran out is not retried", () => {
  test("OpenAI chat completions: 429 insufficient_quota", async () => {
    const out = await quotaRun(
      "openai",
      jsonError(429, {
        error: {
          message:
            "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
          type: "insufficient_quota",
          param: null,
          code: "insufficient_quota",
        },
      }),
    );
    expectQuota(out, "(insufficient_quota)");
    expect(out.result.error.message).toStartWith("openai: 429 You exceeded your current quota");
  });

  test("Anthropic: 429 rate_limit_error whose details say enforced_spend_limit_reached (no retry-after)", async () => {
    const out = await quotaRun(
      "anthropic",
      jsonError(429, {
        type: "error",
        error: {
          type: "rate_limit_error",
          message:
            "You have reached your organization's monthly spend limit for this usage tier. API access resumes on 2026-12-01 at 00:00 UTC.",
          details: { error_code: "enforced_spend_limit_reached" },
        },
        request_id: "req_011CSHoEeqs5C35K2UUqR7Fy",
      }),
    );
    expectQuota(out, "(enforced_spend_limit_reached)");
  });

  test("Anthropic: 400 'Your credit balance is too low'", async () => {
    const out = await quotaRun(
      "anthropic",
      jsonError(400, {
        type: "error",
        error: {
          type: "invalid_request_error",
          message:
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
        },
        request_id: "req_011CSHoEeqs5C35K2UUqR7Fz",
      }),
    );
    expectQuota(out, "credit balance is too low");
    expect(out.result.error.hint).toContain("billing");
  });

  test("Bedrock: ServiceQuotaExceededException", async () => {
    const out = await quotaRun(
      "bedrock",
      jsonError(
        400,
        {
          message:
            "Your request exceeds the service quota for your account. You can view your quotas at https://docs.aws.amazon.com/servicequotas/latest/userguide/gs-request-quota.html.",
        },
        {
          "x-amzn-errortype":
            "ServiceQuotaExceededException:http://internal.amazon.com/coral/com.amazon.bedrock/",
          "x-amzn-requestid": "mock-request-id",
        },
      ),
    );
    expectQuota(out, "(ServiceQuotaExceededException)");
  });
});

describe("a rate limit waits what the provider says", () => {
  test("OpenAI 429 without retry-after: the body's 'Please try again in 40ms.' is the wait", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      jsonError(429, {
        error: {
          message:
            "Rate limit reached for gpt-4o-mini in organization org-mock on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 40ms. Visit https://platform.openai.com/account/rate-limits to learn more.",
          type: "requests",
          param: null,
          code: "rate_limit_exceeded",
        },
      }),
    );
    llm.push({ text: "after the wait" });
    const r = await run(home.path, llm.env("openai"), ["ask", "hi", "--jsonl"]);
    expect(r.code).toBe(0);
    const events = lines(r.stdout);
    expect(events.filter((e) => e.type === "retry").map((e) => e.delay_ms)).toEqual([40]);
    expect(events.at(-1)).toMatchObject({ result: "after the wait" });
  });

  test("the retry-after header wins over the body's wait", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      jsonError(
        429,
        {
          error: {
            message: "Rate limit reached for requests. Please try again in 20s.",
            type: "requests",
            param: null,
            code: "rate_limit_exceeded",
          },
        },
        { "retry-after-ms": "30" },
      ),
    );
    llm.push({ text: "ok" });
    const r = await run(home.path, llm.env("openai"), ["ask", "hi", "--jsonl"]);
    expect(r.code).toBe(0);
    expect(
      lines(r.stdout)
        .filter((e) => e.type === "retry")
        .map((e) => e.delay_ms),
    ).toEqual([30]);
  });

  test("Bedrock ThrottlingException (429) is a rate limit: retried, then the answer", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw(
      jsonError(
        429,
        { message: "Too many requests, please wait before trying again." },
        {
          "x-amzn-errortype":
            "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
        },
      ),
    );
    llm.push({ text: "throttled, then fine" });
    const r = await run(
      home.path,
      {
        LLM_PROVIDER: "BEDROCK",
        AWS_ACCESS_KEY_ID: "AKIAMOCKEXAMPLE00001",
        AWS_SECRET_ACCESS_KEY: "mock/secret/key/for/sigv4/000000000000000",
        AWS_REGION: "eu-central-1",
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: llm.url,
      },
      ["ask", "hi", "--jsonl"],
    );
    expect(r.code).toBe(0);
    const events = lines(r.stdout);
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ result: "throttled, then fine" });
  });
});

describe("a finished stream is finished", () => {
  test("Anthropic: a connection held open after message_stop is the answer, not a stall", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.pushRaw({ ...sse(anthropicAnswer(["held ", "open"])), hold: true });
    const r = await runChatcli(["ask", "hi", "--json"], {
      env: baseEnv(home.path, {
        ...llm.env("anthropic"),
        CHATCLI_MEMORY_ENABLED: "false",
        CHATCLI_STREAM_IDLE_TIMEOUT_MS: "8000",
      }),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe("held open");
    expect(llm.requests).toHaveLength(1);
  });
});
