import { beforeAll, describe, expect, test } from "bun:test";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { FOREIGN, GO_SESSION, snapshot, writeGoHome } from "./migrant-home.ts";

beforeAll(() => {
  requireBinary();
});

type Msg = { role: string; content: unknown };

describe("a Go ChatCLI user's saved sessions (spawned binary, mock LLM)", () => {
  test("ask --session continues a Go session: every message Go wrote stays as it was, its system prompt included", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const { chatcli, project } = await writeGoHome(home.path);
    const before = await snapshot(chatcli);
    llm.push({ text: "Set HTTP_PROXY too." });
    const env = baseEnv(home.path, { ...llm.env("openai"), TZ: "UTC" });
    const r = await runChatcli(["ask", "--session", "go-v2", "--memory", "off", "and for git?"], {
      env,
      cwd: project,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Set HTTP_PROXY too.\n");

    // On the wire: the earlier turns (image and tool call included), not Go's agent-mode system prompt.
    const sent = (llm.requests[0]?.body as { messages: Msg[] } | undefined)?.messages ?? [];
    expect(sent.filter((m) => m.role === "system")).toHaveLength(1);
    expect(JSON.stringify(sent)).not.toContain("ACTIVE MODE");
    expect(sent.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
    expect(JSON.stringify(sent[1]?.content)).toContain("data:image/png;base64,iVBORw0KGgo=");

    // On disk: Go's messages unchanged and in order, the turn appended, unknown keys kept, Go's layout.
    const text = await readFile(join(chatcli, "sessions", "go-v2.json"), "utf8");
    const doc = JSON.parse(text);
    expect(text.trimEnd()).toBe(JSON.stringify(doc, null, 2));
    expect(doc).toEqual({
      ...GO_SESSION,
      chat_history: [
        ...GO_SESSION.chat_history,
        { role: "user", content: "and for git?" },
        { role: "assistant", content: "Set HTTP_PROXY too." },
      ],
    });

    // Nothing else Go owns changed, and no temp or lock file was left behind.
    const after = await snapshot(chatcli);
    for (const [rel, body] of before) {
      if (rel === "sessions/go-v2.json") continue;
      expect({ rel, body: after.get(rel) }).toEqual({ rel, body });
    }
    const sessions = await readdir(join(chatcli, "sessions"));
    expect(sessions.filter((n) => /\.(tmp|lock)\b|~$/.test(n))).toEqual([]);
  });

  test("a second turn keeps Go's system prompt too; a legacy per-mode file becomes one v2 history", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const { chatcli, project } = await writeGoHome(home.path);
    llm.push({ text: "one" }, { text: "two" }, { text: "three" });
    const env = baseEnv(home.path, { ...llm.env("openai"), TZ: "UTC" });
    for (const q of ["first?", "second?"]) {
      const r = await runChatcli(["ask", "--session", "go-v2", "--memory", "off", q], {
        env,
        cwd: project,
      });
      expect(r.code).toBe(0);
    }
    const doc = JSON.parse(await readFile(join(chatcli, "sessions", "go-v2.json"), "utf8"));
    expect(doc.chat_history[0]).toEqual(GO_SESSION.chat_history[0]);
    expect(doc.chat_history.map((m: Msg) => m.content).slice(-4)).toEqual([
      "first?",
      "one",
      "second?",
      "two",
    ]);

    const r = await runChatcli(["ask", "--session", "per-mode", "--memory", "off", "go on"], {
      env,
      cwd: project,
    });
    expect(r.code).toBe(0);
    const merged = JSON.parse(await readFile(join(chatcli, "sessions", "per-mode.json"), "utf8"));
    // As Go restores it: chat_history, then the agent's and coder's non-system messages.
    expect(merged).toEqual({
      version: 2,
      title: "agent task",
      chat_history: [
        { role: "user", content: "agent task" },
        { role: "user", content: "coder task" },
        { role: "user", content: "go on" },
        { role: "assistant", content: "three" },
      ],
    });
  });

  test("ask --session on a Go session with tool calls, Anthropic: no tool blocks in a request without tools", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const { project } = await writeGoHome(home.path);
    llm.push({ text: "Use HTTPS_PROXY for git too." });
    const env = baseEnv(home.path, { ...llm.env("anthropic"), TZ: "UTC" });
    const r = await runChatcli(["ask", "--session", "go-v2", "--memory", "off", "and for git?"], {
      env,
      cwd: project,
    });
    expect(r.code).toBe(0);
    const body = llm.requests[0]?.body as { tools?: unknown; messages: unknown[] } | undefined;
    expect(body?.tools).toBeUndefined();
    const wire = JSON.stringify(body?.messages);
    expect(wire).not.toContain('"tool_use"');
    expect(wire).not.toContain('"tool_result"');
    expect(wire).toContain('[tool call read_file {\\"file\\":\\"proxy.go\\"}]');
    expect(wire).toContain("[tool result (error)]\\nno such file");
    expect(JSON.stringify(body)).not.toContain("ACTIVE MODE: /agent");
  });

  test("agent --session on a Go session: Go's agent prompt is not sent, and is still in the file afterwards", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const { chatcli, project } = await writeGoHome(home.path);
    llm.push(
      { tool_calls: [{ name: "memory", arguments: { cmd: "recall", args: { query: "proxy" } } }] },
      { text: "Nothing stored about git." },
    );
    const env = baseEnv(home.path, { ...llm.env("openai"), TZ: "UTC" });
    const r = await runChatcli(
      ["agent", "--session", "go-v2", "--memory", "read", "what do you remember about git?"],
      { env, cwd: project },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Nothing stored about git.\n");
    expect(llm.requests).toHaveLength(2);
    for (const req of llm.requests) {
      const sent = (req.body as { messages: Msg[] }).messages;
      expect(sent.filter((m) => m.role === "system")).toHaveLength(1);
      expect(JSON.stringify(sent)).not.toContain("ACTIVE MODE: /agent");
      expect(JSON.stringify(sent)).toContain("Use HTTPS_PROXY.");
    }
    const doc = JSON.parse(await readFile(join(chatcli, "sessions", "go-v2.json"), "utf8"));
    expect(doc.chat_history.slice(0, 5)).toEqual(GO_SESSION.chat_history);
    expect(doc.chat_history.at(-1)).toEqual({
      role: "assistant",
      content: "Nothing stored about git.",
    });
    expect(doc.x_future).toEqual(GO_SESSION.x_future);
  });

  test("a first session on a new machine: sessions dir 0700 and file 0600, as ChatCLI makes them", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "hello" });
    const env = baseEnv(home.path, { ...llm.env("openai"), TZ: "UTC" });
    const r = await runChatcli(["ask", "--session", "first", "--memory", "off", "hi"], {
      env,
      cwd: home.path,
    });
    expect(r.code).toBe(0);
    const dir = join(home.path, ".chatcli", "sessions");
    const mode = async (p: string) => (await stat(p)).mode & 0o777;
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(join(dir, "first.json"))).toBe(0o600);
    expect(await mode(join(dir, "first.chatcli"))).toBe(0o700);
  });

  test("compact --session on a Go legacy array: v2 out, the title sessions list showed kept, Go's messages after the cut unchanged", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const { chatcli, project } = await writeGoHome(home.path);
    const turns = Array.from({ length: 20 }, (_, i) => [
      { role: "user", content: `question ${i} ${"lorem ipsum dolor ".repeat(20)}` },
      { role: "assistant", content: `answer ${i} ${"sit amet ".repeat(30)}`, meta: { future: i } },
    ]).flat();
    const path = join(chatcli, "sessions", "bare.json");
    await writeFile(path, JSON.stringify(turns, null, 2));
    const env = baseEnv(home.path, { ...llm.env("openai"), TZ: "UTC" });
    const listed = await runChatcli(["sessions", "list", "--json"], { env, cwd: project });
    const title = (JSON.parse(listed.stdout) as Array<{ name: string; title: string }>).find(
      (s) => s.name === "bare",
    )?.title;
    // ChatCLI's rule: the first question, whitespace collapsed, 60 runes + "…".
    expect(title).toBe(`${turns[0]?.content.slice(0, 60)}…`);
    llm.push({ text: "## Current Task State\n- Done: forty questions" });
    const r = await runChatcli(["compact", "--session", "bare", "--budget", "1500"], {
      env,
      cwd: project,
    });
    expect(r.code).toBe(0);
    const doc = JSON.parse(await readFile(path, "utf8"));
    expect(doc.version).toBe(2);
    expect(doc.title).toBe(title);
    // the first question is the task: kept verbatim before the summary of the other 29
    expect(doc.chat_history[0]).toEqual(turns[0]);
    expect(doc.chat_history[1].meta).toEqual({ is_summary: true, summary_of: 29 });
    expect(doc.chat_history.slice(2)).toEqual(turns.slice(30));
  });

  test("sessions list shows Go's sessions and skips cost snapshots and other JSON", async () => {
    await using home = await tempDir();
    const { chatcli, project } = await writeGoHome(home.path);
    const env = baseEnv(home.path, { TZ: "UTC" });
    const r = await runChatcli(["sessions", "list", "--json"], { env, cwd: project });
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{ name: string; title: string; messages: number }>;
    expect(list.map((s) => [s.name, s.title, s.messages])).toEqual([
      ["go-v2", "como configurar o proxy", 5],
      ["legacy", "legacy question", 2],
      ["per-mode", "agent task", 2],
    ]);
    const text = await runChatcli(["sessions", "list"], { env, cwd: project });
    expect(text.stdout).not.toContain("1764370000000000000");
    expect(text.stdout).not.toContain("numbers");
    // Listing is read-only: the files are byte-identical.
    for (const rel of Object.keys(FOREIGN)) {
      expect(await readFile(join(chatcli, rel), "utf8")).toBe(FOREIGN[rel] as string);
    }
  });
});
