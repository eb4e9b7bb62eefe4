/**
 * What active skills change besides the prompt: `allowed-tools`, `model` and `effort`. A skill the
 * user installed (global) or one of a trusted workspace applies them; a skill that came with an
 * untrusted checkout only narrows — its allowed-tools restrict the tools instead of allowing them,
 * its effort may only go down, its model is ignored (with warning untrusted_workspace_setting).
 */
import type { Skill } from "./load.ts";

export interface SkillEffects {
  /** Allow rules to add (trusted skills' allowed-tools, in chatcli's rule syntax). */
  allow: string[];
  /** When set, only these tools are offered (an untrusted skill's allowed-tools). */
  only?: string[];
  model?: string;
  effort?: string;
  warnings: Array<{ code: string; message: string }>;
}

/** Claude Code's tool names → chatcli's (Go's `@coder` names go through the same table). */
const NAMES: Record<string, string[]> = {
  bash: ["run_command"],
  read: ["read_file"],
  write: ["write_file"],
  edit: ["patch_file", "multipatch"],
  multiedit: ["multipatch"],
  grep: ["search_files"],
  glob: ["list_directory"],
  ls: ["list_directory"],
  webfetch: ["web_fetch"],
  websearch: ["web_search"],
};

/** `Bash(npm test:*)` → `run_command(npm test*)`; `Read` → `read_file`; others as they are. */
export function toRules(allowed: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of allowed) {
    const m = /^\s*@?([A-Za-z0-9_*-]+)\s*(?:\((.*)\))?\s*$/.exec(raw);
    if (!m) continue;
    const names = NAMES[(m[1] as string).toLowerCase()] ?? [m[1] as string];
    const arg = m[2]?.replace(/:\*$/, "*");
    for (const n of names) out.push(arg === undefined ? n : `${n}(${arg})`);
  }
  return out;
}

const EFFORT = ["low", "medium", "high", "max"];

export function skillEffects(
  active: ReadonlyArray<Skill>,
  trusted: (skill: Skill) => boolean,
  current: { effort?: string },
): SkillEffects {
  const out: SkillEffects = { allow: [], warnings: [] };
  for (const s of active) {
    const full = trusted(s);
    if (s.allowedTools.length) {
      const rules = toRules(s.allowedTools);
      if (full) out.allow.push(...rules);
      else {
        const names = rules.map((r) => r.replace(/\(.*$/, ""));
        out.only = out.only ? out.only.filter((n) => names.includes(n)) : [...new Set(names)];
      }
    }
    if (s.model && out.model === undefined) {
      if (full) out.model = s.model;
      else
        out.warnings.push({
          code: "untrusted_workspace_setting",
          message: `ignored model ${s.model} of skill ${s.name} from ${s.path}: the workspace is not trusted`,
        });
    }
    if (s.effort && EFFORT.includes(s.effort)) {
      const lower =
        current.effort === undefined || EFFORT.indexOf(s.effort) < EFFORT.indexOf(current.effort);
      if (full && out.effort === undefined) out.effort = s.effort;
      else if (!full && lower && current.effort !== undefined) out.effort = s.effort;
      else if (!full && !lower)
        out.warnings.push({
          code: "untrusted_workspace_setting",
          message: `ignored effort ${s.effort} of skill ${s.name} from ${s.path}: an untrusted workspace may only lower it`,
        });
    }
  }
  return out;
}
