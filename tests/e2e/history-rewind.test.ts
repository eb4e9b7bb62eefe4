/**
 * Checkpoints, `chatcli rewind` and `chatcli sessions` through the built binary, each step its own
 * process (so everything asserted here survived a process exit), plus Go-written session files.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

// biome-ignore lint/suspicious/noExplicitAny: the documents are inspected freely
type Json = Record<string, any>;

function env(llm: MockLlm, home: string) {
  return baseEnv(home, { ...llm.env("openai"), CHATCLI_RETRY_BASE_MS: "10" });
}

const ORIGINAL = Buffer.from("line one\r\nline two\n\u0000binary tail\u00ff", "latin1");

/** An agent run in `ws` that modifies a.bin, creates sub/new.txt, then modifies a.bin again. */
async function editingRun(llm: MockLlm, home: string, ws: string) {
  llm.push(
    { tool_calls: [{ name: "write_file", arguments: { file: "a.bin", content: "changed\n" } }] },
    { tool_calls: [{ name: "write_file", arguments: { file: "sub/new.txt", content: "new\n" } }] },
    { tool_calls: [{ name: "write_file", arguments: { file: "a.bin", content: "again\n" } }] },
    { text: "edited" },
  );
  const r = await runChatcli(
    ["agent", "--session", "work", "edit the files", "--permission-mode", "bypass", "--json"],
    { env: env(llm, home), cwd: ws },
  );
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Json;
}

function sentMessages(llm: MockLlm): Json[] {
  const body = llm.requests[0]?.body as Json | undefined;
  return (body?.["messages"] as Json[] | undefined) ?? [];
}

async function workspace(home: string): Promise<string> {
  const ws = join(home, "ws");
  await mkdir(ws);
  await writeFile(join(ws, "a.bin"), ORIGINAL);
  return ws;
}

describe("rewind after an agent run that edited files", () => {
  test("--list shows one checkpoint per request with its label; --to 1 --both restores files byte-identically", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const ws = await workspace(home.path);
    const envelope = await editingRun(llm, home.path, ws);
    expect(envelope["checkpoints"]).toEqual({ count: 4, last: 4 });
    await writeFile(join(ws, "untracked.txt"), "mine");

    const list = await runChatcli(["rewind", "--session", "work", "--list", "--json"], {
      env: env(llm, home.path),
      cwd: ws,
    });
    expect(list.code).toBe(0);
    const checkpoints = (JSON.parse(list.stdout) as Json)["checkpoints"] as Json[];
    expect(checkpoints.map((c) => [c["id"], c["message_count"], c["label"]])).toEqual([
      [1, 1, "edit the files"],
      [2, 3, "edit the files (turn 2)"],
      [3, 5, "edit the files (turn 3)"],
      [4, 7, "edit the files (turn 4)"],
    ]);

    const r = await runChatcli(["rewind", "--session", "work", "--to", "1", "--both", "--json"], {
      env: env(llm, home.path),
      cwd: ws,
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Json;
    expect(out["rewind"]["removed_checkpoints"]).toEqual([2, 3, 4]);
    expect(Buffer.compare(await readFile(join(ws, "a.bin")), ORIGINAL)).toBe(0);
    // The created file and the directory made for it are gone; the user's file is untouched.
    expect((await readdir(ws)).sort()).toEqual(["a.bin", "untracked.txt"]);
    expect(await readFile(join(ws, "untracked.txt"), "utf8")).toBe("mine");
    const session = JSON.parse(
      await readFile(join(home.path, ".chatcli", "sessions", "work.json"), "utf8"),
    ) as Json;
    expect(session["chat_history"]).toEqual([{ role: "user", content: "edit the files" }]);
  });

  test("a file changed since the run: exit 9 and nothing restored; --force overwrites it", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const ws = await workspace(home.path);
    await editingRun(llm, home.path, ws);
    await writeFile(join(ws, "a.bin"), "my own edit\n");
    const sessionFile = join(home.path, ".chatcli", "sessions", "work.json");
    const before = await readFile(sessionFile, "utf8");

    const r = await runChatcli(["rewind", "--session", "work", "--to", "1", "--both"], {
      env: env(llm, home.path),
      cwd: ws,
    });
    expect(r.code).toBe(9);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("changed since checkpoint 1");
    expect(await readFile(join(ws, "a.bin"), "utf8")).toBe("my own edit\n");
    expect(await readFile(join(ws, "sub", "new.txt"), "utf8")).toBe("new\n");
    expect(await readFile(sessionFile, "utf8")).toBe(before);

    await writeFile(join(ws, "sub", "keep.txt"), "the user's file");
    const forced = await runChatcli(
      ["rewind", "--session", "work", "--to", "1", "--both", "--force"],
      { env: env(llm, home.path), cwd: ws },
    );
    expect(forced.code).toBe(0);
    expect(Buffer.compare(await readFile(join(ws, "a.bin")), ORIGINAL)).toBe(0);
    // sub/ was made by chatcli but now holds a file it did not create: both stay.
    expect(await readdir(join(ws, "sub"))).toEqual(["keep.txt"]);
  });

  test("--dry-run and --conversation never touch files; a file chatcli did not create is never deleted", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const ws = await workspace(home.path);
    await editingRun(llm, home.path, ws);
    const dry = await runChatcli(
      ["rewind", "--session", "work", "--to", "1", "--both", "--dry-run"],
      { env: env(llm, home.path), cwd: ws },
    );
    expect(dry.code).toBe(0);
    expect(await readFile(join(ws, "a.bin"), "utf8")).toBe("again\n");
    const conv = await runChatcli(["rewind", "--session", "work", "--to", "2", "--conversation"], {
      env: env(llm, home.path),
      cwd: ws,
    });
    expect(conv.code).toBe(0);
    expect(await readFile(join(ws, "a.bin"), "utf8")).toBe("again\n");
    expect(await readFile(join(ws, "sub", "new.txt"), "utf8")).toBe("new\n");
    // The user deletes the created file and writes their own there: rewinding refuses to delete it.
    await writeFile(join(ws, "sub", "new.txt"), "user content");
    const code = await runChatcli(["rewind", "--session", "work", "--to", "1", "--code"], {
      env: env(llm, home.path),
      cwd: ws,
    });
    expect(code.code).toBe(9);
    expect(await readFile(join(ws, "sub", "new.txt"), "utf8")).toBe("user content");
  });
});

