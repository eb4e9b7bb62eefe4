import { expect, test } from "bun:test";
import { parseRoles, roleOfTask } from "../../../lib/agent/roles.ts";

test("## @name sections are roles; setting lines right under the heading narrow them", () => {
  const { roles, warnings } = parseRoles(
    [
      "# Agents",
      "Plain text, not a role.",
      "## @devops",
      "Infra specialist.",
      "tools: read_file",
      "## @dba",
      "",
      "tools: read_file, @search_files",
      "model: anthropic/claude-haiku-4-5",
      "read_only: yes",
      "max_turns: 4",
      "PostgreSQL specialist.",
      "### Details stay in the role",
      "```",
      "## @fake inside a fence",
      "```",
      "## Other section",
      "not part of dba",
      "## @sec",
      "read_only: maybe",
      "max_turns: zero",
      "Auditor.",
    ].join("\n"),
  );
  expect(roles.map((r) => r.name)).toEqual(["devops", "dba", "sec"]);
  const [devops, dba, sec] = roles;
  // a settings-looking line after the text is text
  expect(devops).toMatchObject({
    summary: "Infra specialist.",
    instructions: "Infra specialist.\ntools: read_file",
  });
  expect(devops?.tools).toBeUndefined();
  expect(dba).toMatchObject({
    tools: ["read_file", "search_files"],
    model: "anthropic/claude-haiku-4-5",
    readOnly: true,
    maxTurns: 4,
    summary: "PostgreSQL specialist.",
  });
  expect(dba?.instructions).toContain("### Details stay in the role");
  expect(dba?.instructions).toContain("## @fake inside a fence");
  expect(dba?.instructions).not.toContain("not part of dba");
  // an unclear read_only narrows; a bad max_turns is ignored; both warn
  expect(sec).toMatchObject({ readOnly: true, instructions: "Auditor." });
  expect(sec?.maxTurns).toBeUndefined();
  expect(warnings.map((w) => w.code)).toEqual(["agents_role_setting", "agents_role_setting"]);
});

test("a plain AGENTS.md has no roles; @name at the start of a task picks a known role only", () => {
  expect(parseRoles("# Rules\n\nBe nice.\n").roles).toEqual([]);
  const { roles } = parseRoles("## @security\nAuditor.\n");
  expect(roleOfTask("@security review the last commit", roles)).toMatchObject({
    role: { name: "security" },
    task: "review the last commit",
  });
  expect(roleOfTask("@nobody do it", roles)).toBeUndefined();
  expect(roleOfTask("ask @security later", roles)).toBeUndefined();
});
