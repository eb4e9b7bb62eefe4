import { expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  eventJson,
  fireHooks,
  type HookConfig,
  loadHooks,
  toolPatternMatches,
} from "../../../lib/extensions/hooks/hooks.ts";
import { tempDir } from "../../support/ctx.ts";

test("Go's toolPattern: *, prefix*, exact name any case", () => {
  expect(toolPatternMatches("*", "x")).toBe(true);
  expect(toolPatternMatches("mcp_*", "mcp__gh__list")).toBe(true);
  expect(toolPatternMatches("RUN_COMMAND", "run_command")).toBe(true);
  expect(toolPatternMatches("run_command", "run_tests")).toBe(false);
});

test("the event JSON has Go's fields (omitempty, toolArgs a JSON string)", () => {
  const json = JSON.parse(
    eventJson({
      type: "PreToolUse",
      timestamp: "2026-11-29T20:00:00.000Z",
      sessionId: null,
      workingDir: "/w",
      toolName: "run_command",
      toolArgs: { cmd: "ls" },
    }),
  );
  expect(json).toEqual({
    type: "PreToolUse",
    timestamp: "2026-11-29T20:00:00.000Z",
    toolName: "run_command",
    toolArgs: '{"cmd":"ls"}',
    workingDir: "/w",
  });
});

test("loading: bad entries are warnings; the workspace's file counts only when trusted", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const ws = join(dir.path, "ws");
  await mkdir(join(home, ".chatcli"), { recursive: true });
  await mkdir(join(ws, ".chatcli"), { recursive: true });
  await writeFile(
    join(home, ".chatcli", "hooks.json"),
    JSON.stringify({
      hooks: [
        { name: "ok", event: "SessionStart", type: "command", command: "true" },
        { name: "bad", event: "OnFire", type: "command", command: "x" },
        { name: "nourl", event: "SessionEnd", type: "http" },
      ],
    }),
  );
  await writeFile(
    join(ws, ".chatcli", "hooks.json"),
    JSON.stringify({
      hooks: [{ name: "w", event: "SessionEnd", type: "command", command: "true", timeout: 50 }],
    }),
  );
  const env = { HOME: home };
  const untrusted = await loadHooks(env, ws, false);
  expect(untrusted.hooks.map((h) => h.name)).toEqual(["ok"]);
  expect(untrusted.untrusted.map((h) => h.name)).toEqual(["w"]);
  expect(untrusted.warnings.map((w) => w.code)).toEqual([
    "hooks_config_invalid",
    "hooks_config_invalid",
    "untrusted_workspace_setting",
  ]);
  const trusted = await loadHooks(env, ws, true);
  expect(trusted.hooks.map((h) => [h.name, h.timeoutMs])).toEqual([
    ["ok", 10_000],
    ["w", 50],
  ]);
});

const hook = (over: Partial<HookConfig>): HookConfig => ({
  name: "h",
  event: "PreToolUse",
  type: "command",
  command: "true",
  timeoutMs: 5000,
  enabled: true,
  scope: "global",
  source: "/h",
  ...over,
});

test("firing: exit 2 blocks PreToolUse with stderr (and stops the rest), elsewhere it does not; other exits are warnings; secrets never reach the hook", async () => {
  await using dir = await tempDir();
  const out = join(dir.path, "seen.json");
  const runner = {
    env: { PATH: process.env["PATH"] ?? "/bin" },
    fetch,
    signal: new AbortController().signal,
    secrets: ["sk-secret-value"],
  };
  const event = {
    type: "PreToolUse" as const,
    timestamp: "t",
    sessionId: "s1",
    workingDir: dir.path,
    toolName: "run_command",
    toolArgs: { cmd: "echo sk-secret-value" },
  };
  const blocked = await fireHooks(
    [
      hook({ name: "spy", command: `cat > ${out}` }),
      hook({ name: "no", command: "echo '  not today  ' >&2; exit 2" }),
      hook({ name: "never", command: `touch ${join(dir.path, "never")}` }),
    ],
    event,
    runner,
  );
  expect(blocked).toMatchObject({ blocked: true, reason: "not today" });
  expect(blocked.ran.map((r) => [r.name, r.status])).toEqual([
    ["spy", "ok"],
    ["no", "blocked"],
  ]);
  expect(await Bun.file(join(dir.path, "never")).exists()).toBe(false);
  expect(await Bun.file(out).text()).not.toContain("sk-secret-value");
  const post = await fireHooks(
    [hook({ event: "PostToolUse", command: "exit 2" })],
    { ...event, type: "PostToolUse" },
    runner,
  );
  expect(post.blocked).toBe(false);
  const failing = await fireHooks([hook({ command: "echo boom >&2; exit 7" })], event, runner);
  expect(failing).toMatchObject({ blocked: false, warnings: [{ code: "hook_failed" }] });
  expect(failing.warnings[0]?.message).toContain("exited 7: boom");
  const silent = await fireHooks([hook({ command: "exit 2" })], event, runner);
  expect(silent.reason).toBe("blocked by hook: h");
  const filtered = await fireHooks(
    [hook({ toolPattern: "write_*", command: "exit 2" })],
    event,
    runner,
  );
  expect(filtered.ran).toEqual([]);
});
