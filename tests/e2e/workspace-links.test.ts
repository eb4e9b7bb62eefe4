import { describe, expect, test } from "bun:test";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary, runChatcli } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { agent, CANARY, type Hostile, hostile } from "./sandbox-support.ts";

/**
 * Files chatcli reads from a checkout on its own (bootstrap files, rules, skills, .chatcli/config.json,
 * ./.env, hooks, .mcp.json) are never read through a link leading out of the workspace: a checkout
 * that ships `AGENTS.md -> ~/.ssh/id_rsa` gets a `link_outside_workspace` warning, not the key in the
 * system prompt (issue 20).
 */
const codes = (env: Record<string, unknown>) =>
  ((env["warnings"] as Array<{ code: string; message: string }>) ?? []).filter(
    (w) => w.code === "link_outside_workspace",
  );

async function linkedCheckout(h: Hostile): Promise<void> {
  await symlink(join(h.home, ".ssh", "id_rsa"), join(h.ws, "AGENTS.md"));
  await symlink(join(h.home, ".aws", "credentials"), join(h.ws, "SOUL.md"));
  await symlink(join(h.home, ".netrc"), join(h.ws, "USER.md"));
  await writeFile(join(h.outside, "identity.md"), `${CANARY}-identity\n`);
  await writeFile(join(h.outside, "rules.md"), `${CANARY}-rules-md\n`);
  // relative links, one of them climbing out with ../
  const up = join("..", h.outside.split("/").at(-1) as string);
  await symlink(join(up, "identity.md"), join(h.ws, "IDENTITY.md"));
  await symlink(join(h.outside, "rules.md"), join(h.ws, "RULES.md"));
  // a linked parent directory: .chatcli -> outside, holding rules/ and config.json
  const dot = join(h.outside, "dotchatcli");
  await mkdir(join(dot, "rules"), { recursive: true });
  await writeFile(
    join(dot, "rules", "leak.md"),
    `---\npaths: ["README.md"]\n---\n${CANARY}-rule-dir\n`,
  );
  await symlink(join(h.home, ".aws", "credentials"), join(dot, "config.json"));
  await writeFile(join(dot, "hooks.json"), `{"hooks": "${CANARY}-hooks`);
  await symlink(dot, join(h.ws, ".chatcli"));
}

describe("workspace files that are links out of the workspace (spawned binary)", () => {
  test("bootstrap show: AGENTS.md, SOUL.md, USER.md, IDENTITY.md, RULES.md and a linked .chatcli/ are not read", async () => {
    requireBinary();
    await using llm = await startMockLlm();
    await using h = await hostile(llm);
    await linkedCheckout(h);
    for (const format of [[], ["--json"]]) {
      const r = await runChatcli(["bootstrap", "show", "--mode", "agent", ...format, "README.md"], {
        env: h.env,
        cwd: h.ws,
      });
      expect({ format, code: r.code, stderr: r.stderr }).toMatchObject({ format, code: 0 });
      expect(r.stdout + r.stderr).not.toContain(CANARY);
      if (format.length === 0) {
        for (const name of ["AGENTS.md", "SOUL.md", "USER.md", "IDENTITY.md", "RULES.md"])
          expect(r.stderr).toContain(`${join(h.ws, name)} leads outside the workspace`);
        expect(r.stderr).toContain(join(h.ws, ".chatcli", "rules", "leak.md"));
      } else {
        const doc = JSON.parse(r.stdout) as Record<string, unknown>;
        expect(codes(doc).length).toBe(6); // the 5 files and the rule
        expect(doc["files"]).toEqual([]);
        expect(doc["rules"]).toEqual([]);
      }
    }
  });

  test("agent: nothing of the linked files reaches the provider; the run goes on with warnings", async () => {
    requireBinary();
    await using llm = await startMockLlm();
    await using h = await hostile(llm);
    await linkedCheckout(h);
    // ./.env -> credentials (its `[default]` line would be quoted by dotenv_invalid)
    await symlink(join(h.home, ".aws", "credentials"), join(h.ws, ".env"));
    // skills: a linked skill directory and a linked SKILL.md
    await mkdir(join(h.outside, "evil-skill"));
    await writeFile(
      join(h.outside, "evil-skill", "SKILL.md"),
      `---\nname: evil\ndescription: ${CANARY}-skill-dir\n---\n${CANARY}-skill-body\n`,
    );
    await mkdir(join(h.ws, ".agent", "skills"), { recursive: true });
    await symlink(join(h.outside, "evil-skill"), join(h.ws, ".agent", "skills", "evil"));
    await mkdir(join(h.ws, ".claude", "skills", "other"), { recursive: true });
    await symlink(
      join(h.outside, "evil-skill", "SKILL.md"),
      join(h.ws, ".claude", "skills", "other", "SKILL.md"),
    );
    await writeFile(join(h.outside, "mcp.json"), `{"mcpServers": "${CANARY}-mcp`);
    await symlink(join(h.outside, "mcp.json"), join(h.ws, ".mcp.json"));
    llm.push({ text: "done" });
    const r = await agent(h, ["--trust-workspace"]);
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(JSON.stringify(llm.requests)).not.toContain(CANARY);
    expect(r.stdout + r.stderr).not.toContain(CANARY);
    const warned = codes(r.envelope).map((w) => w.message.split(" leads outside")[0]);
    for (const name of [
      "AGENTS.md",
      "SOUL.md",
      "USER.md",
      "IDENTITY.md",
      "RULES.md",
      ".env",
      ".chatcli/config.json",
      ".chatcli/rules/leak.md",
      ".chatcli/hooks.json",
      ".mcp.json",
      ".agent/skills/evil/SKILL.md",
      ".claude/skills/other/SKILL.md",
    ])
      expect(warned).toContain(join(h.ws, name));
  });

  test("a link that stays inside the workspace is read as before", async () => {
    requireBinary();
    await using llm = await startMockLlm();
    await using h = await hostile(llm);
    await mkdir(join(h.ws, "docs", "rules"), { recursive: true });
    await writeFile(join(h.ws, "docs", "AGENTS.md"), "INSIDE-AGENTS-OK\n");
    await writeFile(join(h.ws, "docs", "rules", "style.md"), "INSIDE-RULE-OK\n");
    await symlink(join("docs", "AGENTS.md"), join(h.ws, "AGENTS.md"));
    await symlink(join(h.ws, "docs", "rules"), join(h.ws, "rules")); // Go's rules/ (no .chatcli)
    await writeFile(
      join(h.ws, "docs", "rules", "style.md"),
      '---\npaths: ["*.md"]\n---\nINSIDE-RULE-OK\n',
    );
    const r = await runChatcli(["bootstrap", "show", "README.md"], { env: h.env, cwd: h.ws });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("INSIDE-AGENTS-OK");
    expect(r.stdout).toContain("INSIDE-RULE-OK");
    expect(r.stderr).not.toContain("outside the workspace");
  });

  test("global files in ~/.chatcli may be links anywhere (the user's own)", async () => {
    requireBinary();
    await using llm = await startMockLlm();
    await using h = await hostile(llm);
    await writeFile(join(h.outside, "soul.md"), "GLOBAL-SOUL-OK\n");
    await mkdir(join(h.home, ".chatcli"), { recursive: true });
    await symlink(join(h.outside, "soul.md"), join(h.home, ".chatcli", "SOUL.md"));
    const r = await runChatcli(["bootstrap", "show"], { env: h.env, cwd: h.ws });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("GLOBAL-SOUL-OK");
  });
});
