// commands/fast.ts against the commander path (commands/cli.ts): the same stdout, stderr, exit code
// and files for every form it takes, and undefined (commander decides) for every other form.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../../../commands/cli.ts";
import { fastCli } from "../../../commands/fast.ts";
import { compactForm } from "../../../commands/fast-compact.ts";
import { factToJson } from "../../../lib/memory/facts.ts";
import { openMemory, writeStoreJson } from "../../../lib/memory/store.ts";
import { generateFacts } from "../../../scripts/bench-memory.ts";
import { CASE_ENV, compactCases } from "../../support/compact-cases.ts";
import { tempDir, testCtx } from "../../support/ctx.ts";

const NOW = new Date("2026-08-02T09:00:00Z");

/** A home with bootstrap files, rules and a memory store; a workspace two levels above cwd. */
async function layout(root: string, facts: number) {
  const home = join(root, "home");
  const chatcli = join(home, ".chatcli");
  const ws = join(root, "ws");
  const cwd = join(ws, "src", "pkg");
  for (const d of [join(chatcli, "rules"), join(ws, ".git"), join(ws, ".chatcli", "rules"), cwd]) {
    mkdirSync(d, { recursive: true });
  }
  writeFileSync(join(chatcli, "SOUL.md"), "# Soul\nBe exact.\n\u001b[31mred\u001b[0m\n");
  writeFileSync(join(ws, "AGENTS.md"), "# Agents\nRun the tests.\n");
  writeFileSync(join(chatcli, "rules", "go.md"), '---\npaths: ["*.go"]\n---\n\nGo rule.\n');
  writeFileSync(join(ws, ".chatcli", "rules", "all.md"), "Always.\n");
  const env = { HOME: home, CHATCLI_HOME: chatcli, CHATCLI_MEMORY_MAX_FACTS: "2000" };
  if (facts > 0) {
    const list = generateFacts(facts).map(factToJson);
    await writeStoreJson(openMemory({ env }), "memory_index.json", list);
  }
  return { env, cwd, root };
}

/** Both paths on their own copy of the layout (a run may write: quarantine, access counts). */
async function both(
  argv: string[],
  setup: (root: string) => Promise<{ env: Record<string, string>; cwd: string }>,
  stdin?: string,
) {
  await using a = await tempDir();
  await using b = await tempDir();
  const fa = await setup(a.path);
  const fb = await setup(b.path);
  const fast = testCtx({ env: fa.env, cwd: fa.cwd, now: () => NOW, stdin });
  const slow = testCtx({ env: fb.env, cwd: fb.cwd, now: () => NOW, stdin });
  const fastCode = await fastCli(argv, fast);
  const slowCode = await runCli(argv, slow);
  const norm = (text: string, root: string) => text.replaceAll(root, "<root>");
  const files = (root: string) =>
    readdirSync(root, { recursive: true })
      .map(String)
      .sort()
      .filter((f) => !f.endsWith(".lock"));
  return {
    fast: {
      code: fastCode,
      out: norm(fast.out(), a.path),
      err: norm(fast.err(), a.path),
      files: files(a.path),
    },
    slow: {
      code: slowCode,
      out: norm(slow.out(), b.path),
      err: norm(slow.err(), b.path),
      files: files(b.path),
    },
  };
}

