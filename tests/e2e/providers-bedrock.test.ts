/**
 * BEDROCK through the built binary and the real `@anthropic-ai/bedrock-sdk` against the mock's
 * InvokeModelWithResponseStream (AWS event-stream framing with CRC checks, SigV4-signed requests).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { providerSuite } from "./provider-suite.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: bodies are inspected freely
type Json = any;

const bedrockEnv = (llm: MockLlm) => ({
  LLM_PROVIDER: "BEDROCK",
  AWS_ACCESS_KEY_ID: "AKIAMOCKEXAMPLE00001",
  AWS_SECRET_ACCESS_KEY: "mock/secret/key/for/sigv4/000000000000000",
  AWS_REGION: "eu-central-1",
  AWS_ENDPOINT_URL_BEDROCK_RUNTIME: llm.url,
});

const SIGV4 =
  /^AWS4-HMAC-SHA256 Credential=AKIAMOCKEXAMPLE00001\/\d{8}\/eu-central-1\/bedrock\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/;

providerSuite({
  name: "BEDROCK",
  label: "bedrock/global.anthropic.claude-sonnet-4-6",
  env: bedrockEnv,
  path: /^\/model\/global\.anthropic\.claude-sonnet-4-6\/invoke-with-response-stream$/,
  price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  contextError: "prompt is too long: 215000 tokens > 200000 maximum",
  checkRequest(request) {
    expect(request.headers["authorization"]).toMatch(SIGV4);
    expect(request.headers["x-amz-date"]).toMatch(/^\d{8}T\d{6}Z$/);
    // the SDK puts the Bedrock API version into the body (and takes model and stream out of it)
    expect(typeof request.body.anthropic_version).toBe("string");
    expect(request.body.model).toBeUndefined();
    expect(request.body.stream).toBeUndefined();
    // prompt caching as on Anthropic: breakpoints on the stable system blocks and the last message
    expect(JSON.stringify(request.body)).toContain('"cache_control":{"type":"ephemeral"}');
  },
});

function run(llm: MockLlm, home: string, args: string[], extra: Record<string, string> = {}) {
  return runChatcli(args, {
    env: baseEnv(home, { ...bedrockEnv(llm), CHATCLI_MEMORY_ENABLED: "false", ...extra }),
    cwd: home,
  });
}

describe("Bedrock specifics", () => {
  test("a cross-region model id from BEDROCK_MODEL, BEDROCK_REGION over AWS_REGION; session token signed", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "opus here" });
    const r = await run(llm, home.path, ["ask", "hi", "--json"], {
      BEDROCK_MODEL: "us.anthropic.claude-opus-4-6-v1:0",
      BEDROCK_REGION: "us-west-2",
      AWS_SESSION_TOKEN: "mock-session-token",
    });
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout) as Json;
    expect(envelope.model).toBe("bedrock/us.anthropic.claude-opus-4-6-v1:0");
    expect(envelope.total_cost_usd).toBeGreaterThan(0);
    const request = llm.requests[0] as Json;
    expect(decodeURIComponent(request.path)).toBe(
      "/model/us.anthropic.claude-opus-4-6-v1:0/invoke-with-response-stream",
    );
    expect(request.headers["authorization"]).toContain("/us-west-2/bedrock/aws4_request");
    expect(request.headers["x-amz-security-token"]).toBe("mock-session-token");
  });

  test("AWS_PROFILE: credentials from ~/.aws/credentials through the standard chain", async () => {
    await using home = await tempDir();
    await mkdir(join(home.path, ".aws"), { recursive: true });
    await writeFile(
      join(home.path, ".aws", "credentials"),
      "[ci]\naws_access_key_id = AKIAPROFILEKEY000001\naws_secret_access_key = profile-secret\n",
    );
    await using llm = await startMockLlm();
    llm.push({ text: "from the profile" });
    const r = await runChatcli(["ask", "hi"], {
      env: baseEnv(home.path, {
        LLM_PROVIDER: "BEDROCK",
        AWS_PROFILE: "ci",
        AWS_REGION: "us-east-1",
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: llm.url,
        CHATCLI_MEMORY_ENABLED: "false",
      }),
      cwd: home.path,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("from the profile\n");
    expect((llm.requests[0] as Json).headers["authorization"]).toContain(
      "Credential=AKIAPROFILEKEY000001/",
    );
  });

  test("prompt caching as on Anthropic: the agent's second request reads the prefix the first wrote", async () => {
    await using home = await tempDir();
    await writeFile(join(home.path, "a.txt"), "alpha\n");
    await using llm = await startMockLlm();
    llm.push(
      { tool_calls: [{ name: "read_file", arguments: { file: "a.txt" } }] },
      { text: "alpha" },
    );
    const r = await run(llm, home.path, ["agent", "read a.txt", "--json"]);
    expect(r.code).toBe(0);
    const usage = JSON.parse(r.stdout).usage as Json;
    expect(usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(usage.cache_read_input_tokens).toBeGreaterThan(0);
    const [first, second] = llm.requests.map((q) => q.body as Json);
    expect(second.system).toEqual(first.system);
    expect(second.tools).toEqual(first.tools);
  });

  test("an exception message inside the event stream after output started: exit 1 with its message", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({
      text: "partial answer",
      error: { status: 500, message: "The system encountered an unexpected error" },
    });
    const r = await run(llm, home.path, ["ask", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toStartWith("partial");
    expect(r.stderr).toContain("unexpected error");
  });

  test("no AWS credentials at all: exit 3 naming the sources", async () => {
    await using home = await tempDir();
    const r = await runChatcli(["ask", "hi"], {
      env: baseEnv(home.path, { LLM_PROVIDER: "BEDROCK" }),
      cwd: home.path,
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("no AWS credentials for bedrock");
    expect(r.stderr).toContain("AWS_PROFILE");
  });
});
