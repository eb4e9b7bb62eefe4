/**
 * Issue 11, what the shell judge learns: GNU long-option abbreviations, readers that execute, globbed
 * command names, writers it did not know, and git forms that lose work. Driven by `mock:script` (a
 * user's own pipeline can do the same); asserted on canaries, the workspace and the envelope.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

const run = (cmd: string) => ({ name: "run_command", arguments: { cmd } });

async function repo(dir: string): Promise<void> {
  await writeFile(join(dir, "f.txt"), "one\ntwo\n");
  await writeFile(join(dir, "keys"), "#env\nLESSOPEN=|touch pwned-lessopen %s\n");
  await mkdir(join(dir, "victim"));
  await writeFile(join(dir, "victim", "keep.txt"), "keep");
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["add", "."],
    ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"],
    ["stash", "list"],
  ])
    Bun.spawnSync(["git", ...args], { cwd: dir });
  await writeFile(join(dir, "f.txt"), "changed\n");
  Bun.spawnSync(["git", "stash", "-q"], { cwd: dir });
  await writeFile(join(dir, "f.txt"), "dirty\n");
}

async function script(dir: string, calls: unknown[]): Promise<string> {
  const path = join(dir, "script.jsonl");
  await writeFile(
    path,
    `${JSON.stringify({ tool_calls: calls })}\n${JSON.stringify({ text: "done" })}\n`,
  );
  return path;
}

async function agent(ws: string, home: string, mode: string, fake: string) {
  const env = baseEnv(home, { CHATCLI_MEMORY_ENABLED: "false" });
  const r = await runChatcli(
    [
      "agent",
      "do it",
      "-m",
      "mock:script",
      "--fake-responses",
      fake,
      "--json",
      "--ephemeral",
      "--permission-mode",
      mode,
    ],
    { env, cwd: ws },
  );
  const envelope = JSON.parse(r.stdout);
  // a run whose every command was denied is `blocked` (exit 6); one that ran something completes
  expect([envelope.terminal_reason, r.code]).toEqual(
    envelope.terminal_reason === "blocked" ? ["blocked", 6] : ["completed", 0],
  );
  return envelope;
}

describe("the shell judge learns issue 11's classes (spawned binary, no TTY)", () => {
  test("read-only: abbreviated options, readers that execute and new writers are not run", async () => {
    requireBinary();
    await using home = await tempDir();
    await using outside = await tempDir();
    const ws = join(home.path, "ws");
    await mkdir(ws);
    await repo(ws);
    const o = outside.path;
    const calls = [
      run("sed --e='1e touch pwned-sed' p f.txt"),
      run("sed --expr '1e touch pwned-sed2' f.txt"),
      run("sed --in-pl 's/dirty/x/' f.txt"),
      run(`sort --outp=${o}/sorted f.txt`),
      run("git grep --open-files-in-pag='touch pwned-pager' dirty"),
      run("less --lesskey-f=keys f.txt"),
      run("less -k keys f.txt"),
      run(`/usr/bin/tee ${o}/tee < f.txt`),
      run(`cp --target-directory=${o} f.txt`),
      run(`uniq f.txt ${o}/uniq`),
      run(`perl -pi -e 's/x/y/' ${o}/none`),
      run(`python3 -c 'open("${o}/py","w").write("1")'`),
      run(`git init -q ${o}/repo`),
      run(`zip -q ${o}/z.zip f.txt`),
      run(`git diff --output=${o}/diff`),
      run("python3 -c 'print(1)'"),
    ];
    const envelope = await agent(ws, home.path, "read-only", await script(home.path, calls));
    expect(envelope.permission_denials).toHaveLength(calls.length);
    expect(await readdir(o)).toEqual([]);
    for (const name of await readdir(ws)) expect(name).not.toStartWith("pwned");
    expect(await readFile(join(ws, "f.txt"), "utf8")).toBe("dirty\n");
  }, 60_000);

  test("auto: globbed rm, dangerous git forms and writes outside are denied without a TTY", async () => {
    requireBinary();
    await using home = await tempDir();
    await using outside = await tempDir();
    const ws = join(home.path, "ws");
    await mkdir(ws);
    await repo(ws);
    const o = outside.path;
    const calls = [
      run("/usr/bin/r[m] -rf victim"),
      run("/???/r? -rf victim"),
      run("/usr/bin/rm* -rf victim"),
      run("nice /bin/r? -rf victim"),
      run(`echo x | /usr/bin/tee -a ${o}/tee`),
      run(`cp -t ${o} f.txt`),
      run(`uniq f.txt ${o}/uniq`),
      run(`python3 -c 'open("${o}/py","w").write("1")'`),
      run(`sort --o ${o}/sorted f.txt`),
      run(`git init -q ${o}/repo`),
      run(`git diff --outp=${o}/diff`),
      run("git reset --har HEAD"),
      run("git clean --force -d"),
      run("git checkout -f main"),
      run("git stash drop"),
      run("git stash clear"),
      run("git push origin :main"),
    ];
    const envelope = await agent(ws, home.path, "auto", await script(home.path, calls));
    expect(envelope.permission_denials).toHaveLength(calls.length);
    expect(existsSync(join(ws, "victim", "keep.txt"))).toBe(true);
    expect(await readFile(join(ws, "f.txt"), "utf8")).toBe("dirty\n");
    const stashes = Bun.spawnSync(["git", "stash", "list"], { cwd: ws }).stdout.toString();
    expect(stashes).toContain("stash@{0}");
    expect(await readdir(o)).toEqual([]);
    const reasons = JSON.stringify(envelope.permission_denials);
    expect(reasons).toContain("glob or brace pattern");
    expect(reasons).toContain("git reset --hard");
    expect(reasons).toContain("git push :ref");
  }, 60_000);

  test("read-only: git in a repository committed inside the workspace (evil.git) is not a plain read", async () => {
    requireBinary();
    await using home = await tempDir();
    const ws = join(home.path, "ws");
    await mkdir(ws);
    await repo(ws);
    const evil = join(ws, "evil.git");
    Bun.spawnSync(["git", "init", "-q", "--bare", evil]);
    await writeFile(
      join(evil, "config"),
      "[core]\n\tbare = true\n\tfsmonitor = touch pwned-fsmonitor\n",
    );
    const calls = [
      run("git -C evil.git log"),
      run("git --git-dir=evil.git status"),
      run("cd evil.git && git log"),
    ];
    const envelope = await agent(ws, home.path, "read-only", await script(home.path, calls));
    expect(envelope.permission_denials).toHaveLength(calls.length);
    expect(JSON.stringify(envelope.permission_denials)).toContain("evil.git");
    for (const d of [ws, evil])
      for (const name of await readdir(d)) expect(name).not.toStartWith("pwned");
  }, 60_000);
});