describe("the fast dispatch prints what commander's path prints", () => {
  const cases: Array<[string, string[], number]> = [
    ["bootstrap show", ["bootstrap", "show"], 0],
    ["bootstrap show with words (path rules)", ["bootstrap", "show", "fix", "main.go", "now"], 0],
    ["memory facts --json, 500 facts", ["memory", "facts", "--json"], 500],
    ["memory facts (text)", ["memory", "facts"], 40],
    ["memory facts CATEGORY --json", ["memory", "facts", "project", "--json"], 60],
    ["memory facts --json CATEGORY", ["memory", "facts", "--json", "personal"], 60],
    ["memory facts, an unknown category", ["memory", "facts", "nosuch"], 20],
    ["memory facts, empty store", ["memory", "facts", "--json"], 0],
  ];
  for (const [name, argv, facts] of cases) {
    test(name, async () => {
      const r = await both(argv, (root) => layout(root, facts));
      expect(r.fast.code).toBe(r.slow.code);
      expect(r.fast).toEqual(r.slow);
      expect(r.fast.out.length).toBeGreaterThan(0);
    });
  }

  test("failures: a broken config.json, a corrupt fact store", async () => {
    const brokenConfig = async (root: string) => {
      const l = await layout(root, 5);
      writeFileSync(join(l.env.CHATCLI_HOME as string, "config.json"), "{ not json");
      return l;
    };
    for (const argv of [
      ["bootstrap", "show"],
      ["memory", "facts", "--json"],
      ["memory", "facts"],
    ]) {
      const r = await both(argv, brokenConfig);
      expect(r.fast).toEqual(r.slow);
      expect(r.fast.code).toBe(3); // config error
      expect(r.fast.err).toContain("config.json");
    }
    const corruptStore = async (root: string) => {
      const l = await layout(root, 0);
      mkdirSync(join(l.env.CHATCLI_HOME as string, "memory"), { recursive: true });
      writeFileSync(join(l.env.CHATCLI_HOME as string, "memory", "memory_index.json"), "[{oops");
      return l;
    };
    const r = await both(["memory", "facts", "--json"], corruptStore);
    expect(r.fast).toEqual(r.slow);
    expect(r.fast.err).not.toBe("");
  });

  test("warnings as commander prints them: a .env godotenv rejects, a secret in a warning", async () => {
    // memory facts names a .env it could not load (its variables are missing from the run)
    const badDotenv = async (root: string) => {
      const l = await layout(root, 5);
      writeFileSync(join(l.cwd, ".env"), 'A=1\nB="open\nC=3\n');
      return l;
    };
    for (const argv of [
      ["memory", "facts", "--json"],
      ["memory", "facts"],
      ["bootstrap", "show"],
    ]) {
      const r = await both(argv, badDotenv);
      expect(r.fast).toEqual(r.slow);
    }
    const factsWarn = await both(["memory", "facts", "--json"], badDotenv);
    expect(factsWarn.fast.err).toContain("no variable was loaded");
    // a workspace rule linked out of the workspace, into a directory named like a configured secret
    const secretInPath = async (root: string) => {
      const l = await layout(root, 0);
      const outside = join(root, "supersecretvalue1");
      mkdirSync(outside);
      writeFileSync(join(outside, "x.md"), "Outside.\n");
      symlinkSync(join(outside, "x.md"), join(root, "ws", ".chatcli", "rules", "linked.md"));
      return { ...l, env: { ...l.env, MY_API_TOKEN: "supersecretvalue1" } };
    };
    const r = await both(["bootstrap", "show", "main.go"], secretInPath);
    expect(r.slow.err).toContain("leads outside the workspace");
    expect(r.slow.err).not.toContain("supersecretvalue1");
    expect(r.fast).toEqual(r.slow);
  });

  test("every other form is left to commander", async () => {
    const ctx = testCtx({ env: {}, now: () => NOW });
    for (const argv of [
      [],
      ["--version"],
      ["--json", "memory", "facts"],
      ["bootstrap"],
      ["bootstrap", "show", "--json"],
      ["bootstrap", "show", "-m", "openai/x"],
      ["bootstrap", "show", "--help"],
      ["bootstrap", "show", "--", "x"],
      ["bootstrap", "show", "help"],
      ["bootstrap", "path"],
      ["memory"],
      ["memory", "facts", "--limit", "2"],
      ["memory", "facts", "a", "b"],
      ["memory", "facts", "--jsonl"],
      ["memory", "facts", "--json", "--json"],
      ["memory", "facts", "help"],
      ["memory", "fact"],
      ["memroy", "facts"],
    ]) {
      expect(await fastCli(argv, ctx)).toBeUndefined();
    }
    expect(ctx.out() + ctx.err()).toBe("");
  });
});

test("the fixtures are what they say (a store of 500 facts is read)", async () => {
  await using d = await tempDir();
  const l = await layout(d.path, 500);
  const ctx = testCtx({ env: l.env, cwd: l.cwd, now: () => NOW });
  expect(await fastCli(["memory", "facts", "--json"], ctx)).toBe(0);
  expect(JSON.parse(ctx.out())).toHaveLength(500);
  expect(
    readFileSync(join(l.env.CHATCLI_HOME, "memory", "memory_index.json"), "utf8").length,
  ).toBeGreaterThan(1000);
});

