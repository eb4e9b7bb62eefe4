import { expect, test } from "bun:test";
import { SkillSet, triggerMatches } from "../../../lib/extensions/skills/activate.ts";
import { skillEffects, toRules } from "../../../lib/extensions/skills/effects.ts";
import { parseSkill, type Skill } from "../../../lib/extensions/skills/load.ts";

const where = { scope: "global" as const, path: "/s/SKILL.md" };

test("SKILL.md front matter as Go reads it: lists as YAML or comma strings, booleans, model inherit", async () => {
  const { skill } = await parseSkill(
    "---\nname: deploy\ndescription: Ship it\ntriggers: [deploy, 'roll out']\npaths: src/**/*.go, cmd/**\nallowed-tools: Bash(make ship:*), Read\nuser-invocable: false\ndisable-model-invocation: yes\nmodel: inherit\neffort: low\n---\n\nBODY\n",
    "dir-name",
    where,
  );
  expect(skill).toMatchObject({
    name: "deploy",
    description: "Ship it",
    triggers: ["deploy", "roll out"],
    paths: ["src/**/*.go", "cmd/**"],
    allowedTools: ["Bash(make ship:*)", "Read"],
    userInvocable: false,
    disableModelInvocation: true,
    effort: "low",
    body: "BODY",
  });
  expect(skill?.model).toBeUndefined();
  const bare = await parseSkill("# Title line\nrest", "fallback", where);
  expect(bare.skill).toMatchObject({ name: "fallback", description: "Title line" });
  const bad = await parseSkill("---\nname: [unclosed\n---\nx", "x", where);
  expect(bad.skill).toBeUndefined();
  expect(bad.warning).toContain("not valid YAML");
});

test("triggers match whole words and phrases, any case", () => {
  expect(triggerMatches("deploy", "Please DEPLOY the api")).toBe(true);
  expect(triggerMatches("deploy", "redeployment")).toBe(false);
  expect(triggerMatches("roll out", "can you roll out v2")).toBe(true);
  expect(triggerMatches("c++", "a c++ question")).toBe(true);
});

const mk = (over: Partial<Skill>): Skill => ({
  name: "s",
  description: "d",
  triggers: [],
  paths: [],
  allowedTools: [],
  userInvocable: true,
  disableModelInvocation: false,
  body: "B",
  scope: "global",
  path: "/p",
  ...over,
});

test("activation: /name, triggers, paths; each body once; the budget counts them all", () => {
  const set = new SkillSet(
    [
      mk({ name: "a", triggers: ["alpha"], body: "A".repeat(10) }),
      mk({ name: "tf", paths: ["**/*.tf"], body: "T".repeat(10) }),
      mk({ name: "manual", userInvocable: true, disableModelInvocation: true, body: "M" }),
    ],
    { env: { CHATCLI_SKILL_INJECT_BUDGET: "15" }, cwd: "/w", workspaceRoot: "/w", trusted: false },
  );
  expect(set.indexText()).toContain("- a: d");
  expect(set.indexText()).not.toContain("manual");
  expect(set.activate("/manual please").map((b) => b.id)).toEqual(["skill:manual"]);
  expect(set.activate("alpha and infra/main.tf").map((b) => b.id)).toEqual(["skill:a"]);
  expect(set.warnings.map((w) => w.code)).toEqual(["skill_budget"]);
  expect(set.activate("alpha again")).toEqual([]);
});

test("effects: a trusted skill's allowed-tools become allow rules, its model and effort apply; an untrusted one only narrows", () => {
  expect(toRules(["Bash(npm test:*)", "Read", "Edit", "mcp__gh__list_issues", "@coder"])).toEqual([
    "run_command(npm test*)",
    "read_file",
    "patch_file",
    "multipatch",
    "mcp__gh__list_issues",
    "coder",
  ]);
  const trusted = mk({
    allowedTools: ["Bash(make:*)"],
    model: "anthropic/claude-haiku-4-5",
    effort: "high",
  });
  expect(skillEffects([trusted], () => true, { effort: "low" })).toMatchObject({
    allow: ["run_command(make*)"],
    model: "anthropic/claude-haiku-4-5",
    effort: "high",
  });
  const untrusted = mk({
    scope: "workspace",
    allowedTools: ["Read", "Grep"],
    model: "openai/gpt-4o",
    effort: "max",
  });
  const fx = skillEffects([untrusted], () => false, { effort: "medium" });
  expect(fx.allow).toEqual([]);
  expect(fx.only).toEqual(["read_file", "search_files"]);
  expect(fx.model).toBeUndefined();
  expect(fx.effort).toBeUndefined();
  expect(fx.warnings.map((w) => w.code)).toEqual([
    "untrusted_workspace_setting",
    "untrusted_workspace_setting",
  ]);
  expect(
    skillEffects([mk({ scope: "workspace", effort: "low" })], () => false, { effort: "high" })
      .effort,
  ).toBe("low");
});
