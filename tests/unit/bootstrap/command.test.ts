import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { run, tempDir } from "../../support/ctx.ts";
import { dirs, put } from "./helpers.ts";

async function fixture() {
  const dir = await tempDir();
  const home = join(dir.path, "home");
  const ws = join(dir.path, "ws");
  dirs(ws, ".git", "src");
  put(home, ".chatcli/SOUL.md", "Be terse.\n");
  put(ws, "RULES.md", "Run tests.\n");
  put(ws, ".chatcli/rules/go.md", '---\npaths: ["*.go"]\n---\nGo rule\n');
  put(ws, "src/main.go", "package main\n");
  return {
    dir,
    home,
    ws,
    opts: {
      env: { HOME: home },
      cwd: join(ws, "src"),
      now: () => new Date("2026-07-30T10:00:00Z"),
    },
  };
}

test("bootstrap show --json: workspace, files, rules, memory mode, attachments, blocks", async () => {
  const { dir, home, ws, opts } = await fixture();
  await using _ = dir;
  const r = await run(["bootstrap", "show", "--json", "-f", "main.go"], opts);
  expect(r.code).toBe(0);
  expect(r.err).toBe("");
  expect(r.out.endsWith("}\n")).toBe(true);
  expect(r.out.trimEnd().split("\n")).toHaveLength(1);
  const doc = JSON.parse(r.out);
  expect(Object.keys(doc)).toEqual([
    "workspace_root",
    "cwd",
    "global_dir",
    "mode",
    "bootstrap_enabled",
    "files",
    "rules",
    "memory_mode",
    "attachments",
    "blocks",
    "tokens_estimate",
    "model",
    "warnings",
  ]);
  expect(doc.workspace_root).toBe(ws);
  expect(doc.global_dir).toBe(join(home, ".chatcli"));
  expect(doc.mode).toBe("ask");
  expect(doc.memory_mode).toBe("full");
  expect(doc.files).toEqual([
    {
      name: "SOUL.md",
      path: join(home, ".chatcli/SOUL.md"),
      scope: "global",
      bytes: 10,
      mtime: expect.stringMatching(/Z$/),
      truncated: false,
    },
    {
      name: "RULES.md",
      path: join(ws, "RULES.md"),
      scope: "workspace",
      bytes: 11,
      mtime: expect.any(String),
      truncated: false,
    },
  ]);
  expect(doc.rules).toEqual([
    {
      name: "go",
      scope: "workspace",
      path: join(ws, ".chatcli/rules/go.md"),
      paths: ["*.go"],
      applies: true,
    },
  ]);
  expect(doc.attachments).toEqual([
    { name: "main.go", path: join(ws, "src/main.go"), bytes: 13, tokens_estimate: 4 },
  ]);
  expect(doc.blocks.map((b: { id: string; cache: boolean }) => [b.id, b.cache])).toEqual([
    ["core", true],
    ["bootstrap", true],
    ["attachments", true],
    ["rules", false],
    ["dynamic", false],
  ]);
  const core = doc.blocks[0];
  expect(core.chars).toBe(core.text.length);
  expect(core.tokens_estimate).toBe(Math.ceil(core.text.length / 4));
  expect(doc.tokens_estimate.total).toBe(doc.tokens_estimate.stable + doc.tokens_estimate.volatile);
  expect(doc.warnings).toEqual([]);
});

