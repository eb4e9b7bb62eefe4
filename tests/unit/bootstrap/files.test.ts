import { expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { BootstrapCache } from "../../../lib/bootstrap/cache.ts";
import { buildSystemContext } from "../../../lib/bootstrap/context.ts";
import { loadBootstrapFiles, renderBootstrap } from "../../../lib/bootstrap/files.ts";
import { tempDir } from "../../support/ctx.ts";
import { dirs, put } from "./helpers.ts";

function load(env: Record<string, string>, workspaceRoot: string) {
  return loadBootstrapFiles({ env, workspaceRoot, cache: new BootstrapCache() });
}

test("all five files in order; workspace wins per file, global fills the rest", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const ws = dirs(dir.path, "ws/.git").replace(/\/\.git$/, "");
  for (const name of ["AGENTS.md", "SOUL.md", "USER.md", "IDENTITY.md", "RULES.md"]) {
    put(home, `.chatcli/${name}`, `global ${name}\n`);
  }
  put(ws, "USER.md", "workspace user\n");
  put(ws, "RULES.md", "workspace rules\n");
  put(ws, "CLAUDE.md", "never loaded\n");
  put(ws, "soul.md", "wrong case: never loaded\n");
  const { files, warnings } = load({ HOME: home }, ws);
  expect(warnings).toEqual([]);
  expect(files.map((f) => [f.name, f.scope, f.content])).toEqual([
    ["AGENTS.md", "global", "global AGENTS.md\n"],
    ["SOUL.md", "global", "global SOUL.md\n"],
    ["USER.md", "workspace", "workspace user\n"],
    ["IDENTITY.md", "global", "global IDENTITY.md\n"],
    ["RULES.md", "workspace", "workspace rules\n"],
  ]);
  expect(files[2]?.path).toBe(join(ws, "USER.md"));
  expect(files[2]?.bytes).toBe(15);
  expect(files[2]?.truncated).toBe(false);
  expect(files[2]?.mtime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test("Go layout: `## NAME` + content (untrimmed), joined by ---; nothing → empty", () => {
  expect(
    renderBootstrap([
      { name: "AGENTS.md", content: "a\n" },
      { name: "USER.md", content: "u" },
    ]),
  ).toBe("## AGENTS.md\n\na\n\n\n---\n\n## USER.md\n\nu");
  expect(renderBootstrap([])).toBe("");
});

test("a blank workspace file shadows the global one and is dropped", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  put(home, ".chatcli/SOUL.md", "global soul\n");
  put(dir.path, "ws/SOUL.md", "  \n\n");
  const { files } = load({ HOME: home }, join(dir.path, "ws"));
  expect(files).toEqual([]);
});

test("CHATCLI_BOOTSTRAP_DIR replaces only the global dir; the workspace still wins", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  put(home, ".chatcli/SOUL.md", "home soul\n");
  put(home, ".chatcli/USER.md", "home user\n");
  const shared = join(dir.path, "shared");
  put(shared, "SOUL.md", "shared soul\n");
  put(shared, "RULES.md", "shared rules\n");
  put(dir.path, "ws/RULES.md", "ws rules\n");
  const { files } = load({ HOME: home, CHATCLI_BOOTSTRAP_DIR: shared }, join(dir.path, "ws"));
  expect(files.map((f) => [f.name, f.path])).toEqual([
    ["SOUL.md", join(shared, "SOUL.md")],
    ["RULES.md", join(dir.path, "ws/RULES.md")],
  ]);
});

test("CHATCLI_BOOTSTRAP_ENABLED=false turns files and rules off (only the exact string false)", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  put(home, ".chatcli/SOUL.md", "soul\n");
  put(home, ".chatcli/rules/r.md", "a rule\n");
  const base = { cwd: dir.path, now: new Date(0), mode: "ask" as const, corePrompt: "core" };
  const off = await buildSystemContext({
    ...base,
    env: { HOME: home, CHATCLI_BOOTSTRAP_ENABLED: "false" },
  });
  expect(off.bootstrapEnabled).toBe(false);
  expect(off.files).toEqual([]);
  expect(off.rules).toEqual([]);
  expect(off.blocks.map((b) => b.id)).toEqual(["core", "dynamic"]);
  const on = await buildSystemContext({
    ...base,
    env: { HOME: home, CHATCLI_BOOTSTRAP_ENABLED: "0" },
    touchedPaths: ["src/app.ts"], // rules come with a turn that names a path (Go §1.6)
  });
  expect(on.blocks.map((b) => b.id)).toEqual(["core", "bootstrap", "rules", "dynamic"]);
});

test("per-file cap: cut on a UTF-8 boundary, marked, with a bootstrap_truncated warning", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  put(ws, "RULES.md", `${"é".repeat(10)}tail`);
  const { files, warnings } = load({ HOME: dir.path, CHATCLI_BOOTSTRAP_MAX_BYTES: "7" }, ws);
  expect(files[0]?.truncated).toBe(true);
  expect(files[0]?.bytes).toBe(24);
  expect(files[0]?.content).toBe("ééé\n\n[truncated by chatcli: first 7 of 24 bytes]");
  expect(warnings).toHaveLength(1);
  expect(warnings[0]?.code).toBe("bootstrap_truncated");
  expect(warnings[0]?.message).toContain(join(ws, "RULES.md"));
});

test("default cap is 32 KiB", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  put(ws, "AGENTS.md", "x".repeat(32 * 1024));
  put(ws, "SOUL.md", "y".repeat(32 * 1024 + 1));
  const { files, warnings } = load({ HOME: dir.path }, ws);
  expect(files.map((f) => f.truncated)).toEqual([false, true]);
  expect(warnings.map((w) => w.code)).toEqual(["bootstrap_truncated"]);
});

test("an unreadable file is a warning, not a crash, and the global copy is used", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  put(home, ".chatcli/AGENTS.md", "global agents\n");
  mkdirSync(join(dir.path, "ws/AGENTS.md"), { recursive: true });
  const { files, warnings } = load({ HOME: home }, join(dir.path, "ws"));
  expect(files.map((f) => f.scope)).toEqual(["global"]);
  expect(warnings.map((w) => w.code)).toEqual(["bootstrap_unreadable"]);
});
