/**
 * `chatcli config [--json]`: the effective settings and the layer each came from — flag, env, .env,
 * workspace config, user config — with secrets only as set/unset (never their value, in any format).
 */
import { beforeAll, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

const USER_KEY = "sk-ant-user-config-secret-0123456789";
const DOTENV_KEY = "sk-dotenv-secret-0123456789";

/** A user home and a git workspace, each layer defining something (some the same name). */
async function layers(root: string) {
  const home = join(root, "home");
  const ws = join(root, "ws");
  await mkdir(join(home, ".chatcli"), { recursive: true });
  await mkdir(join(ws, ".chatcli"), { recursive: true });
  await mkdir(join(ws, ".git"));
  await writeFile(
    join(home, ".chatcli", "config.json"),
    JSON.stringify({
      model: "anthropic/claude-sonnet-4-6",
      env: { ANTHROPIC_API_KEY: USER_KEY, OPENAI_MODEL: "gpt-from-user", CHATCLI_MAX_RETRIES: "9" },
      permissions: { allow: ["read_file(*)"] },
    }),
  );
  await writeFile(
    join(ws, ".chatcli", "config.json"),
    JSON.stringify({
      env: { OPENAI_MODEL: "gpt-from-workspace" },
      permissions: { mode: "edit", deny: ["run_command(rm *)"] },
    }),
  );
  await writeFile(join(ws, ".env"), `OPENAI_API_KEY=${DOTENV_KEY}\nCHATCLI_MAX_RETRIES=2\n`);
  // a trusted workspace: every layer applies (the untrusted case is the last test)
  const env = baseEnv(home, { CHATCLI_HOME: join(home, ".chatcli"), CHATCLI_TRUST_WORKSPACE: "1" });
  return { home, ws, env };
}

interface Report {
  model: { value: string | null; source: string; variables: string[]; error?: string };
  permission_mode: { value: string; source: string; warning?: string };
  permissions: {
    allow: { rule: string; source: string }[];
    deny: { rule: string; source: string }[];
  };
  files: { kind: string; path: string; exists: boolean; applied: boolean }[];
  variables: {
    name: string;
    value: string;
    secret: boolean;
    source: string;
    overrides: string[];
  }[];
}

test("--json: each setting's winning layer, what it overrides, secrets as set/unset", async () => {
  await using dir = await tempDir();
  const { ws, env } = await layers(dir.path);
  const r = await runChatcli(["config", "--json"], {
    env: { ...env, LLM_PROVIDER: "OPENAI" },
    cwd: ws,
  });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  expect(r.stdout).not.toContain(USER_KEY);
  expect(r.stdout).not.toContain(DOTENV_KEY);
  const report = JSON.parse(r.stdout) as Report;
  expect(report.model).toEqual({
    value: "openai/gpt-from-workspace",
    source: "env",
    variables: ["LLM_PROVIDER", "OPENAI_MODEL"],
  });
  expect(report.permission_mode).toEqual({ value: "edit", source: "workspace config" });
  expect(report.permissions).toEqual({
    allow: [{ rule: "read_file(*)", source: "user config" }],
    deny: [{ rule: "run_command(rm *)", source: "workspace config" }],
  });
  expect(report.files.map((f) => [f.kind, f.exists, f.applied])).toEqual([
    [".env", true, true],
    ["workspace config", true, true],
    ["user config", true, true],
  ]);
  const v = Object.fromEntries(report.variables.map((x) => [x.name, x]));
  expect(v["OPENAI_API_KEY"]).toMatchObject({ value: "set", secret: true, source: ".env" });
  expect(v["ANTHROPIC_API_KEY"]).toMatchObject({
    value: "set",
    secret: true,
    source: "user config",
  });
  expect(v["XAI_API_KEY"]).toMatchObject({ value: "unset", secret: true, source: "unset" });
  expect(v["OPENAI_MODEL"]).toMatchObject({
    value: "gpt-from-workspace",
    source: "workspace config",
    overrides: ["user config"],
  });
  expect(v["CHATCLI_MAX_RETRIES"]).toMatchObject({
    value: "2",
    source: ".env",
    overrides: ["user config"],
  });
  expect(v["LLM_PROVIDER"]).toMatchObject({ value: "OPENAI", source: "env" });
});

test("flags win: -m and --permission-mode are reported as the flag's; the user config's model otherwise", async () => {
  await using dir = await tempDir();
  const { ws, env } = await layers(dir.path);
  const flagged = JSON.parse(
    (
      await runChatcli(["config", "--json", "-m", "mock:echo", "--permission-mode", "auto"], {
        env,
        cwd: ws,
      })
    ).stdout,
  ) as Report;
  expect(flagged.model).toMatchObject({ value: "mock:echo", source: "flag" });
  expect(flagged.permission_mode).toEqual({ value: "auto", source: "flag" });
  const plain = JSON.parse(
    (await runChatcli(["config", "--json"], { env, cwd: ws })).stdout,
  ) as Report;
  expect(plain.model).toMatchObject({
    value: "anthropic/claude-sonnet-4-6",
    source: "user config",
  });
});

test("text: one line a setting with its source; no secret value; a missing layer says not found", async () => {
  await using dir = await tempDir();
  const { ws, env } = await layers(dir.path);
  await Bun.write(join(ws, ".env"), "");
  const r = await runChatcli(["config"], { env: { ...env, OPENAI_API_KEY: DOTENV_KEY }, cwd: ws });
  expect(r.code).toBe(0);
  expect(r.stdout).not.toContain(DOTENV_KEY);
  expect(r.stdout).toMatch(/\n {2}model +anthropic\/claude-sonnet-4-6 +user config\n/);
  expect(r.stdout).toMatch(/\n {2}permission mode +edit +workspace config\n/);
  expect(r.stdout).toMatch(/\n {2}OPENAI_API_KEY +set +env\n/);
  expect(r.stdout).toMatch(/\n {2}XAI_API_KEY +unset\n/);
  expect(r.stdout).toMatch(
    /\n {2}OPENAI_MODEL +gpt-from-workspace +workspace config \(overrides user config\)\n/,
  );
  await using empty = await tempDir();
  const none = await runChatcli(["config"], { env: baseEnv(empty.path), cwd: empty.path });
  expect(none.stdout).toMatch(/\n {2}user config +\S+config\.json +not found\n/);
  expect(none.stdout).toMatch(/\n {2}model +\(none\) +error: no LLM provider configured\n/);
});

test("a config.json that does not parse is exit 3, as for every other command", async () => {
  await using dir = await tempDir();
  const { ws, env, home } = await layers(dir.path);
  await writeFile(join(home, ".chatcli", "config.json"), "{ nope");
  const r = await runChatcli(["config", "--json"], { env, cwd: ws });
  expect(r.code).toBe(3);
  expect(JSON.parse(r.stdout).error.code).toBeTruthy();
});

test("untrusted workspace: its mode and variables are reported as not applied, with the warnings", async () => {
  await using dir = await tempDir();
  const { ws, env } = await layers(dir.path);
  const { CHATCLI_TRUST_WORKSPACE: _trusted, ...untrusted } = env;
  const r = await runChatcli(["config", "--json"], { env: untrusted, cwd: ws });
  expect(r.code).toBe(0);
  const report = JSON.parse(r.stdout) as Report & { warnings: string[] };
  expect(report.permission_mode).toEqual({ value: "read-only", source: "default" });
  // the deny rule still applies: an untrusted workspace may tighten
  expect(report.permissions.deny).toEqual([
    { rule: "run_command(rm *)", source: "workspace config" },
  ]);
  const v = Object.fromEntries(report.variables.map((x) => [x.name, x]));
  expect(v["OPENAI_MODEL"]).toMatchObject({ value: "gpt-from-user", source: "user config" });
  expect(v["OPENAI_API_KEY"]).toMatchObject({
    value: "unset",
    source: "unset",
    ignored_in: ".env",
  });
  expect(v["CHATCLI_MAX_RETRIES"]).toMatchObject({ value: "2", source: ".env" });
  expect(report.warnings.join("\n")).toContain("ignored permissions.mode (edit) from");
  const trusted = JSON.parse(
    (await runChatcli(["config", "--json", "--trust-workspace"], { env: untrusted, cwd: ws }))
      .stdout,
  ) as Report;
  expect(trusted.permission_mode).toEqual({ value: "edit", source: "workspace config" });
});

test("untrusted workspace: a .env whose every key was ignored is not reported as applied; a partly ignored one names the keys", async () => {
  await using dir = await tempDir();
  const { ws, env } = await layers(dir.path);
  const { CHATCLI_TRUST_WORKSPACE: _trusted, ...untrusted } = env;
  await writeFile(join(ws, ".env"), `OPENAI_API_KEY=${DOTENV_KEY}\n`);
  const all = await runChatcli(["config", "--json"], { env: untrusted, cwd: ws });
  const files = (JSON.parse(all.stdout) as { files: Array<Record<string, unknown>> }).files;
  expect(files.find((f) => f["kind"] === ".env")).toMatchObject({
    exists: true,
    applied: false,
    ignored_keys: ["OPENAI_API_KEY"],
  });
  const text = await runChatcli(["config"], { env: untrusted, cwd: ws });
  expect(text.stdout).toMatch(
    /\n {2}\.env +\S+ +NOT applied \(untrusted workspace: OPENAI_API_KEY ignored\)\n/,
  );
  await writeFile(join(ws, ".env"), `OPENAI_API_KEY=${DOTENV_KEY}\nCHATCLI_MAX_RETRIES=2\n`);
  const some = await runChatcli(["config"], { env: untrusted, cwd: ws });
  expect(some.stdout).toMatch(
    /\n {2}\.env +\S+ +applied, except OPENAI_API_KEY \(untrusted workspace\)\n/,
  );
  expect(some.stdout).not.toContain(DOTENV_KEY);
});
