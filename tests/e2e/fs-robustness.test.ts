import { beforeAll, expect, test } from "bun:test";
import { mkdir, readdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { lockHost } from "../../lib/core/fs.ts";
import { baseEnv, requireBinary, runChatcli, spawnChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

test("a session lock left by a killed process does not block the next run", async () => {
  await using home = await tempDir();
  const env = baseEnv(home.path);
  const sessions = join(home.path, ".chatcli", "sessions");
  await mkdir(sessions, { recursive: true });
  const killed = Bun.spawn(["sleep", "30"]);
  killed.kill("SIGKILL");
  await killed.exited;
  await writeFile(join(sessions, "s1.json.lock"), `${killed.pid}\n${lockHost()}\n`);
  const started = Date.now();
  const r = await runChatcli(["ask", "-m", "mock:echo", "--session", "s1", "hi"], { env });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(Date.now() - started).toBeLessThan(10_000); // the old waiter gave up after 15 s
  expect(await readdir(sessions)).not.toContain("s1.json.lock");
  expect(await readFile(join(sessions, "s1.json"), "utf8")).toContain('"content": "hi"');
});

test("a session file symlinked into another directory stays a symlink and gets the new turn", async () => {
  await using home = await tempDir();
  const env = baseEnv(home.path);
  const sessions = join(home.path, ".chatcli", "sessions");
  expect(
    (await runChatcli(["ask", "-m", "mock:echo", "--session", "s1", "one"], { env })).code,
  ).toBe(0);
  await mkdir(join(home.path, "dotfiles"));
  await rename(join(sessions, "s1.json"), join(home.path, "dotfiles", "s1.json"));
  await symlink(join(home.path, "dotfiles", "s1.json"), join(sessions, "s1.json"));
  const r = await runChatcli(["ask", "-m", "mock:echo", "--session", "s1", "two"], { env });
  expect(r.code).toBe(0);
  const kept = await readFile(join(home.path, "dotfiles", "s1.json"), "utf8");
  expect(kept).toContain('"content": "one"');
  expect(kept).toContain('"content": "two"');
  expect((await readdir(sessions)).filter((f) => f.endsWith(".json"))).toEqual(["s1.json"]);
  expect(await readdir(join(home.path, "dotfiles"))).toEqual(["s1.json"]);
});

test("a directory where the session file should be: two lines on stderr, exit 1, no stack trace", async () => {
  await using home = await tempDir();
  const env = baseEnv(home.path);
  const session = join(home.path, ".chatcli", "sessions", "s1.json");
  await mkdir(session, { recursive: true });
  const r = await runChatcli(["ask", "-m", "mock:echo", "--session", "s1", "hi"], { env });
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  expect(r.stderr).toBe(
    `chatcli: EISDIR: illegal operation on a directory, read '${session}'\n` +
      "hint: a directory stands where a file is expected: move it aside\n",
  );
});

test("two `ask --session ci` running at once: the session keeps both questions and answers", async () => {
  await using llm = await startMockLlm();
  await using home = await tempDir();
  const env = baseEnv(home.path, llm.env("openai"));
  llm.push({ text: "answer A", delay_ms: 400 }, { text: "answer B" });
  const a = spawnChatcli(["ask", "--session", "ci", "question A"], { env, cwd: home.path });
  await llm.waitForHits(1); // A has read the session and is waiting for its answer
  const b = await runChatcli(["ask", "--session", "ci", "question B"], { env, cwd: home.path });
  const done = await a.done;
  expect([done.code, b.code]).toEqual([0, 0]);
  const saved = JSON.parse(
    await readFile(join(home.path, ".chatcli", "sessions", "ci.json"), "utf8"),
  );
  const contents: string[] = saved.chat_history.map((m: { content: string }) => m.content);
  // B normally saves first (A's answer is delayed); either order keeps both turns whole.
  expect([...contents].sort()).toEqual(["answer A", "answer B", "question A", "question B"]);
  expect(contents.indexOf("answer A")).toBe(contents.indexOf("question A") + 1);
  expect(contents.indexOf("answer B")).toBe(contents.indexOf("question B") + 1);
});