describe("checkpoint cap and persistence", () => {
  test("22 ask turns in 22 processes keep the newest 20 checkpoints; rewinding to the oldest restores that history", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    for (let i = 1; i <= 22; i++) {
      llm.push({ text: `answer ${i}` });
      const r = await runChatcli(["ask", "--session", "long", `question ${i}`], {
        env: env(llm, home.path),
        cwd: home.path,
      });
      expect(r.code).toBe(0);
    }
    const list = await runChatcli(["rewind", "--session", "long", "--list", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    const checkpoints = (JSON.parse(list.stdout) as Json)["checkpoints"] as Json[];
    expect(checkpoints).toHaveLength(20);
    expect(checkpoints[0]?.["id"]).toBe(3);
    expect(checkpoints[0]?.["label"]).toBe("question 3");
    expect(checkpoints.at(-1)?.["id"]).toBe(22);
    const r = await runChatcli(["rewind", "--session", "long", "--to", "3"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const shown = await runChatcli(["sessions", "show", "long", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    const doc = JSON.parse(shown.stdout) as Json;
    expect(doc["messages"]).toEqual([
      { role: "user", content: "question 1" },
      { role: "assistant", content: "answer 1" },
      { role: "user", content: "question 2" },
      { role: "assistant", content: "answer 2" },
    ]);
    expect(doc["checkpoints"].map((c: Json) => c["id"])).toEqual([3]);
  });
});

describe("sessions list|show|rm and Go-written files", () => {
  async function writeGoSessions(home: string): Promise<string> {
    const dir = join(home, ".chatcli", "sessions");
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "legacy.json"),
      JSON.stringify(
        [
          { role: "user", content: "read main.go" },
          {
            role: "assistant",
            content: "",
            tool_calls: [
              {
                id: "toolu_01",
                type: "function",
                name: "read_file",
                arguments: { file: "main.go" },
                raw: '<read_file file="main.go"/>',
              },
            ],
          },
          { role: "tool", content: "package main", tool_call_id: "toolu_01" },
          { role: "assistant", content: "It is the main package." },
        ],
        null,
        2,
      ),
    );
    await writeFile(
      join(dir, "v2.json"),
      JSON.stringify(
        {
          version: 2,
          title: "mixed",
          chat_history: [
            { role: "user", content: "chat q" },
            { role: "assistant", content: "chat a" },
          ],
          agent_history: [
            { role: "system", content: "agent system prompt" },
            { role: "user", content: "agent q" },
            { role: "assistant", content: "agent a", meta: { mode: "agent" } },
          ],
          coder_history: [
            { role: "user", content: "coder q" },
            { role: "assistant", content: "coder a" },
          ],
        },
        null,
        2,
      ),
    );
    // A Go cost snapshot in the same folder is not a session.
    await writeFile(join(dir, "1700000000000000000.json"), '{"total_cost": 1.5}');
    return dir;
  }

  test("list --json reads legacy and v2 files and skips non-session JSON", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    await writeGoSessions(home.path);
    const r = await runChatcli(["sessions", "list", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Json[];
    expect(list.map((s) => [s["name"], s["title"], s["messages"]])).toEqual([
      ["legacy", "read main.go", 4],
      ["v2", "mixed", 6],
    ]);
  });

  test("ask --session continues a legacy array (tool round trip sent as OpenAI tool calls) and saves v2", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const dir = await writeGoSessions(home.path);
    llm.push({ text: "It prints hello." });
    const r = await runChatcli(["ask", "--session", "legacy", "what does it print?"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const sent = sentMessages(llm).slice(1);
    expect(sent).toEqual([
      { role: "user", content: "read main.go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "toolu_01",
            type: "function",
            function: { name: "read_file", arguments: '{"file":"main.go"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "toolu_01", content: "package main" },
      { role: "assistant", content: "It is the main package." },
      { role: "user", content: "what does it print?" },
    ]);
    const saved = JSON.parse(await readFile(join(dir, "legacy.json"), "utf8")) as Json;
    expect(saved["version"]).toBe(2);
    expect(saved["title"]).toBe("read main.go");
    expect(saved["chat_history"][1]["tool_calls"][0]["raw"]).toBe('<read_file file="main.go"/>');
    expect(saved["chat_history"].slice(-2)).toEqual([
      { role: "user", content: "what does it print?" },
      { role: "assistant", content: "It prints hello." },
    ]);
  });

  test("ask --session continues a v2 file with agent/coder histories merged; show and rm --json", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const dir = await writeGoSessions(home.path);
    llm.push({ text: "merged" });
    const r = await runChatcli(["ask", "--session", "v2", "and now?"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const sent = sentMessages(llm).slice(1);
    expect(sent.map((m) => m["content"])).toEqual([
      "chat q",
      "chat a",
      "agent q",
      "agent a",
      "coder q",
      "coder a",
      "and now?",
    ]);
    const saved = JSON.parse(await readFile(join(dir, "v2.json"), "utf8")) as Json;
    expect(Object.keys(saved).sort()).toEqual(["chat_history", "title", "version"]);

    const show = await runChatcli(["sessions", "show", "v2", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(show.code).toBe(0);
    const doc = JSON.parse(show.stdout) as Json;
    expect(doc["name"]).toBe("v2");
    expect(doc["messages"]).toHaveLength(8);
    expect(doc["checkpoints"]).toHaveLength(1);

    const rm = await runChatcli(["sessions", "rm", "v2", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(rm.code).toBe(0);
    expect(JSON.parse(rm.stdout)).toEqual({ name: "v2", deleted: true });
    expect((await readdir(dir)).sort()).toEqual(["1700000000000000000.json", "legacy.json"]);
    const again = await runChatcli(["sessions", "rm", "v2", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stdout)["error"]["code"]).toBe("bad_input");
  });

  test("ask --session NAME --ephemeral reads the session and writes nothing", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const dir = await writeGoSessions(home.path);
    const before = await readFile(join(dir, "legacy.json"), "utf8");
    llm.push({ text: "ok" });
    const r = await runChatcli(["ask", "--session", "legacy", "--ephemeral", "more", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)["session_id"]).toBeNull();
    expect(sentMessages(llm).at(-2)).toEqual({
      role: "assistant",
      content: "It is the main package.",
    });
    expect(await readFile(join(dir, "legacy.json"), "utf8")).toBe(before);
    expect((await readdir(dir)).sort()).toEqual([
      "1700000000000000000.json",
      "legacy.json",
      "v2.json",
    ]);
  });

  test("a configured key typed into a prompt is redacted in the session and in its checkpoints", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const key = llm.env("openai")["OPENAI_API_KEY"] as string;
    llm.push({ text: "noted" }, { text: "again" });
    for (const prompt of [`my key is ${key}`, "second turn"]) {
      const r = await runChatcli(["ask", "--session", "sec", prompt], {
        env: env(llm, home.path),
        cwd: home.path,
      });
      expect(r.code).toBe(0);
    }
    const dir = join(home.path, ".chatcli", "sessions");
    const files = [
      join(dir, "sec.json"),
      ...(await readdir(join(dir, "sec.chatcli"), { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name)),
    ];
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) expect(await readFile(file, "utf8")).not.toContain(key);
    const list = await runChatcli(["rewind", "--session", "sec", "--list", "--json"], {
      env: env(llm, home.path),
      cwd: home.path,
    });
    expect(JSON.parse(list.stdout)["checkpoints"][0]["label"]).toBe(
      "my key is [REDACTED:configured_key]",
    );
  });
});
