/**
 * What a plain `ask` in a project does to the request and to disk: path rules only when the prompt
 * names a path (as the Go tool), no compaction noise for a single message, a private ~/.chatcli.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

async function project(root: string): Promise<string> {
  const ws = join(root, "ws");
  await mkdir(join(ws, ".git"), { recursive: true });
  await mkdir(join(ws, "rules"));
  await writeFile(join(ws, "rules", "style.md"), "RULE-BODY-STYLE: tabs, never spaces\n");
  await writeFile(
    join(ws, "rules", "go.md"),
    '---\npaths: ["*.go"]\n---\nRULE-BODY-GO: wrap errors\n',
  );
  return ws;
}

/** The system text of the request mock:echo received. */
async function systemOf(ws: string, home: string, prompt: string): Promise<string> {
  const r = await runChatcli(["ask", "-m", "mock:echo", "--trust-workspace", "--json", prompt], {
    env: baseEnv(home, { CHATCLI_MEMORY_ENABLED: "false" }),
    cwd: ws,
  });
  expect(r.code).toBe(0);
  const sent = JSON.parse(JSON.parse(r.stdout).result) as { system: Array<{ text: string }> };
  return sent.system.map((b) => b.text).join("\n");
}

describe("ask in a project", () => {
  test("a top-level rules/*.md goes into a prompt only when the prompt names a path (Go §1.6)", async () => {
    await using dir = await tempDir();
    const ws = await project(dir.path);
    const plain = await systemOf(ws, dir.path, "what is a monad");
    expect(plain).not.toContain("RULE-BODY");
    const named = await systemOf(ws, dir.path, "why does main.go fail");
    expect(named).toContain("RULE-BODY-STYLE");
    expect(named).toContain("RULE-BODY-GO");
    const other = await systemOf(ws, dir.path, "look at src/app.ts");
    expect(other).toContain("RULE-BODY-STYLE");
    expect(other).not.toContain("RULE-BODY-GO");
    // with a .chatcli directory, the top-level rules/ is not read at all (Go)
    await mkdir(join(ws, ".chatcli"));
    expect(await systemOf(ws, dir.path, "why does main.go fail")).not.toContain("RULE-BODY");
  });

  test("a single oversized message is cut with one warning, not a compaction progress report", async () => {
    await using dir = await tempDir();
    const r = await runChatcli(["ask", "-m", "mock:echo", "summarise"], {
      env: baseEnv(dir.path, { CHATCLI_CONTEXT_WINDOW: "1000", CHATCLI_MEMORY_ENABLED: "false" }),
      cwd: dir.path,
      stdin: "a".repeat(20_000),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/📦|🧹|✂|1 → 1 messages/);
    expect(r.stderr).toMatch(/^chatcli: warning: the prompt was cut from \d+ to \d+ characters/m);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  test("an autosaved ask creates ~/.chatcli and sessions/ private (0700), as --session does", async () => {
    await using dir = await tempDir();
    const r = await runChatcli(["ask", "-m", "mock:echo", "hi"], {
      env: baseEnv(dir.path, { CHATCLI_MEMORY_ENABLED: "false" }),
      cwd: dir.path,
    });
    expect(r.code).toBe(0);
    for (const path of [join(dir.path, ".chatcli"), join(dir.path, ".chatcli", "sessions")])
      expect({ path, mode: ((await stat(path)).mode & 0o777).toString(8) }).toEqual({
        path,
        mode: "700",
      });
  });
});
