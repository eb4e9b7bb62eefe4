import { expect, test } from "bun:test";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createLiveServices } from "../../../lib/repl/live-services.ts";
import { tempDir, testCtx } from "../../support/ctx.ts";

/** A REPL session over mock:echo (it answers with the request it got) with a skill and logging hooks. */
async function session(extra: Record<string, string> = {}) {
  const home = await tempDir();
  const ws = join(home.path, "ws");
  const chatcliHome = join(home.path, ".chatcli");
  await mkdir(join(ws, ".git"), { recursive: true });
  await mkdir(join(chatcliHome, "skills", "release"), { recursive: true });
  await writeFile(
    join(chatcliHome, "skills", "release", "SKILL.md"),
    "---\nname: release\ndescription: How we cut a release\n---\nRELEASE-BODY: tag, then changelog.\n",
  );
  const log = join(home.path, "events.jsonl");
  await writeFile(
    join(chatcliHome, "hooks.json"),
    JSON.stringify({
      hooks: ["SessionStart", "UserPromptSubmit", "SessionEnd"].map((event) => ({
        name: `log-${event}`,
        event,
        type: "command",
        command: `cat >> ${log}; echo >> ${log}`,
      })),
    }),
  );
  const env = {
    HOME: home.path,
    CHATCLI_HOME: chatcliHome,
    CHATCLI_SESSION_AUTOSAVE: "false",
    CHATCLI_MEMORY_ENABLED: "false",
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    ...extra,
  };
  const services = await createLiveServices(testCtx({ cwd: ws, env }), { model: "mock:echo" });
  const events = async () =>
    (await readFile(log, "utf8").catch(() => ""))
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { type: string; userPrompt?: string });
  return { home, services, events };
}

const never = new AbortController().signal;

test("the REPL's hooks: SessionStart once, UserPromptSubmit per line (chat and /agent), SessionEnd at exit", async () => {
  const { home, services, events } = await session();
  await using _ = home;
  await services.sendTurn("hello", { onText: () => {} }, never);
  await services.sendTurn("again", { onText: () => {} }, never);
  await services.runAgent(
    "agent",
    "list the files",
    { onText: () => {}, onActivity: () => {}, approve: async () => false },
    never,
  );
  expect((await events()).map((e) => e.type)).toEqual([
    "SessionStart",
    "UserPromptSubmit",
    "UserPromptSubmit",
    "UserPromptSubmit",
  ]);
  expect((await events()).map((e) => e.userPrompt ?? null)).toEqual([
    null,
    "hello",
    "again",
    "list the files",
  ]);
  await services.close();
  expect((await events()).map((e) => e.type).at(-1)).toBe("SessionEnd");
});

test("/release in chat is the skill: its body reaches that turn's prompt; /agent gets the skills index", async () => {
  const { home, services } = await session();
  await using _ = home;
  expect(await services.skillNamed?.("release")).toBe(true);
  expect(await services.skillNamed?.("nosuch")).toBe(false);
  const plain: string[] = [];
  await services.sendTurn("what is new", { onText: (t) => void plain.push(t) }, never);
  expect(plain.join("")).not.toContain("RELEASE-BODY");
  const text: string[] = [];
  await services.sendTurn("/release 2.0", { onText: (t) => void text.push(t) }, never);
  expect(JSON.stringify(JSON.parse(text.join("")).system)).toContain("RELEASE-BODY");
  const agent: string[] = [];
  await services.runAgent(
    "agent",
    "check the tree",
    { onText: (t) => void agent.push(t), onActivity: () => {}, approve: async () => false },
    never,
  );
  const echoed = JSON.parse(agent.join("")) as { system: unknown; tools: string[] };
  expect(JSON.stringify(echoed.system)).toContain("release: How we cut a release");
  expect(echoed.tools).toContain("skill");
  await services.close();
});

test("a key the model repeats in chat is shown redacted, even split across deltas", async () => {
  const key = "sk-live-test-9f8e7d6c5b4a39281706";
  const { home, services } = await session({ OPENAI_API_KEY: key });
  await using _ = home;
  // mock:echo answers with the request: the user's line (with the key in it) comes back in pieces
  const shown: string[] = [];
  await services.sendTurn(`say ${key} back`, { onText: (t) => void shown.push(t) }, never);
  expect(shown.join("")).not.toContain(key);
  await services.close();
});