test("bootstrap show (text): stdout is exactly the system text; block headers go to stderr", async () => {
  const { dir, opts } = await fixture();
  await using _ = dir;
  const json = JSON.parse(
    (await run(["bootstrap", "show", "--json", "--mode", "agent", "main.go"], opts)).out,
  );
  const r = await run(["bootstrap", "show", "--mode", "agent", "main.go"], opts);
  expect(r.code).toBe(0);
  expect(r.out).toBe(`${json.blocks.map((b: { text: string }) => b.text).join("\n\n")}\n`);
  expect(r.out).toContain("### Rule: go (paths: *.go)");
  expect(json.memory_mode).toBe("index");
  expect(r.err.split("\n").filter(Boolean)).toEqual([
    expect.stringMatching(/^── 1\/4 core \(cached, ~\d+ tokens\) ──$/),
    expect.stringMatching(/^── 2\/4 bootstrap \(cached/),
    expect.stringMatching(/^── 3\/4 rules \(volatile/),
    expect.stringMatching(/^── 4\/4 dynamic \(volatile/),
  ]);
});

test("--bare and --no-bootstrap leave the files out; memory mode off", async () => {
  const { dir, opts } = await fixture();
  await using _ = dir;
  for (const flag of ["--bare", "--no-bootstrap"]) {
    const doc = JSON.parse((await run(["bootstrap", "show", "--json", flag], opts)).out);
    expect(doc.files).toEqual([]);
    expect(doc.memory_mode).toBe("off");
    expect(doc.blocks.map((b: { id: string }) => b.id)).toEqual(["core", "dynamic"]);
  }
});

test("a binary -f file: exit 2; with --json an error envelope on stdout", async () => {
  const { dir, ws, opts } = await fixture();
  await using _ = dir;
  writeFileSync(join(ws, "src/blob.bin"), new Uint8Array([1, 0, 2]));
  const text = await run(["bootstrap", "show", "-f", "blob.bin"], opts);
  expect(text.code).toBe(2);
  expect(text.out).toBe("");
  expect(text.err).toBe(
    "chatcli: cannot attach blob.bin: it is a binary file; only text files can be attached\n",
  );
  const json = await run(["bootstrap", "show", "--json", "-f", "blob.bin"], opts);
  expect(json.code).toBe(2);
  const env = JSON.parse(json.out);
  expect(env).toMatchObject({
    type: "result",
    command: "bootstrap show",
    status: "error",
    is_error: true,
    exit_code: 2,
    terminal_reason: "bad_input",
    error: { code: "bad_input" },
  });
});

test("bootstrap path: directories searched, text and --json", async () => {
  const { dir, home, ws, opts } = await fixture();
  await using _ = dir;
  const text = await run(["bootstrap", "path"], opts);
  expect(text.code).toBe(0);
  expect(text.out).toBe(
    [
      `workspace\t${ws}`,
      `global\t${join(home, ".chatcli")}`,
      `rules\t${join(ws, ".chatcli/rules")}`,
      `rules\t${join(home, ".chatcli/rules")}`,
      "",
    ].join("\n"),
  );
  const doc = JSON.parse(
    (
      await run(["bootstrap", "path", "--json"], {
        ...opts,
        env: { ...opts.env, CHATCLI_BOOTSTRAP_DIR: "/srv/boot" },
      })
    ).out,
  );
  expect(doc).toEqual({
    workspace_root: ws,
    global_dir: "/srv/boot",
    bootstrap_enabled: true,
    file_names: ["AGENTS.md", "SOUL.md", "USER.md", "IDENTITY.md", "RULES.md"],
    bootstrap_dirs: [
      { dir: ws, scope: "workspace", exists: true },
      { dir: "/srv/boot", scope: "global", exists: false },
    ],
    rule_dirs: [
      { dir: join(ws, ".chatcli/rules"), scope: "workspace", exists: true },
      { dir: "/srv/boot/rules", scope: "global", exists: false },
    ],
  });
});

test("bootstrap show --help exits 0 and names the flags", async () => {
  const r = await run(["bootstrap", "show", "--help"]);
  expect(r.code).toBe(0);
  for (const flag of ["--mode", "--file", "--bare", "--json"]) expect(r.out).toContain(flag);
});

test("bootstrap show --json redacts secrets; the text output is the exact prompt", async () => {
  const { dir, ws, opts } = await fixture();
  await using _ = dir;
  const key = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
  put(ws, "USER.md", `my key is ${key}\n`);
  const json = await run(["bootstrap", "show", "--json"], opts);
  expect(json.out).not.toContain(key);
  expect(json.out).toContain("[REDACTED:openai_key]");
  const text = await run(["bootstrap", "show"], opts);
  expect(text.out).toContain(key);
});

test("bare `bootstrap` is `bootstrap show`", async () => {
  const { dir, opts } = await fixture();
  await using _ = dir;
  const bare = await run(["bootstrap", "--json"], opts);
  const show = await run(["bootstrap", "show", "--json"], opts);
  expect(bare.code).toBe(0);
  expect(JSON.parse(bare.out).blocks).toEqual(JSON.parse(show.out).blocks);
});
