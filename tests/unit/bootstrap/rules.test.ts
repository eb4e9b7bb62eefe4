import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BootstrapCache } from "../../../lib/bootstrap/cache.ts";
import {
  extractPathHints,
  loadRules,
  matchGlob,
  parseRule,
  pathCandidates,
  renderRules,
  ruleApplies,
} from "../../../lib/bootstrap/rules.ts";
import { tempDir } from "../../support/ctx.ts";
import { dirs, put } from "./helpers.ts";

describe("matchGlob (Go's TestMatchesAnyPath table and more)", () => {
  const rows: Array<[string, string, boolean]> = [
    ["*.go", "main.go", true],
    ["*.go", "readme.md", false],
    ["src/**", "src/main.go", true],
    ["src/**", "lib/main.go", false],
    ["*.ts", "index.ts", true],
    ["*.ts", "other.go", false],
    ["*.go", "cmd/tool/main.go", true],
    ["src/**", "src/a/b/c.ts", true],
    ["src/**/*.test.ts", "src/x/y.test.ts", true],
    ["src/*.ts", "src/x/y.ts", false],
    ["*.{ts,tsx}", "app/view.tsx", true],
    ["./docs/*.md", "docs/intro.md", true],
    ["README.md", "README.md", true],
  ];
  for (const [glob, path, want] of rows) {
    test(`${glob} ~ ${path} → ${want}`, () => expect(matchGlob(glob, path)).toBe(want));
  }
  test("a rule applies when any glob matches any touched path", () => {
    expect(ruleApplies({ paths: ["*.ts"] }, ["index.ts", "other.go"])).toBe(true);
    expect(ruleApplies({ paths: ["*.ts"] }, ["other.go"])).toBe(false);
    expect(ruleApplies({ paths: [] }, ["index.ts"])).toBe(true);
    // a turn that names no path gets no rules at all, as the Go tool (reference §1.6)
    expect(ruleApplies({ paths: [] }, [])).toBe(false);
  });
});

describe("front matter", () => {
  test("inline list (Go shape), quotes stripped", async () => {
    const r = await parseRule(`---\npaths: ["*.go", 'cmd/**', src/x.ts]\n---\n\nBody.\n`);
    expect(r).toEqual({ paths: ["*.go", "cmd/**", "src/x.ts"], body: "Body." });
  });
  test("block list with comments", async () => {
    const r = await parseRule(`---\n# which files\npaths:\n  - "*.go"\n  - src/**\n---\nBody`);
    expect(r.paths).toEqual(["*.go", "src/**"]);
  });
  test("other keys go through the YAML parser", async () => {
    const r = await parseRule(
      `---\ndescription: Go style\npaths:\n  - "*.go"\ntags: {a: 1}\n---\nBody`,
    );
    expect(r).toEqual({ paths: ["*.go"], body: "Body" });
    const single = await parseRule(`---\ntitle: x\npaths: "*.md"\n---\nB`);
    expect(single.paths).toEqual(["*.md"]);
  });
  test("invalid YAML: a warning, and the Go line parser's reading", async () => {
    const r = await parseRule(`---\ntitle: [unclosed\npaths: ["*.go"]\n---\nB`);
    expect(r.paths).toEqual(["*.go"]);
    expect(r.warning).toContain("not valid YAML");
  });
  test("no front matter, or no closing ---: the whole file is the body; no paths", async () => {
    // untrimmed, as Go keeps it (leading blank lines, indentation, CRLF, the final newline)
    expect(await parseRule("Just a rule.\n")).toEqual({ paths: [], body: "Just a rule.\n" });
    expect(await parseRule("\n\n  indented\r\nrule\r\n\n")).toEqual({
      paths: [],
      body: "\n\n  indented\r\nrule\r\n\n",
    });
    expect(await parseRule(" \n\t\n")).toEqual({ paths: [], body: " \n\t\n" });
    expect(await parseRule("---\npaths: [x]\nno end")).toEqual({
      paths: [],
      body: "---\npaths: [x]\nno end",
    });
  });
});

