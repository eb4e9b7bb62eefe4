import { describe, expect, test } from "bun:test";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockRequest, startMockLlm } from "../support/mock-llm.ts";

const systemText = (r: MockRequest | undefined) =>
  JSON.stringify((r?.body as { system?: unknown } | undefined)?.system ?? "");

async function skill(dir: string, name: string, front: string, body: string) {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(join(dir, name, "SKILL.md"), `---\n${front}\n---\n${body}\n`);
}

describe("skills (spawned binary, mock LLM)", () => {
  test("a triggered skill's body reaches the prompt; an untriggered one only its index line; the skill tool loads one; past CHATCLI_SKILL_INJECT_BUDGET a skill stays an index entry", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm({ defaultText: "ok" });
    const global = join(dir.path, ".chatcli", "skills");
    await skill(
      global,
      "deploy",
      "name: deploy\ndescription: How we ship the API\ntriggers: [deploy, release]",
      "DEPLOY-BODY: run make ship, never on Fridays.",
    );
    await skill(
      global,
      "terraform",
      'name: terraform\ndescription: Terraform conventions\npaths:\n  - "**/*.tf"',
      "TF-BODY: pin providers.",
    );
    await skill(
      global,
      "secret-admin",
      "name: secret-admin\ndescription: Rotate keys\ndisable-model-invocation: true",
      "ADMIN-BODY",
    );
    const env = baseEnv(dir.path, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(["agent", "--ephemeral", "--json", "please deploy the api"], {
      env,
      cwd: dir.path,
    });
    expect(r.code).toBe(0);
    const sys = systemText(llm.requests[0]);
    expect(sys).toContain("DEPLOY-BODY: run make ship");
    expect(sys).not.toContain("TF-BODY");
    expect(sys).toContain("- terraform: Terraform conventions");
    // disable-model-invocation: not in the model's index, never auto-loaded
    expect(sys).not.toContain("secret-admin");
    // the index is in the cached prefix, the body after it (volatile)
    const blocks = (
      (llm.requests[0]?.body ?? {}) as { system: Array<{ text: string; cache_control?: unknown }> }
    ).system;
    const lastCached = blocks.findLastIndex((b) => b.cache_control !== undefined);
    expect(blocks.findIndex((b) => b.text.includes("## Skills"))).toBeLessThanOrEqual(lastCached);
    expect(blocks.findIndex((b) => b.text.includes("DEPLOY-BODY"))).toBeGreaterThan(lastCached);
    // a path in the task selects the path skill
    await runChatcli(["agent", "--ephemeral", "--json", "fix infra/main.tf"], {
      env,
      cwd: dir.path,
    });
    expect(systemText(llm.requests[1])).toContain("TF-BODY: pin providers.");
    // the model loads one with the skill tool
    llm.push(
      { tool_calls: [{ id: "s1", name: "skill", arguments: { name: "terraform" } }] },
      { text: "done" },
    );
    const viaTool = await runChatcli(["agent", "--ephemeral", "--json", "hello"], {
      env,
      cwd: dir.path,
    });
    expect(JSON.parse(viaTool.stdout).tools.by_name).toEqual({ skill: 1 });
    expect(JSON.stringify(llm.requests[3]?.body)).toContain("TF-BODY: pin providers.");
    // a budget smaller than the body: the skill stays an index entry, with a warning
    const small = await runChatcli(["agent", "--ephemeral", "--json", "deploy now"], {
      env: { ...env, CHATCLI_SKILL_INJECT_BUDGET: "10" },
      cwd: dir.path,
    });
    expect(systemText(llm.requests[4])).not.toContain("DEPLOY-BODY");
    expect(JSON.parse(small.stdout).warnings.map((w: { code: string }) => w.code)).toContain(
      "skill_budget",
    );
  }, 60_000);

  test("skills from .agent/skills and .claude/skills; an untrusted workspace skill's model is ignored and its allowed-tools only narrow; skills list --json", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm({ defaultText: "ok" });
    const ws = join(dir.path, "repo");
    await mkdir(join(ws, ".git"), { recursive: true });
    await skill(
      join(ws, ".agent", "skills"),
      "review",
      "name: review\ndescription: Code review checklist\ntriggers: review\nmodel: openai/gpt-4o\nallowed-tools: Read, Grep",
      "REVIEW-BODY",
    );
    await skill(
      join(ws, ".claude", "skills"),
      "claude-style",
      "name: claude-style\ndescription: A Claude Code skill",
      "CLAUDE-BODY",
    );
    const env = baseEnv(dir.path, { ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(["agent", "--ephemeral", "--json", "review this change"], {
      env,
      cwd: ws,
    });
    expect(r.code).toBe(0);
    const e = JSON.parse(r.stdout);
    expect(systemText(llm.requests[0])).toContain("REVIEW-BODY");
    expect(systemText(llm.requests[0])).toContain("- claude-style: A Claude Code skill");
    // the model of an untrusted skill is not used; its allowed-tools narrow the tool set
    expect(e.model).not.toContain("gpt-4o");
    expect(
      e.warnings.some((w: { message: string }) =>
        w.message.includes("ignored model openai/gpt-4o"),
      ),
    ).toBe(true);
    const tools = (
      ((llm.requests[0]?.body ?? {}) as { tools?: Array<{ name: string }> }).tools ?? []
    ).map((t) => t.name);
    expect(tools.sort()).toEqual(["read_file", "search_files"]);
    const list = await runChatcli(["skills", "list", "--json"], { env, cwd: ws });
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout);
    expect(
      rows.map((s: { name: string; scope: string; trusted: boolean }) => [
        s.name,
        s.scope,
        s.trusted,
      ]),
    ).toEqual([
      ["claude-style", "workspace", false],
      ["review", "workspace", false],
    ]);
    expect(rows[1].path).toBe(join(ws, ".agent", "skills", "review", "SKILL.md"));
    expect(rows[1].triggers).toEqual(["review"]);
  }, 60_000);
});

