import { describe, expect, test } from "bun:test";
import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

interface Message {
  role: string;
  content: string;
  tool_calls?: Array<{ id: string }>;
  tool_call_id?: string;
  is_error?: boolean;
}

async function gitRepo(dir: string): Promise<void> {
  await writeFile(join(dir, ".gitignore"), "build/\n");
  await writeFile(join(dir, "main.ts"), "export const x = 1;\n");
  await mkdir(join(dir, "build", "sub"), { recursive: true });
  await writeFile(join(dir, "build", "app.js"), "console.log(1);\n");
  await writeFile(join(dir, "build", "sub", "map.json"), '{"v":3}\n');
  await mkdir(join(dir, "build", "cache"));
  for (const args of [
    ["init", "-q"],
    ["add", "."],
    ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"],
  ])
    Bun.spawnSync(["git", ...args], { cwd: dir });
}

/** Every tool call has exactly one result right after it, and every result its call. */
function expectPaired(messages: Message[]): void {
  for (const [i, m] of messages.entries()) {
    if (m.role === "tool") {
      let j = i - 1;
      while (j >= 0 && messages[j]?.role === "tool") j--;
      expect(messages[j]?.tool_calls?.map((c) => c.id)).toContain(m.tool_call_id as string);
    }
    for (const call of m.tool_calls ?? []) {
      const results = messages.filter((r) => r.role === "tool" && r.tool_call_id === call.id);
      expect(results).toHaveLength(1);
    }
  }
}

/** issue 10, "The tool loop": a directory target is a tool result and a snapshot, never a crash. */
describe("rm -rf a directory in bypass (spawned binary, mock server)", () => {
  test("the run goes on, files_changed lists the deleted files, rewind --code brings the tree back", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await gitRepo(dir.path);
    llm.push(
      {
        tool_calls: [{ id: "call_rm", name: "run_command", arguments: { cmd: "rm -rf ./build" } }],
      },
      { text: "Removed the build directory." },
    );
    const env = baseEnv(dir.path, {
      ...llm.env("openai"),
      CHATCLI_MEMORY_ENABLED: "false",
      CHATCLI_SANDBOX: "off",
    });
    const r = await runChatcli(
      ["agent", "clean the build", "--permission-mode", "bypass", "--session", "rm", "--jsonl"],
      { env, cwd: dir.path },
    );
    expect(r.stderr).not.toContain("cannot snapshot");
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const result = lines.at(-1);
    expect(result).toMatchObject({ exit_code: 0, result: "Removed the build directory." });
    expect(result.tools).toMatchObject({ calls: 1, failed: 0 });
    expect(result.files_changed).toEqual([
      { path: "build/app.js", change: "deleted" },
      { path: "build/sub/map.json", change: "deleted" },
    ]);
    const events = lines.filter((l) => l.type === "file.changed").map((l) => l.path);
    expect(events.sort()).toEqual(["build/app.js", "build/sub/map.json"]);
    expect(await stat(join(dir.path, "build")).catch(() => null)).toBeNull();
    // the model saw the command's result; the saved history pairs every call with its result
    expect(JSON.stringify(llm.requests[1]?.body)).toContain("call_rm");
    const saved = JSON.parse(
      await readFile(join(dir.path, ".chatcli", "sessions", "rm.json"), "utf8"),
    ) as { chat_history: Message[] };
    expectPaired(saved.chat_history);
    expect(saved.chat_history.filter((m) => m.role === "tool")).toHaveLength(1);

    const rewind = await runChatcli(
      ["rewind", "--session", "rm", "--to", "1", "--code", "--json"],
      {
        env,
        cwd: dir.path,
      },
    );
    expect(rewind.code).toBe(0);
    expect(await readFile(join(dir.path, "build", "app.js"), "utf8")).toBe("console.log(1);\n");
    expect(await readFile(join(dir.path, "build", "sub", "map.json"), "utf8")).toBe('{"v":3}\n');
    expect((await stat(join(dir.path, "build", "cache"))).isDirectory()).toBe(true);
  });

  test("a symbolic link in the tree is recorded as not restorable, and rewind says so", async () => {
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await gitRepo(dir.path);
    await symlink("../main.ts", join(dir.path, "build", "link.ts"));
    llm.push(
      { tool_calls: [{ name: "run_command", arguments: { cmd: "rm -rf build" } }] },
      { text: "ok" },
    );
    const env = baseEnv(dir.path, {
      ...llm.env("openai"),
      CHATCLI_MEMORY_ENABLED: "false",
      CHATCLI_SANDBOX: "off",
    });
    const r = await runChatcli(
      ["agent", "clean", "--permission-mode", "bypass", "--session", "ln", "--json"],
      { env, cwd: dir.path },
    );
    expect(r.code).toBe(0);
    const rewind = await runChatcli(["rewind", "--session", "ln", "--to", "1", "--code"], {
      env,
      cwd: dir.path,
    });
    expect(rewind.code).toBe(0);
    expect(rewind.stdout).toContain("NOT restorable (a symbolic link)");
    expect(rewind.stdout).toContain("build/link.ts");
    expect(await readFile(join(dir.path, "build", "app.js"), "utf8")).toBe("console.log(1);\n");
  });

  test("files a shell command changed are in files_changed and file.changed, git or not", async () => {
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await writeFile(join(dir.path, "c.txt"), "a line\n");
    await writeFile(join(dir.path, "gone.txt"), "bye\n");
    const cmd = "printf x > out.txt && touch b.txt && sed -i s/a/b/ c.txt && rm gone.txt";
    llm.push({ tool_calls: [{ name: "run_command", arguments: { cmd } }] }, { text: "ok" });
    const env = baseEnv(dir.path, {
      ...llm.env("openai"),
      CHATCLI_MEMORY_ENABLED: "false",
      CHATCLI_SANDBOX: "off",
    });
    // not a git work tree: only the command's own targets tell what it changed
    const r = await runChatcli(["agent", "edit", "--permission-mode", "auto", "--jsonl"], {
      env,
      cwd: dir.path,
    });
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const expected = [
      { path: "out.txt", change: "created" },
      { path: "b.txt", change: "created" },
      { path: "c.txt", change: "modified" },
      { path: "gone.txt", change: "deleted" },
    ];
    expect(lines.at(-1).files_changed).toEqual(expected);
    expect(
      lines
        .filter((l) => l.type === "file.changed")
        .map((l) => ({ path: l.path, change: l.change })),
    ).toEqual(expected);
    expect(await readFile(join(dir.path, "c.txt"), "utf8")).toBe("b line\n");
  });
});
