import { describe, expect, test } from "bun:test";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";
import { openaiAnswer, sse } from "../support/wire-fixtures.ts";

/**
 * A provider (or a proxy in front of it) that answers 401 quoting the whole key: the key is one of
 * the run's secrets, so no error line, warning, envelope field, event or session file shows it
 * (issue 20). The key has no known shape (no sk-…, AIza…): only the run's secret set can catch it.
 */
const KEY = "kq7ZpLr9Wx4Tn2Mecho0Q";

const providers: Array<{ name: string; env: (llm: MockLlm) => Record<string, string> }> = [
  {
    name: "openai",
    env: (llm) => ({ ...llm.env("openai"), OPENAI_API_KEY: KEY }),
  },
  {
    name: "anthropic",
    env: (llm) => ({ ...llm.env("anthropic"), ANTHROPIC_API_KEY: KEY }),
  },
  {
    name: "gemini",
    env: (llm) => ({ LLM_PROVIDER: "GOOGLEAI", GOOGLEAI_API_KEY: KEY, GOOGLEAI_BASE_URL: llm.url }),
  },
];

async function filesUnder(dir: string): Promise<string> {
  let out = "";
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }).catch(
    () => [],
  )) {
    if (!entry.isFile()) continue;
    out += await readFile(join(entry.parentPath, entry.name), "utf8").catch(() => "");
  }
  return out;
}

describe("a provider error that echoes the API key (spawned binary, mock providers)", () => {
  for (const p of providers) {
    test(`${p.name}: 401 quoting the key — stderr, envelope, events and session files redact it`, async () => {
      requireBinary();
      await using home = await tempDir();
      await using llm = await startMockLlm();
      const env = baseEnv(home.path, { ...p.env(llm), CHATCLI_MEMORY_ENABLED: "false" });
      const echo = `Incorrect API key provided: ${KEY}. You can find your API key at https://example.invalid (key=${KEY})`;
      const seen: string[] = [];
      for (const format of [[], ["--json"], ["--jsonl"]]) {
        llm.push(
          { tool_calls: [{ name: "read_file", arguments: { file: "nope.txt" } }] },
          { error: { status: 401, message: echo } },
        );
        const r = await runChatcli(["agent", "look around", ...format], { env, cwd: home.path });
        expect({ format, code: r.code }).toEqual({ format, code: 3 });
        expect(r.stdout + r.stderr).toContain("Incorrect API key provided");
        seen.push(r.stdout, r.stderr);
      }
      // a 401 on the first request, and in ask
      llm.push({ error: { status: 401, message: echo } });
      const ask = await runChatcli(["ask", "hi", "--json"], { env, cwd: home.path });
      expect(ask.code).toBe(3);
      seen.push(ask.stdout, ask.stderr);
      const all = seen.join("\n");
      expect(all).toContain("[REDACTED:configured_key]");
      expect(all).not.toContain(KEY);
      const stored = await filesUnder(join(home.path, ".chatcli"));
      expect(stored).not.toContain(KEY);
    });
  }

  test("the key set in ~/.chatcli/config.json (not the process env) is redacted the same way", async () => {
    requireBinary();
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const { OPENAI_API_KEY: _, ...rest } = llm.env("openai");
    await mkdir(join(home.path, ".chatcli"), { recursive: true });
    await writeFile(
      join(home.path, ".chatcli", "config.json"),
      JSON.stringify({ env: { OPENAI_API_KEY: KEY } }),
    );
    const env = baseEnv(home.path, { ...rest, CHATCLI_MEMORY_ENABLED: "false" });
    for (const format of [[], ["--json"]]) {
      llm.push({ error: { status: 401, message: `bad key ${KEY}` } });
      const r = await runChatcli(["agent", "hi", ...format], { env, cwd: home.path });
      expect(r.code).toBe(3);
      expect(r.stdout + r.stderr).toContain("bad key [REDACTED:configured_key]");
      expect(r.stdout + r.stderr).not.toContain(KEY);
    }
    const stored = await filesUnder(join(home.path, ".chatcli", "sessions"));
    expect(stored).not.toContain(KEY);
  });

  test("the key in the answer, split across two stream deltas, is redacted in text and stream-json", async () => {
    requireBinary();
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const env = baseEnv(home.path, {
      ...llm.env("openai"),
      OPENAI_API_KEY: KEY,
      CHATCLI_MEMORY_ENABLED: "false",
    });
    const pieces = ["the key is ", KEY.slice(0, 9), KEY.slice(9), " — ok"];
    for (const args of [
      ["ask", "hi"],
      ["ask", "hi", "--jsonl"],
      ["agent", "hi", "--jsonl"],
    ]) {
      llm.pushRaw(sse(openaiAnswer(pieces)));
      const r = await runChatcli(args, { env, cwd: home.path });
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      expect(r.stdout).toContain("[REDACTED:configured_key]");
      expect(r.stdout).not.toContain(KEY.slice(0, 9));
      expect(r.stdout).not.toContain(KEY.slice(9));
      if (args.includes("--jsonl")) {
        const deltas = r.stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { type: string; text?: string })
          .filter((e) => e.type === "message.delta")
          .map((e) => e.text)
          .join("");
        expect(deltas).toBe("the key is [REDACTED:configured_key] — ok");
      } else expect(r.stdout).toBe("the key is [REDACTED:configured_key] — ok\n");
    }
  });
});