describe("hooks (spawned binary, mock LLM)", () => {
  test("a PreToolUse hook exiting 2 blocks run_command: its stderr is the tool result and the denial's reason; the other events arrive on stdin in Go's fields, with CHATCLI_HOOK_* and no provider key", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    const log = join(dir.path, "events.jsonl");
    const envLog = join(dir.path, "hook-env.txt");
    await mkdir(join(dir.path, ".chatcli"), { recursive: true });
    await writeFile(
      join(dir.path, ".chatcli", "hooks.json"),
      JSON.stringify({
        hooks: [
          {
            name: "guard",
            event: "PreToolUse",
            type: "command",
            toolPattern: "run_command",
            command: "cat > /dev/null; echo 'no shell in this repo, use read_file' >&2; exit 2",
          },
          {
            name: "log",
            event: "SessionStart",
            type: "command",
            command: `cat >> ${log}; echo >> ${log}; env > ${envLog}`,
          },
          ...["UserPromptSubmit", "PostToolUse", "SessionEnd"].map((event) => ({
            name: `log-${event}`,
            event,
            type: "command",
            command: `cat >> ${log}; echo >> ${log}`,
          })),
          {
            name: "off",
            event: "SessionStart",
            type: "command",
            enabled: false,
            command: "touch off-ran",
          },
        ],
      }),
    );
    await writeFile(join(dir.path, "notes.txt"), "hello\n");
    llm.push(
      { tool_calls: [{ id: "r1", name: "run_command", arguments: { cmd: "ls" } }] },
      { tool_calls: [{ id: "r2", name: "read_file", arguments: { file: "notes.txt" } }] },
      { text: "read it" },
    );
    const r = await runChatcli(
      ["agent", "--ephemeral", "--output-format", "stream-json", "--sandbox", "off", "look around"],
      {
        env: baseEnv(dir.path, {
          ...llm.env("openai"),
          CHATCLI_MEMORY_ENABLED: "false",
          OPENAI_API_KEY: "sk-hook-test-0000000000000000",
        }),
        cwd: dir.path,
      },
    );
    // the hook blocked the only call: blocked (exit 6)
    expect(r.code).toBe(6);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const result = events.at(-1);
    expect(result.permission_denials).toMatchObject([
      { tool: "run_command", input: "ls", reason: "no shell in this repo, use read_file" },
    ]);
    expect(JSON.stringify(llm.requests[1]?.body)).toContain("no shell in this repo, use read_file");
    expect(events.filter((e) => e.type === "hook").map((e) => [e.event, e.name, e.status])).toEqual(
      [
        ["SessionStart", "log", "ok"],
        ["UserPromptSubmit", "log-UserPromptSubmit", "ok"],
        ["PreToolUse", "guard", "blocked"],
        ["PostToolUse", "log-PostToolUse", "ok"],
        ["SessionEnd", "log-SessionEnd", "ok"],
      ],
    );
    expect(
      events.find((e) => e.type === "permission.decided" && e.name === "run_command"),
    ).toMatchObject({ decision: "deny", source: "hook" });
    const lines = (await readFile(log, "utf8"))
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual([
      "SessionStart",
      "UserPromptSubmit",
      "PostToolUse",
      "SessionEnd",
    ]);
    expect(lines[1]).toMatchObject({ userPrompt: "look around", workingDir: dir.path });
    expect(lines[2]).toMatchObject({
      toolName: "read_file",
      toolArgs: JSON.stringify({ file: "notes.txt" }),
    });
    expect(lines[2].toolOutput).toContain("hello");
    expect(Date.parse(lines[0].timestamp)).not.toBeNaN();
    const hookEnv = await readFile(envLog, "utf8");
    expect(hookEnv).toContain("CHATCLI_HOOK_EVENT=SessionStart");
    expect(hookEnv).not.toContain("OPENAI_API_KEY");
    expect(hookEnv).not.toContain("sk-hook-test");
    expect(await Bun.file(join(dir.path, "off-ran")).exists()).toBe(false);
  }, 60_000);

  test("an http hook answering 403 blocks with its body as the reason; a hook that times out is a warning; an untrusted workspace's hooks.json does not run", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using llm = await startMockLlm();
    const posted: Array<{ body: string; auth: string | null }> = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        posted.push({ body: await req.text(), auth: req.headers.get("authorization") });
        return new Response("policy server says no", { status: 403 });
      },
    });
    try {
      const ws = join(dir.path, "repo");
      await mkdir(join(ws, ".git"), { recursive: true });
      await mkdir(join(ws, ".chatcli"), { recursive: true });
      await writeFile(
        join(ws, ".chatcli", "hooks.json"),
        JSON.stringify({
          hooks: [
            {
              name: "planted",
              event: "SessionStart",
              type: "command",
              command: "touch planted-ran",
            },
          ],
        }),
      );
      await mkdir(join(dir.path, ".chatcli"), { recursive: true });
      await writeFile(
        join(dir.path, ".chatcli", "hooks.json"),
        JSON.stringify({
          hooks: [
            {
              name: "slow",
              event: "UserPromptSubmit",
              type: "command",
              command: "sleep 5",
              timeout: 200,
            },
            {
              name: "policy",
              event: "PreToolUse",
              type: "http",
              url: `http://127.0.0.1:${server.port}/hook`,
            },
          ],
        }),
      );
      llm.push(
        { tool_calls: [{ id: "r1", name: "read_file", arguments: { file: "README" } }] },
        { text: "ok" },
      );
      const r = await runChatcli(["agent", "--ephemeral", "--json", "read the readme"], {
        env: baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" }),
        cwd: ws,
      });
      expect(r.code).toBe(0);
      const e = JSON.parse(r.stdout);
      expect(e.permission_denials).toMatchObject([
        { tool: "read_file", reason: "policy server says no" },
      ]);
      expect(e.warnings.map((w: { code: string }) => w.code)).toEqual(
        expect.arrayContaining(["hook_timeout", "untrusted_workspace_setting"]),
      );
      expect(await Bun.file(join(ws, "planted-ran")).exists()).toBe(false);
      expect(JSON.parse(posted[0]?.body ?? "{}")).toMatchObject({
        type: "PreToolUse",
        toolName: "read_file",
      });
      expect(posted[0]?.auth).toBeNull();
      const list = await runChatcli(["hooks", "list", "--json"], {
        env: baseEnv(dir.path),
        cwd: ws,
      });
      expect(
        JSON.parse(list.stdout).map((h: { name: string; scope: string; active: boolean }) => [
          h.name,
          h.scope,
          h.active,
        ]),
      ).toEqual([
        ["slow", "global", true],
        ["policy", "global", true],
        ["planted", "workspace", false],
      ]);
    } finally {
      server.stop(true);
    }
  }, 60_000);
});
