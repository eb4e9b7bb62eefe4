/**
 * How a CI job configures the provider without flags (built binary, mock LLM): ChatCLI's env names,
 * a `.env` (CHATCLI_DOTENV or ./.env, CRLF as saved on Windows), `~/.chatcli/config.json` and the
 * workspace's `.chatcli/config.json` — and what a job sees when that set-up is wrong.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

describe("provider selection from the environment and files", () => {
  test("LLM_PROVIDER=OLLAMA with OLLAMA_BASE_URL: the OpenAI-compatible /v1/chat/completions path", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "local answer" });
    const r = await runChatcli(["ask", "hi", "--json"], {
      env: baseEnv(home.path, {
        LLM_PROVIDER: "OLLAMA",
        OLLAMA_BASE_URL: `${llm.url}/`,
        OLLAMA_MODEL: "llama3.2",
      }),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      model: "ollama/llama3.2",
      result: "local answer",
    });
    expect(llm.requests.map((q) => q.path)).toEqual(["/v1/chat/completions"]);
    expect(llm.requests[0]?.body).toMatchObject({ model: "llama3.2" });
  });

  test("OPENAI_API_URL is used as the full chat-completions URL", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "gateway answer" });
    const r = await runChatcli(["ask", "hi"], {
      env: baseEnv(home.path, {
        LLM_PROVIDER: "OPENAI",
        OPENAI_API_KEY: "sk-test-gateway-000000000000000000",
        OPENAI_API_URL: `${llm.url}/gateway/openai/chat/completions`,
      }),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("gateway answer\n");
    expect(llm.requests.map((q) => q.path)).toEqual(["/gateway/openai/chat/completions"]);
  });

  test("CHATCLI_DOTENV with CRLF lines, export, quotes and comments selects the provider", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "from dotenv" });
    const file = join(home.path, "ci.env");
    await writeFile(
      file,
      `# CI secrets\r\nexport LLM_PROVIDER=CLAUDEAI\r\nANTHROPIC_API_KEY="sk-ant-dotenv-0000000000000000"\r\nANTHROPIC_BASE_URL='${llm.url}'\r\nANTHROPIC_MODEL=claude-haiku-4-5 # cheap\r\n`,
    );
    const r = await runChatcli(["ask", "hi", "--json"], {
      env: baseEnv(home.path, { CHATCLI_DOTENV: file }),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ model: "anthropic/claude-haiku-4-5", result: "from dotenv" });
    const auth = `${llm.requests[0]?.headers["x-api-key"] ?? ""}${llm.requests[0]?.headers["authorization"] ?? ""}`;
    expect(auth).toContain("sk-ant-dotenv-0000000000000000");
    // the key from the file is a configured secret: never in the JSON output
    expect(r.stdout).not.toContain("sk-ant-dotenv");
  });

  test("a CHATCLI_DOTENV that does not exist is a warning, and the no-provider error points at the files", async () => {
    await using home = await tempDir();
    const r = await runChatcli(["ask", "hi", "--json"], {
      env: baseEnv(home.path, { CHATCLI_DOTENV: join(home.path, "missing.env") }),
      cwd: home.path,
    });
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.warnings).toEqual([
      {
        code: "dotenv_missing",
        message: expect.stringContaining(`cannot read ${join(home.path, "missing.env")}`),
      },
    ]);
    expect(out.error.hint).toContain(
      "CHATCLI_DOTENV names it, or as ./.env in a trusted workspace",
    );
    expect(out.error.hint).toContain("~/.chatcli/config.json");
    expect(r.stderr).toContain("warning: CHATCLI_DOTENV=");
  });

  test("~/.chatcli/config.json: model and env pick the provider when nothing else does", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "from config" });
    await mkdir(join(home.path, ".chatcli"), { recursive: true });
    await writeFile(
      join(home.path, ".chatcli", "config.json"),
      JSON.stringify({
        model: "openai/gpt-5.4-mini",
        env: { OPENAI_API_KEY: "sk-config-000000000000000000", OPENAI_BASE_URL: `${llm.url}/v1` },
      }),
    );
    const r = await runChatcli(["ask", "hi", "--json"], {
      env: baseEnv(home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      model: "openai/gpt-5.4-mini",
      result: "from config",
    });
  });

  test("agent: a dotenv warning is in the envelope too", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "nothing to do" });
    const r = await runChatcli(["agent", "look around", "--json"], {
      env: baseEnv(home.path, { ...llm.env("openai"), CHATCLI_DOTENV: "/nonexistent/ci.env" }),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).warnings.map((w: { code: string }) => w.code)).toContain(
      "dotenv_missing",
    );
  });
});

describe("an endpoint that is not there", () => {
  test("OLLAMA_BASE_URL pointing at a closed port: exit 1 naming the URL it tried, without credentials", async () => {
    await using home = await tempDir();
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const port = closed.port;
    await closed.stop(true);
    const r = await runChatcli(["ask", "hi", "--json"], {
      env: baseEnv(home.path, {
        LLM_PROVIDER: "OLLAMA",
        OLLAMA_BASE_URL: `http://user:pw@127.0.0.1:${port}`,
        CHATCLI_MAX_RETRIES: "0",
      }),
      cwd: home.path,
    });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.terminal_reason).toBe("provider_error");
    expect(out.error.message).toContain(`(http://127.0.0.1:${port}/v1/chat/completions)`);
    expect(r.stderr).toContain(`http://127.0.0.1:${port}/v1/chat/completions`);
    expect(r.stdout + r.stderr).not.toContain("user:pw");
  });

  test("a model the endpoint does not know (404): exit 3 with a hint naming the model variables and the URL", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ error: { status: 404, message: "The model gpt-9 does not exist" } });
    const r = await runChatcli(["ask", "hi", "--json"], {
      env: baseEnv(home.path, { ...llm.env("openai"), OPENAI_MODEL: "gpt-9" }),
      cwd: home.path,
    });
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.terminal_reason).toBe("config_error");
    expect(out.error.hint).toContain("OPENAI_MODEL");
    expect(out.error.hint).toContain(`${llm.url}/v1/chat/completions`);
    expect(llm.requests).toHaveLength(1);
  });

  test("ChatCLI's <PROVIDER>_MAX_TOKENS caps output on the wire (ask and agent); --max-tokens wins", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" });
    await writeFile(join(home.path, ".env"), "ANTHROPIC_MAX_TOKENS=1234\nOPENAI_MAX_TOKENS=777\n");
    const anthropic = baseEnv(home.path, llm.env("anthropic"));
    const openai = baseEnv(home.path, llm.env("openai"));
    for (const [args, env] of [
      [["ask", "hi"], anthropic],
      [["agent", "hi"], anthropic],
      [["ask", "hi", "--max-tokens", "50"], anthropic],
      [["ask", "hi"], openai],
    ] as const) {
      const r = await runChatcli([...args], { env, cwd: home.path });
      expect(r.code).toBe(0);
    }
    const bodies = llm.requests.map((q) => q.body as Record<string, unknown>);
    expect(bodies.map((b) => b["max_tokens"] ?? b["max_completion_tokens"])).toEqual([
      1234, 1234, 50, 777,
    ]);
  });
});

describe("permissions from config files in an agent CI run", () => {
  test("~/.chatcli allow lets npm test run under --on-ask fail; a deny there beats the workspace's allow, and stderr says where to drop it", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const call = { tool_calls: [{ name: "run_command", arguments: { cmd: "npm test" } }] };
    llm.push(call, { text: "tests ran" }, call, { text: "could not run them" });
    const repo = join(home.path, "repo");
    await mkdir(join(repo, ".chatcli"), { recursive: true });
    await writeFile(join(repo, "package.json"), JSON.stringify({ scripts: { test: "echo ok" } }));
    await mkdir(join(home.path, ".chatcli"), { recursive: true });
    const global = join(home.path, ".chatcli", "config.json");
    await writeFile(global, JSON.stringify({ permissions: { allow: ["run_command(npm test*)"] } }));
    const env = baseEnv(home.path, llm.env("openai"));
    const allowed = await runChatcli(["agent", "run the tests", "--json", "--on-ask", "fail"], {
      env,
      cwd: repo,
    });
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({
      result: "tests ran",
      tools: { calls: 1, failed: 0, denied: 0 },
    });

    await writeFile(global, JSON.stringify({ permissions: { deny: ["run_command(npm *)"] } }));
    await writeFile(
      join(repo, ".chatcli", "config.json"),
      JSON.stringify({ permissions: { allow: ["run_command(npm test*)"] } }),
    );
    const denied = await runChatcli(["agent", "run the tests", "--json"], { env, cwd: repo });
    expect(denied.code).toBe(6); // blocked: the one command it tried was denied
    expect(JSON.parse(denied.stdout).permission_denials).toMatchObject([
      { tool: "run_command", input: "npm test", reason: "denied by rule run_command(npm *)" },
    ]);
    expect(denied.stderr).toContain(
      'remove the rule run_command(npm *) (a --deny-tool flag, or "permissions.deny" in',
    );
    expect(denied.stderr).not.toContain("allow with remove");
  });
});

describe("stream-json with warnings raised before the run starts", () => {
  for (const command of ["ask", "agent"]) {
    test(`${command}: the first line is still session.started (schema_version); the warnings follow it`, async () => {
      await using home = await tempDir();
      const r = await runChatcli([command, "-m", "mock:echo", "hi", "--jsonl"], {
        env: baseEnv(home.path, {
          CHATCLI_DOTENV: join(home.path, "missing.env"),
          CHATCLI_FALLBACK_PROVIDERS: "nope",
        }),
        cwd: home.path,
      });
      expect(r.code).toBe(0);
      const lines = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ type: "session.started", seq: 0, schema_version: 1 });
      expect(lines.slice(1, 3).map((e) => [e.type, e.code, e.seq])).toEqual([
        ["warning", "dotenv_missing", 1],
        ["warning", "fallback_skipped", 2],
      ]);
      expect(lines.at(-1).warnings.map((w: { code: string }) => w.code)).toEqual([
        "dotenv_missing",
        "fallback_skipped",
      ]);
    });
  }
});