describe("compact's plainest forms print what commander's path prints", () => {
  /** The layout above, a conversation in cwd (conv.json) and a configured secret. */
  const withConversation = (input: string) => async (root: string) => {
    const l = await layout(root, 0);
    writeFileSync(join(l.cwd, "conv.json"), input);
    return { ...l, env: { ...l.env, ...CASE_ENV } };
  };
  const forms: string[][] = [
    ["compact", "--level", "1", "--no-llm", "conv.json"],
    ["compact", "--level", "1", "conv.json"],
    ["compact", "--no-llm", "conv.json", "--level", "1"],
    ["compact", "conv.json", "--level", "3", "--no-llm"],
    ["compact", "--no-llm", "conv.json"],
  ];
  for (const [name, input] of Object.entries(compactCases())) {
    test(name, async () => {
      for (const argv of forms) {
        const r = await both(argv, withConversation(input));
        expect({ argv, ...r.fast }).toEqual({ argv, ...r.slow });
      }
      for (const argv of [
        ["compact", "--level", "1", "-"],
        ["compact", "--no-llm", "--level", "1"],
      ]) {
        const r = await both(argv, withConversation("[]"), input);
        expect({ argv, ...r.fast }).toEqual({ argv, ...r.slow });
        expect(r.fast.out.length).toBeGreaterThan(0);
      }
    });
  }

  test("failures: no such file, malformed JSON, a broken config.json, over the budget, no stdin", async () => {
    const brokenConfig = async (root: string) => {
      const l = await withConversation("[]")(root);
      writeFileSync(join(l.env.CHATCLI_HOME as string, "config.json"), "{ not json");
      return l;
    };
    // a system prompt over the default budget: never cut, so level 3 cannot fit it
    const big = JSON.stringify([
      { role: "system", content: "x ".repeat(200_000) },
      { role: "user", content: "hi" },
    ]);
    const cases: Array<
      [string[], (root: string) => Promise<{ env: Record<string, string>; cwd: string }>, number]
    > = [
      [["compact", "--level", "1", "nosuch.json"], withConversation("[]"), 2],
      [["compact", "--level", "1", "conv.json"], withConversation('[{"role": "user",'), 2],
      [["compact", "--level", "1", "conv.json"], withConversation("{}"), 2],
      [["compact", "--level", "1", "--no-llm", "conv.json"], brokenConfig, 3],
      [["compact", "--level", "3", "--no-llm", "conv.json"], withConversation(big), 8],
      [["compact", "--level", "1", "conv.json"], withConversation(big), 0],
      [["compact", "--level", "1"], withConversation("[]"), 2],
    ];
    for (const [argv, setup, code] of cases) {
      const r = await both(argv, setup);
      expect({ argv, ...r.fast }).toEqual({ argv, ...r.slow });
      expect({ argv, code: r.fast.code }).toEqual({ argv, code });
      expect(r.fast.err).not.toBe("");
    }
  });

  test("every other compact form is left to commander", async () => {
    const ctx = testCtx({ env: {}, now: () => NOW });
    for (const argv of [
      ["compact"],
      ["compact", "f.json"],
      ["compact", "--level", "2", "f.json"],
      ["compact", "--level", "2", "--no-llm", "f.json"],
      ["compact", "--level", "3", "f.json"],
      ["compact", "--level=1", "f.json"],
      ["compact", "--level", "1", "--json", "f.json"],
      ["compact", "--level", "1", "--jsonl", "f.json"],
      ["compact", "--level", "1", "--output-format", "text", "f.json"],
      ["compact", "--level", "1", "--budget", "100", "f.json"],
      ["compact", "--level", "1", "-m", "openai/x", "f.json"],
      ["compact", "--level", "1", "--session", "s"],
      ["compact", "--level", "1", "a.json", "b.json"],
      ["compact", "--level", "1", "-", "f.json"],
      ["compact", "--level", "1", "--level", "1", "f.json"],
      ["compact", "--no-llm", "--no-llm", "--level", "1", "f.json"],
      ["compact", "--level", "1", "--", "f.json"],
      ["compact", "--level", "1", "help"],
      ["compact", "--level", "1", ""],
      ["compact", "--level", "1", "-x"],
      ["compact", "--level", "1", "--help"],
      ["compact", "--level"],
      ["compact", "--level", "--no-llm", "f.json"],
      ["--json", "compact", "--level", "1", "f.json"],
      ["help", "compact"],
      ["compcat", "--level", "1", "f.json"],
    ]) {
      expect({ argv, fast: await fastCli(argv, ctx) }).toEqual({ argv, fast: undefined });
    }
    expect(ctx.out() + ctx.err()).toBe("");
    // the flags commander gives runCompact for the forms taken
    expect(compactForm(["--no-llm", "x.json"])).toEqual({ level: "3", llm: false, file: "x.json" });
    expect(compactForm(["--level", "1"])).toEqual({ level: "1", llm: true, file: undefined });
    expect(compactForm(["-", "--level", "1"])).toEqual({ level: "1", llm: true, file: "-" });
  });
});
