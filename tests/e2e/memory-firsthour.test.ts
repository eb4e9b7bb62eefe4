/**
 * The first hour of a new memory user (issue 25), through the built binary: what the help and the
 * completions offer runs, bad input fails with one line and exit 2, and the envelope tells a script
 * whether memory was written.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { chatTerm, PROMPT_READY, submit, tmuxTest } from "./chat-term.ts";

beforeAll(() => {
  requireBinary();
});

const memDir = (home: string) => join(home, ".chatcli", "memory");
const files = async (dir: string) =>
  (await readdir(dir, { recursive: true }).catch(() => [] as string[])).sort();

describe("memory: the first hour", () => {
  test("every memory subcommand bash completes (lt included) runs; `memory lt` is `memory longterm`", async () => {
    await using home = await tempDir();
    const env = baseEnv(home.path);
    await runChatcli(["memory", "remember", "Deploys go through ArgoCD"], { env });
    const lt = await runChatcli(["memory", "lt"], { env });
    const longterm = await runChatcli(["memory", "longterm"], { env });
    expect([lt.code, lt.stderr]).toEqual([0, ""]);
    expect(lt.stdout).toBe(longterm.stdout);
    expect(lt.stdout).toContain("- Deploys go through ArgoCD");
    const script = join(home.path, "c.bash");
    await writeFile(script, (await runChatcli(["completion", "bash"], { env })).stdout);
    const probe = Bun.spawnSync(
      [
        "bash",
        "--norc",
        "-c",
        `source ${script}; COMP_WORDS=(chatcli memory ''); COMP_CWORD=2; COMPREPLY=(); _chatcli; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      { env, stdin: "ignore" },
    );
    const offered = probe.stdout.toString().trim().split("\n");
    expect(offered).toContain("lt");
    for (const sub of offered) {
      const r = await runChatcli(["memory", sub, "--help"], { env });
      expect([sub, r.code]).toEqual([sub, 0]);
    }
  });

  test("import of something that is not an export: exit 2 bad_input, one line, nothing written", async () => {
    await using home = await tempDir();
    const env = baseEnv(home.path);
    for (const input of [
      '{"bad":1}',
      '{"facts":{"a":1}}',
      '{"format":"other","facts":[]}',
      "[1]",
    ]) {
      const r = await runChatcli(["memory", "import"], { env, stdin: input });
      expect([input, r.code, r.stdout]).toEqual([input, 2, ""]);
      expect(r.stderr).toMatch(/^chatcli: import: .+\nhint: .+\n$/);
      const json = await runChatcli(["memory", "import", "--json"], { env, stdin: input });
      expect(JSON.parse(json.stdout).error.code).toBe("bad_input");
    }
    expect(await files(memDir(home.path))).toEqual([]);
  });

  test("forget with no match exits 2 with one clear line (as `sessions rm nosuch`); facts show ids", async () => {
    await using home = await tempDir();
    const env = baseEnv(home.path);
    await runChatcli(["memory", "remember", "User prefers tabs over spaces"], { env });
    const none = await runChatcli(["memory", "forget", "zzz"], { env });
    expect([none.code, none.stdout]).toEqual([2, ""]);
    expect(none.stderr).toBe(
      'chatcli: forget: no fact matches "zzz"\nhint: list the facts and their ids with: chatcli memory facts\n',
    );
    const session = await runChatcli(["sessions", "rm", "nosuch"], { env });
    expect(session.code).toBe(none.code);
    const facts = await runChatcli(["memory", "facts"], { env });
    const id = /id ([0-9a-f]{24})\)/.exec(facts.stdout)?.[1];
    expect(id).toBeDefined();
    const gone = await runChatcli(["memory", "forget", id as string], { env });
    expect([gone.code, gone.stdout]).toEqual([
      0,
      `Removed 1 fact(s):\n  - [preference] User prefers tabs over spaces (id ${id})\n`,
    ]);
  });

  test("profile set: languages_add=go adds a skill, unknown keys are refused, help lists the keys", async () => {
    await using home = await tempDir();
    const env = baseEnv(home.path);
    const set = await runChatcli(["memory", "profile", "set", "languages_add=go"], { env });
    expect([set.code, set.stdout]).toEqual([0, "Profile field 'skills' updated.\n"]);
    const profileFile = join(memDir(home.path), "user_profile.json");
    const before = await readFile(profileFile, "utf8");
    expect(JSON.parse(before)).toMatchObject({ skills: ["go"] });
    expect(JSON.parse(before).preferences).toBeUndefined();
    const bogus = await runChatcli(["memory", "profile", "set", "name=Ana", "bogus=1"], { env });
    expect([bogus.code, bogus.stdout]).toEqual([2, ""]);
    expect(bogus.stderr).toStartWith('chatcli: unknown profile key "bogus"\n');
    const typo = await runChatcli(["memory", "profile", "set", "skils=rust"], { env });
    expect(typo.stderr).toContain("did you mean skills?");
    expect(await readFile(profileFile, "utf8")).toBe(before);
    const pref = await runChatcli(["memory", "profile", "set", "pref:github=ana"], { env });
    expect(pref.code).toBe(0);
    expect(JSON.parse(await readFile(profileFile, "utf8")).preferences).toEqual({ github: "ana" });
    const help = await runChatcli(["memory", "profile", "set", "--help"], { env });
    for (const key of ["preferred_language", "skills", "goals_done", "env_<name>", "pref:<name>"])
      expect(help.stdout).toContain(key);
  });

  test("the envelope says whether memory was written: memory.access off|read|write beside mode", async () => {
    await using home = await tempDir();
    const env = baseEnv(home.path);
    await runChatcli(["memory", "remember", "The staging cluster is in sa-east-1"], { env });
    const ask = async (args: string[], extra: Record<string, string> = {}) => {
      const r = await runChatcli(
        ["ask", "-m", "mock:echo", "--json", ...args, "where is staging?"],
        {
          env: { ...env, ...extra },
        },
      );
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout).memory;
    };
    const shape = (access: string) => ({
      mode: "full",
      access,
      facts_loaded: expect.any(Number),
      facts_written: 0,
    });
    expect(await ask(["--memory", "read"])).toEqual(shape("read"));
    expect(await ask([], { CI: "true" })).toEqual(shape("read"));
    expect(await ask(["--memory", "write"])).toEqual(shape("write"));
    expect(await ask(["--memory", "off"])).toEqual({ ...shape("off"), mode: "off" });
  });

  tmuxTest(
    "chat -m mock:echo: the echoed extraction prompt is dropped, never stored as a note",
    async () => {
      await using home = await tempDir();
      await using llm = await startMockLlm();
      await using t = chatTerm(home.path, llm, {
        args: ["-m", "mock:echo"],
        env: { CHATCLI_MEMORY_ENABLED: "true" },
        height: 60,
      });
      await t.waitForText(PROMPT_READY);
      submit(t, "I always indent with tabs");
      await t.waitForText(/"I always indent with tabs"/);
      submit(t, "and I deploy on Fridays");
      await t.waitForText(/"and I deploy on Fridays"/);
      // 4 new messages: the worker extracts (mock:echo answers with its request) and says it dropped it
      const emptyPrompts = () => (t.capturePane().match(/^❯$/gm) ?? []).length;
      while (!/memory: extraction reply dropped/.test(t.capturePane())) {
        const n = emptyPrompts();
        expect(n).toBeLessThan(40);
        t.sendKeys("Enter");
        await t.waitForText(new RegExp(`(^❯$[\\s\\S]*){${n + 1}}`, "m"));
      }
      t.sendKeys("C-d");
      expect(await t.waitForExit()).toBe(0);
      const stored = await files(memDir(home.path));
      expect(stored.filter((f) => /\d{8}\.md$|memory_index\.json|episodes\.json/.test(f))).toEqual(
        [],
      );
    },
  );
});
