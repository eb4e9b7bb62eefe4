import { describe, expect, test } from "bun:test";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { runInProcess as runChatcli } from "../support/in-process.ts";
import { startMockLlm } from "../support/mock-llm.ts";

interface Envelope {
  exit_code: number;
  session_id: string | null;
  result: string | null;
  warnings: Array<{ code: string; message: string }>;
  memory: { mode: string } | null;
  bootstrap_files: Array<{ name: string; path: string; scope: string; bytes: number }>;
  error: { code: string; message: string } | null;
}

const codes = (e: Envelope) => e.warnings.map((w) => w.code);

async function sessionFiles(home: string): Promise<string[]> {
  return (await readdir(join(home, ".chatcli", "sessions")).catch(() => [] as string[]))
    .filter((f) => f.endsWith(".json"))
    .sort();
}

/** issue 10: what reached only stderr reaches the envelope too. */
describe("warnings in the envelope, not only on stderr (in-process)", () => {
  test("quarantined session, -c with nothing to continue, empty stdin, invalid UTF-8", async () => {
    await using home = await tempDir();
    const run = async (args: string[], stdin?: string | Uint8Array) => {
      const r = await runChatcli(args, {
        env: baseEnv(home.path),
        cwd: home.path,
        ...(stdin === undefined ? {} : { stdin }),
      });
      return { ...r, env: JSON.parse(r.stdout) as Envelope };
    };
    await mkdir(join(home.path, ".chatcli", "sessions"), { recursive: true });
    await writeFile(join(home.path, ".chatcli", "sessions", "bad.json"), "{oops");
    const bad = await run(["ask", "-m", "mock:echo", "hi", "--session", "bad", "--json"]);
    expect(bad.env.exit_code).toBe(0);
    expect(codes(bad.env)).toEqual(["session_quarantined"]);
    expect(bad.env.warnings[0]?.message).toContain("bad.json.corrupt");
    expect(bad.stderr).toContain("warning: session file");

    for (const cmd of ["ask", "agent"]) {
      await using fresh = await tempDir();
      const r = await runChatcli([cmd, "-m", "mock:echo", "hi", "-c", "--json"], {
        env: baseEnv(fresh.path),
        cwd: fresh.path,
      });
      expect(codes(JSON.parse(r.stdout))).toContain("no_earlier_session");
    }

    // a memory file that does not parse is moved aside: a warning of the run, not only a stderr line
    await mkdir(join(home.path, ".chatcli", "memory"), { recursive: true });
    await writeFile(join(home.path, ".chatcli", "memory", "memory_index.json"), "[{broken");
    const mem = await run(["ask", "-m", "mock:echo", "hi", "--ephemeral", "--json"]);
    expect(codes(mem.env)).toEqual(["memory_quarantined"]);
    expect(mem.env.warnings[0]?.message).toContain("memory_index.json did not parse");

    const empty = await run(["ask", "-m", "mock:echo", "summarise", "--json"], "");
    expect(codes(empty.env)).toEqual(["stdin_no_data"]);

    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café" in Latin-1
    const bytes = await run(["ask", "-m", "mock:echo", "what is this", "--json"], latin1);
    expect(codes(bytes.env)).toEqual(["invalid_utf8"]);
    expect(bytes.env.result).toContain("caf\uFFFD");
  });

  test("--memory off says off; -f attachments are listed in bootstrap_files (ask and agent)", async () => {
    await using home = await tempDir();
    await writeFile(join(home.path, "notes.md"), "# notes\n");
    for (const cmd of ["ask", "agent"]) {
      const r = await runChatcli(
        [cmd, "-m", "mock:echo", "hi", "--memory", "off", "-f", "notes.md", "--json"],
        { env: baseEnv(home.path), cwd: home.path },
      );
      const env = JSON.parse(r.stdout) as Envelope;
      expect(env.memory?.mode).toBe("off");
      expect(env.bootstrap_files).toContainEqual({
        name: "notes.md",
        path: join(home.path, "notes.md"),
        scope: "attachment",
        bytes: 8,
      });
    }
  });

  test("a failed fallback chain keeps the primary's error code (429 stays rate_limited, not auth)", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push(
      { error: { status: 429, message: "rate limit reached for gpt", retry_after: 0 } },
      { error: { status: 401, message: "invalid x-api-key" } },
    );
    const r = await runChatcli(["ask", "hi", "--json"], {
      env: baseEnv(home.path, {
        ...llm.env("openai"),
        ANTHROPIC_API_KEY: "sk-ant-test-key-000000000000000000",
        ANTHROPIC_BASE_URL: llm.url,
        CHATCLI_MAX_RETRIES: "0",
        CHATCLI_FALLBACK_PROVIDERS: "anthropic/claude-haiku-4-5",
      }),
      cwd: home.path,
    });
    expect(llm.requests).toHaveLength(2);
    expect(r.code).toBe(1);
    const env = JSON.parse(r.stdout) as Envelope;
    expect(env.error?.code).toBe("rate_limited");
    expect(env.error?.message).toContain("rate limit reached for gpt");
    expect(env.error?.message).toContain("invalid x-api-key");
  });
});

describe("sessions of one-shot runs", () => {
  test("ask -c follows up on the previous plain ask of this workspace", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "Paris." }, { text: "About 2.1 million." });
    const env = baseEnv(home.path, llm.env("openai"));
    const first = await runChatcli(["ask", "capital of France?", "--json"], {
      env,
      cwd: home.path,
    });
    const name = (JSON.parse(first.stdout) as Envelope).session_id;
    expect(name).toMatch(/^autosave-/);
    const second = await runChatcli(["ask", "-c", "and its population?", "--json"], {
      env,
      cwd: home.path,
    });
    expect((JSON.parse(second.stdout) as Envelope).session_id).toBe(name);
    const sent = JSON.stringify(llm.requests[1]?.body);
    expect(sent).toContain("capital of France?");
    expect(sent).toContain("Paris.");
    expect(sent).toContain("and its population?");
  });

  test("with CI set, runs without --session save no autosave session unless CHATCLI_SESSION_AUTOSAVE=true", async () => {
    await using home = await tempDir();
    const replies = join(home.path, "r.jsonl");
    await writeFile(replies, `${JSON.stringify({ text: "done" })}\n`.repeat(4));
    const run = (cmd: string, extra: Record<string, string>) =>
      runChatcli([cmd, "-m", "mock:script", "--fake-responses", replies, "hi", "--json"], {
        env: baseEnv(home.path, { CI: "true", ...extra }),
        cwd: home.path,
      });
    for (const cmd of ["ask", "agent"]) {
      const r = await run(cmd, {});
      expect(r.code).toBe(0);
      expect((JSON.parse(r.stdout) as Envelope).session_id).toBeNull();
    }
    expect(await sessionFiles(home.path)).toEqual([]);
    expect(await readdir(join(home.path, ".chatcli", "sessions")).catch(() => [])).toEqual([]);
    for (const cmd of ["ask", "agent"]) {
      const r = await run(cmd, { CHATCLI_SESSION_AUTOSAVE: "true" });
      expect((JSON.parse(r.stdout) as Envelope).session_id).toMatch(/^autosave-/);
    }
    expect(await sessionFiles(home.path)).toHaveLength(2);
  });
});
