/**
 * SKILL.md skills, with the front matter the Go ChatCLI reads (name, description, triggers, paths,
 * allowed-tools, user-invocable, disable-model-invocation, model, effort), from
 * `~/.chatcli/skills/<name>/SKILL.md` (and Go's single-file `~/.chatcli/skills/<name>.md`),
 * `~/.claude/skills/<name>/SKILL.md`, `<workspace>/.agent/skills/<name>/SKILL.md` and
 * `<workspace>/.claude/skills/<name>/SKILL.md`. A workspace skill of the same name replaces a
 * global one (Go's order); a workspace skill is context, whatever the trust (see effects.ts).
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { outsideWarning, readConfined } from "../../core/confined.ts";
import { neutraliseControls } from "../../core/controls.ts";
import type { Env } from "../../core/ctx.ts";
import { chatcliHome, userHome } from "../../core/paths.ts";

export interface Skill {
  name: string;
  description: string;
  triggers: string[];
  paths: string[];
  allowedTools: string[];
  userInvocable: boolean;
  disableModelInvocation: boolean;
  model?: string;
  effort?: string;
  body: string;
  scope: "global" | "workspace";
  path: string;
}

/** A SKILL.md bigger than this is skipped (a skill is instructions, not a data file). */
const MAX_BYTES = 256 * 1024;

function list(value: unknown): string[] {
  if (typeof value === "string")
    return value
      .split(/[,\n]/)
      .map((s) => s.trim())
      .filter(Boolean);
  if (Array.isArray(value))
    return value
      .filter((v) => typeof v === "string" || typeof v === "number")
      .map((v) => String(v).trim())
      .filter(Boolean);
  return [];
}

function bool(value: unknown, fallback: boolean): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    if (/^(true|yes|on|1)$/i.test(value.trim())) return true;
    if (/^(false|no|off|0)$/i.test(value.trim())) return false;
  }
  return fallback;
}

/** Splits front matter from body; the front matter parsed as YAML (loaded only when there is one). */
export async function parseSkill(
  text: string,
  fallbackName: string,
  where: { scope: Skill["scope"]; path: string },
): Promise<{ skill?: Skill; warning?: string }> {
  const content = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  let data: Record<string, unknown> = {};
  let body = content.trim();
  const m = /^---[ \t]*\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(content);
  if (m) {
    body = content.slice(m[0].length).trim();
    try {
      const { parse } = await import("yaml");
      const parsed = parse(m[1] as string) as unknown;
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
        data = parsed as Record<string, unknown>;
    } catch (error) {
      return {
        warning: `${where.path}: front matter is not valid YAML (${(error as Error).message.split("\n")[0]}); the skill was skipped`,
      };
    }
  }
  const name = String(data["name"] ?? fallbackName).trim() || fallbackName;
  // Go: no front matter → the first line is the description
  const description = String(
    data["description"] ?? (m ? "" : (body.split("\n")[0] ?? "").replace(/^#+\s*/, "")),
  ).trim();
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);
  const model = str(data["model"]);
  const effort = str(data["effort"]);
  return {
    skill: {
      name,
      description,
      triggers: list(data["triggers"]),
      paths: list(data["paths"]),
      allowedTools: list(data["allowed-tools"] ?? data["allowed_tools"] ?? data["allowedTools"]),
      userInvocable: bool(data["user-invocable"], true),
      disableModelInvocation: bool(data["disable-model-invocation"], false),
      ...(model && model !== "inherit" ? { model } : {}),
      ...(effort ? { effort } : {}),
      body,
      scope: where.scope,
      path: where.path,
    },
  };
}

async function isFile(path: string): Promise<boolean> {
  try {
    const s = await stat(path);
    return s.isFile() && s.size <= MAX_BYTES;
  } catch {
    return false;
  }
}

/** The skill files of one directory: `<name>/SKILL.md`, and `<name>.md` where `singleFiles`. */
async function scan(
  dir: string,
  singleFiles: boolean,
): Promise<Array<{ name: string; path: string }>> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: Array<{ name: string; path: string }> = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name.startsWith(".")) continue;
    if (e.isDirectory() || e.isSymbolicLink()) {
      const path = join(dir, e.name, "SKILL.md");
      if (await isFile(path)) out.push({ name: e.name, path });
    } else if (singleFiles && e.isFile() && e.name.endsWith(".md")) {
      const path = join(dir, e.name);
      if (await isFile(path)) out.push({ name: e.name.slice(0, -3), path });
    }
  }
  return out;
}

export function skillDirs(
  env: Env,
  workspaceRoot: string,
): Array<{ dir: string; scope: Skill["scope"]; singleFiles: boolean }> {
  const home = userHome(env);
  return [
    { dir: join(home, ".claude", "skills"), scope: "global", singleFiles: false },
    { dir: join(chatcliHome(env), "skills"), scope: "global", singleFiles: true },
    { dir: join(workspaceRoot, ".claude", "skills"), scope: "workspace", singleFiles: false },
    { dir: join(workspaceRoot, ".agent", "skills"), scope: "workspace", singleFiles: false },
  ];
}

/** Every skill, sorted by name; later directories replace earlier ones of the same name. */
export async function loadSkills(
  env: Env,
  workspaceRoot: string,
): Promise<{ skills: Skill[]; warnings: Array<{ code: string; message: string }> }> {
  const byName = new Map<string, Skill>();
  const warnings: Array<{ code: string; message: string }> = [];
  const seenDirs = new Set<string>();
  for (const { dir, scope, singleFiles } of skillDirs(env, workspaceRoot)) {
    if (seenDirs.has(dir)) continue; // the workspace is the home directory
    seenDirs.add(dir);
    for (const file of await scan(dir, singleFiles)) {
      let text: string;
      if (scope === "workspace") {
        // a skill the checkout ships is read only inside it (a link out is skipped with a warning)
        const read = readConfined(file.path, workspaceRoot);
        if (read.kind === "outside") warnings.push(outsideWarning(file.path, read.target));
        if (read.kind !== "ok") continue;
        text = read.raw.toString("utf8");
      } else {
        try {
          text = await readFile(file.path, "utf8");
        } catch {
          continue;
        }
      }
      text = neutraliseControls(text).text;
      const { skill, warning } = await parseSkill(text, file.name, { scope, path: file.path });
      if (warning) warnings.push({ code: "skill_invalid", message: warning });
      if (skill) byName.set(skill.name, skill);
    }
  }
  const skills = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  return { skills, warnings };
}
