/**
 * Which skills a run carries: the index (one line per skill, in the cached prefix) always; a body
 * when a trigger word or a path of the user's input matches, when the model calls `skill`, or when
 * the user types `/name` — all within CHATCLI_SKILL_INJECT_BUDGET characters (Go's name, 24,000).
 */
import { extractPathHints, matchGlob, pathCandidates } from "../../bootstrap/rules.ts";
import type { Env } from "../../core/ctx.ts";
import { envInt } from "../../core/settings.ts";
import type { ExtensionTool } from "../types.ts";
import type { Skill } from "./load.ts";

export const DEFAULT_INJECT_BUDGET = 24_000;

export interface SkillBlock {
  id: string;
  text: string;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Whether `trigger` occurs in `text` as a whole word or phrase (any case). */
export function triggerMatches(trigger: string, text: string): boolean {
  const t = trigger.trim();
  if (!t) return false;
  return new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRe(t)}($|[^\\p{L}\\p{N}_])`, "iu").test(text);
}

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

export class SkillSet {
  private readonly active = new Map<string, { skill: Skill; via: string }>();
  private used = 0;
  private readonly budget: number;
  readonly warnings: Array<{ code: string; message: string }> = [];

  constructor(
    readonly skills: readonly Skill[],
    private readonly ctx: { env: Env; cwd: string; workspaceRoot: string; trusted: boolean },
  ) {
    const b = envInt(ctx.env, "CHATCLI_SKILL_INJECT_BUDGET", DEFAULT_INJECT_BUDGET);
    this.budget = b < 0 ? DEFAULT_INJECT_BUDGET : b;
  }

  /** Skills the model may use by itself (index, triggers, the `skill` tool). */
  private modelSkills(): Skill[] {
    return this.skills.filter((s) => !s.disableModelInvocation);
  }

  /** The cached-prefix index: one line per skill (name and description); "" when none. */
  indexText(): string {
    const skills = this.modelSkills();
    if (!skills.length) return "";
    const lines = skills.map(
      (s) => `- ${s.name}${s.description ? `: ${oneLine(s.description, 160)}` : ""}`,
    );
    return `## Skills\n\nCall the skill tool with a name to load its instructions when the task needs it.\n${lines.join("\n")}`;
  }

  /** Adds a skill's body if it fits the budget; the block, or why not. */
  private take(skill: Skill, via: string): SkillBlock | { error: string } | undefined {
    if (this.active.has(skill.name)) return undefined;
    if (this.used + skill.body.length > this.budget) {
      const message = `skill ${skill.name} was not loaded: it would pass CHATCLI_SKILL_INJECT_BUDGET (${this.budget} chars, ${this.used} used)`;
      this.warnings.push({ code: "skill_budget", message });
      return { error: message };
    }
    this.used += skill.body.length;
    this.active.set(skill.name, { skill, via });
    return { id: `skill:${skill.name}`, text: `## Skill: ${skill.name}\n\n${skill.body}` };
  }

  /** The bodies `input` activates: `/name` first, then trigger words, then paths. */
  activate(input: string, paths: readonly string[] = []): SkillBlock[] {
    const out: SkillBlock[] = [];
    const push = (s: Skill, via: string) => {
      const b = this.take(s, via);
      if (b && "text" in b) out.push(b);
    };
    const slash = /^\s*\/([A-Za-z0-9_.:-]+)(?=\s|$)/.exec(input);
    if (slash) {
      const s = this.skills.find((k) => k.name === slash[1] && k.userInvocable);
      if (s) push(s, "slash");
    }
    const candidates = pathCandidates(
      [...paths, ...extractPathHints(input)],
      this.ctx.cwd,
      this.ctx.workspaceRoot,
    );
    for (const s of this.modelSkills()) {
      if (s.triggers.some((t) => triggerMatches(t, input))) push(s, "trigger");
      else if (s.paths.some((g) => candidates.some((c) => matchGlob(g, c)))) push(s, "path");
    }
    return out;
  }

  /** The `skill` tool (only when the model has skills to call). */
  tool(): ExtensionTool | undefined {
    const names = this.modelSkills().map((s) => s.name);
    if (!names.length) return undefined;
    return {
      name: "skill",
      description:
        "Load a skill's instructions by name (the skills are listed in the system prompt).",
      input_schema: {
        type: "object",
        properties: { name: { type: "string", description: "the skill's name" } },
        required: ["name"],
      },
      origin: "local",
      untrustedOutput: false,
      call: async (args) => {
        const name = String(args["name"] ?? "").replace(/^\//, "");
        const s = this.modelSkills().find((k) => k.name === name);
        if (!s)
          return {
            output: `error: no skill named ${JSON.stringify(name)}; skills: ${names.join(", ")}`,
            isError: true,
          };
        if (this.active.has(s.name)) return { output: `skill ${s.name} is already loaded above.` };
        const b = this.take(s, "tool");
        if (!b) return { output: `skill ${s.name} is already loaded above.` };
        if ("error" in b) return { output: `error: ${b.error}`, isError: true };
        return { output: b.text };
      },
    };
  }

  /** The skills active so far, and how they came in. */
  activeSkills(): Array<{ skill: Skill; via: string }> {
    return [...this.active.values()];
  }

  /** Whether a skill's settings count in full (global, or the workspace is trusted). */
  trustedSkill(skill: Skill): boolean {
    return skill.scope === "global" || this.ctx.trusted;
  }
}
