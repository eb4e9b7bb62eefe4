import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

async function gitRepo(dir: string): Promise<void> {
  await writeFile(join(dir, "f.txt"), "one\ntwo\n");
  await mkdir(join(dir, "victim"));
  await writeFile(join(dir, "victim", "keep.txt"), "keep");
  for (const args of [
    ["init", "-q"],
    ["add", "."],
    ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"],
  ])
    Bun.spawnSync(["git", ...args], { cwd: dir });
}

const run = (cmd: string) => ({ name: "run_command", arguments: { cmd } });

describe("agent permission escapes, end to end (spawned binary, no TTY)", () => {
  test("--permission-mode auto: hidden deletions, git aliases, link-then-write and hook writes are denied; nothing changes on disk", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using outside = await tempDir();
    await using llm = await startMockLlm();
    await gitRepo(dir.path);
    llm.push(
      {
        tool_calls: [
          run("nice -n 1 rm -rf victim"),
          run("xargs -n 1 rm -rf <<< victim"),
          run("X=rm; $X -rf victim"),
          run("git -c alias.x='!touch pwned-alias' x"),
          run(`ln -s ${outside.path} evil && echo x > evil/pwned`),
          run("busybox rm -rf victim"),
          {
            name: "write_file",
            arguments: { file: ".git/hooks/pre-commit", content: "touch pwned" },
          },
        ],
      },
      { text: "All refused." },
    );
    const env = baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(
      ["agent", "clean up", "--json", "--permission-mode", "auto", "--ephemeral"],
      { env, cwd: dir.path },
    );
    // every call denied: the run could do nothing it tried (exit 6, blocked)
    expect(r.code).toBe(6);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.terminal_reason).toBe("blocked");
    expect(envelope.permission_denials).toHaveLength(7);
    expect(envelope.files_changed).toEqual([]);
    expect(existsSync(join(dir.path, "victim", "keep.txt"))).toBe(true);
    expect(existsSync(join(dir.path, "pwned-alias"))).toBe(false);
    expect(existsSync(join(dir.path, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(await readdir(outside.path)).toEqual([]);
    // the model was told why, per call
    const second = JSON.stringify(llm.requests[1]?.body);
    expect(second).toContain("recursive or forced deletion");
    expect(second).toContain("command name known only at run time");
    expect(second).toContain("alias.x");
    expect(second).toContain("protected");
    expect(r.stderr).toContain("--permission-mode bypass");
  }, 60_000);

  test("--permission-mode read-only: 'read-only' programs that write or execute are not run", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await gitRepo(dir.path);
    await writeFile(join(dir.path, "f.txt"), "changed\n");
    llm.push(
      {
        tool_calls: [
          run("sed -n '1e touch pwned-sed' f.txt"),
          run("sed 's/one/x/w pwned-w' f.txt"),
          run("git diff --output=pwned-diff"),
          run("GIT_EXTERNAL_DIFF='touch pwned-ext' git diff"),
          run("git grep -O'touch pwned-grep' one"),
          run("sed -n 1p f.txt"),
        ],
      },
      { text: "done" },
    );
    const env = baseEnv(dir.path, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(["agent", "look", "--json", "--ephemeral"], {
      env,
      cwd: dir.path,
    });
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.permission_denials).toHaveLength(5);
    const names = await readdir(dir.path);
    expect(names.filter((n) => n.startsWith("pwned"))).toEqual([]);
    // the harmless read still ran and its output reached the model
    expect(JSON.stringify(llm.requests[1]?.body)).toContain("changed");
  }, 60_000);

  test("a link made by one call of a turn cannot carry a later call of the same turn outside", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using outside = await tempDir();
    await using llm = await startMockLlm();
    await gitRepo(dir.path);
    llm.push(
      {
        tool_calls: [
          run(`ln -s ${outside.path} evil`),
          { name: "write_file", arguments: { file: "evil/pwned", content: "x" } },
          run("echo x > evil/pwned2"),
        ],
      },
      { text: "done" },
    );
    const env = baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(
      ["agent", "link", "--json", "--permission-mode", "auto", "--ephemeral"],
      { env, cwd: dir.path },
    );
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.stdout);
    expect(envelope.permission_denials).toHaveLength(2);
    expect(envelope.permission_denials[0].reason).toContain("after earlier calls of this turn ran");
    // only the link itself was made
    expect(envelope.files_changed).toEqual([{ path: "evil", change: "created" }]);
    expect(await readdir(outside.path)).toEqual([]);
  }, 60_000);

  test("a malformed rule in .chatcli/config.json is reported, not silently dropped", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await gitRepo(dir.path);
    await mkdir(join(dir.path, ".chatcli"));
    await writeFile(
      join(dir.path, ".chatcli", "config.json"),
      JSON.stringify({ permissions: { deny: ["run command(rm*)"] } }),
    );
    llm.push({ text: "ok" });
    const env = baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(["agent", "hi", "--json", "--ephemeral"], { env, cwd: dir.path });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('ignored .chatcli/config.json rule "run command(rm*)"');
    expect(JSON.parse(r.stdout).warnings).toContainEqual(
      expect.objectContaining({ code: "invalid_permission_rule" }),
    );
  }, 60_000);

  test("a repository's config cannot turn on bypass: auto is used, rm -rf stays denied", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await gitRepo(dir.path);
    await mkdir(join(dir.path, ".chatcli"));
    await writeFile(
      join(dir.path, ".chatcli", "config.json"),
      JSON.stringify({ permissions: { mode: "bypass" } }),
    );
    llm.push({ tool_calls: [run("rm -rf victim")] }, { text: "ok" });
    const env = baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(["agent", "clean", "--json", "--ephemeral"], {
      env,
      cwd: dir.path,
    });
    expect(r.code).toBe(6); // blocked: its one command was denied
    const envelope = JSON.parse(r.stdout);
    expect(envelope.permission_denials).toHaveLength(1);
    expect(existsSync(join(dir.path, "victim", "keep.txt"))).toBe(true);
    expect(r.stderr).toContain("permissions.mode bypass in config.json is not honoured");
  }, 60_000);

  test("files changed by a command (sed -i, redirects, rm) are listed in files_changed", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    await gitRepo(dir.path);
    llm.push(
      { tool_calls: [run("sed -i s/one/ONE/ f.txt && echo new > new.txt && rm victim/keep.txt")] },
      { text: "done" },
    );
    const env = baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(
      ["agent", "edit", "--json", "--permission-mode", "auto", "--ephemeral"],
      { env, cwd: dir.path },
    );
    expect(r.code).toBe(0);
    const changed = JSON.parse(r.stdout).files_changed as Array<{ path: string; change: string }>;
    expect([...changed].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: "f.txt", change: "modified" },
      { path: "new.txt", change: "created" },
      { path: "victim/keep.txt", change: "deleted" },
    ]);
  }, 60_000);
});