describe("loading", () => {
  async function layout() {
    const dir = await tempDir();
    const globalDir = join(dir.path, "home/.chatcli");
    const ws = join(dir.path, "ws");
    put(globalDir, "rules/go-style.md", '---\npaths: ["*.go"]\n---\nglobal go style\n');
    put(globalDir, "rules/always.md", "always on\n");
    put(globalDir, "rules/notes.txt", "not a rule\n");
    dirs(globalDir, "rules/sub.md");
    put(
      ws,
      ".chatcli/rules/go-style.md",
      '---\npaths: ["*.go", "cmd/**"]\n---\nworkspace go style\n',
    );
    put(ws, ".chatcli/rules/empty.md", '---\npaths: ["*.x"]\n---\n   \n');
    put(ws, ".chatcli/rules/ts.md", '---\npaths:\n  - "src/**/*.ts"\n---\nts rule\n');
    return { dir, globalDir, ws };
  }

  test("workspace replaces global by file name; non-.md, dirs and blank bodies are ignored", async () => {
    const { dir, globalDir, ws } = await layout();
    await using _ = dir;
    const { rules, warnings } = await loadRules({
      globalDir,
      workspaceRoot: ws,
      cache: new BootstrapCache(),
      maxBytes: 32768,
    });
    expect(warnings).toEqual([]);
    expect(rules.map((r) => [r.name, r.scope, r.paths, r.body])).toEqual([
      ["always", "global", [], "always on\n"],
      ["go-style", "workspace", ["*.go", "cmd/**"], "workspace go style"],
      ["ts", "workspace", ["src/**/*.ts"], "ts rule"],
    ]);
  });

  test("<workspace>/rules/ is read only when the workspace has no .chatcli dir (Go compatibility)", async () => {
    await using dir = await tempDir();
    const globalDir = join(dir.path, "g");
    const ws = join(dir.path, "ws");
    put(ws, "rules/legacy.md", "legacy rule\n");
    const cache = new BootstrapCache();
    const first = await loadRules({ globalDir, workspaceRoot: ws, cache, maxBytes: 32768 });
    expect(first.rules.map((r) => r.name)).toEqual(["legacy"]);
    dirs(ws, ".chatcli");
    const second = await loadRules({ globalDir, workspaceRoot: ws, cache, maxBytes: 32768 });
    expect(second.rules).toEqual([]);
  });

  test("touched paths select rules: relative, absolute and cwd-relative forms", async () => {
    const { dir, globalDir, ws } = await layout();
    await using _ = dir;
    const { rules } = await loadRules({
      globalDir,
      workspaceRoot: ws,
      cache: new BootstrapCache(),
      maxBytes: 32768,
    });
    const applied = (touched: string[], cwd = ws) =>
      rules.filter((r) => ruleApplies(r, pathCandidates(touched, cwd, ws))).map((r) => r.name);
    expect(applied([])).toEqual([]); // no path named: no rules at all (Go §1.6)
    expect(applied(["main.go"])).toEqual(["always", "go-style"]);
    expect(applied([join(ws, "src/app/x.ts")])).toEqual(["always", "ts"]);
    expect(applied(["app/x.ts"], join(ws, "src"))).toEqual(["always", "ts"]);
    expect(applied(["README.md"])).toEqual(["always"]);
    expect(applied(["/elsewhere/tool/main.go"])).toEqual(["always", "go-style"]);
    expect(applied(["/elsewhere/src/app/x.ts"])).toEqual(["always"]);
  });

  test("Go output layout: ## Path-Specific Rules, ### Rule: name (paths: …), joined by ---", () => {
    const text = renderRules([
      { name: "always", scope: "global", path: "/g/always.md", paths: [], body: "A" },
      {
        name: "go-style",
        scope: "workspace",
        path: "/w/go-style.md",
        paths: ["*.go", "cmd/**"],
        body: "B",
      },
    ]);
    expect(text).toBe(
      "## Path-Specific Rules\n\n### Rule: always\n\nA\n\n---\n\n### Rule: go-style (paths: *.go, cmd/**)\n\nB",
    );
    expect(renderRules([])).toBe("");
  });
});

test("path hints from a prompt", () => {
  expect(extractPathHints("fix `src/app.ts` and main.go, see https://x.io/a. Thanks.")).toEqual([
    "src/app.ts",
    "main.go",
  ]);
});
