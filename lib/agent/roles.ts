/**
 * Sub-agent roles from AGENTS.md: every `## @name` section is a role whose text is that agent's
 * instructions. Optional setting lines right under the heading (before any other text) narrow it:
 *
 *   ## @security
 *   tools: read_file, search_files, git_diff
 *   model: anthropic/claude-haiku-4-5
 *   read_only: true
 *   max_turns: 8
 *   Security auditor focused on the OWASP Top 10. …
 *
 * A plain AGENTS.md (no `## @` headings) has no roles and stays prompt text only.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { bootstrapEnabled } from "../bootstrap/files.ts";
import { readConfined } from "../core/confined.ts";
import { neutraliseControls } from "../core/controls.ts";
import type { Env } from "../core/ctx.ts";
import { bootstrapGlobalDir } from "../core/paths.ts";
import type { Warning } from "../core/warning.ts";

export interface Role {
  /** Without the `@`. */
  name: string;
  /** The section's text after the setting lines (trimmed). */
  instructions: string;
  /** First line of the instructions, for the delegate tool's catalogue. */
  summary: string;
  tools?: string[];
  model?: string;
  readOnly?: boolean;
  maxTurns?: number;
}

const HEADING = /^##\s+@([A-Za-z0-9_.-]+)\s*$/;
const SETTING = /^(tools|model|read_only|max_turns)\s*:\s*(.*?)\s*$/i;

/** Parses the `## @name` sections of an AGENTS.md text; `where` names it in warnings. */
export function parseRoles(
  text: string,
  where = "AGENTS.md",
): { roles: Role[]; warnings: Warning[] } {
  const roles: Role[] = [];
  const warnings: Warning[] = [];
  let current: { role: Role; lines: string[]; settings: boolean } | undefined;
  let fence = false;
  const close = () => {
    if (!current) return;
    const body = current.lines.join("\n").trim();
    current.role.instructions = body;
    current.role.summary = (body.split("\n").find((l) => l.trim()) ?? "").trim().slice(0, 160);
    if (roles.some((r) => r.name === current?.role.name))
      warnings.push({
        code: "agents_role_duplicate",
        message: `${where}: role @${current.role.name} is defined twice; the first is used`,
      });
    else roles.push(current.role);
    current = undefined;
  };
  for (const line of text.replace(/\r\n/g, "\n").split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const heading = fence ? null : HEADING.exec(line);
    if (heading) {
      close();
      current = {
        role: { name: heading[1] as string, instructions: "", summary: "" },
        lines: [],
        settings: true,
      };
      continue;
    }
    if (!fence && /^#{1,2}\s/.test(line)) {
      close();
      continue;
    }
    if (!current) continue;
    if (current.settings) {
      if (line.trim() === "" && current.lines.length === 0) continue;
      const m = SETTING.exec(line);
      if (m) {
        const problem = applySetting(current.role, (m[1] as string).toLowerCase(), m[2] as string);
        if (problem)
          warnings.push({
            code: "agents_role_setting",
            message: `${where}: @${current.role.name}: ${problem}`,
          });
        continue;
      }
      current.settings = false;
    }
    current.lines.push(line);
  }
  close();
  return { roles, warnings };
}

function applySetting(role: Role, key: string, value: string): string | undefined {
  switch (key) {
    case "tools": {
      const names = value
        .split(/[\s,]+/)
        .map((t) => t.trim().replace(/^@/, ""))
        .filter(Boolean);
      role.tools = names;
      return undefined;
    }
    case "model":
      if (!value) return "model: is empty (ignored)";
      role.model = value;
      return undefined;
    case "read_only":
      // anything but a clear false narrows (a typo never widens a role)
      role.readOnly = !/^(false|no)$/i.test(value);
      return /^(true|false|yes|no)$/i.test(value)
        ? undefined
        : `read_only: ${JSON.stringify(value)} is not true or false (read_only: true is used)`;
    case "max_turns": {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1)
        return `max_turns: ${JSON.stringify(value)} is not a positive integer (ignored)`;
      role.maxTurns = n;
      return undefined;
    }
    default:
      return undefined;
  }
}

/** How far an untrusted workspace's role may go: its max_turns may only be lower than this. */
export interface RoleTrust {
  /** Whether the workspace is trusted (CONTRACT §5); the global AGENTS.md always is. */
  trusted: boolean;
  /** The user's turn limit (CHATCLI_AGENT_PLUGIN_MAX_TURNS or the default). */
  maxTurns: number;
}

/**
 * What an untrusted AGENTS.md may say about a role: prompt text and narrowing lines (`tools`,
 * `read_only`, a `max_turns` below the user's). A `model:` line (a whole run to another model) or
 * a higher cap is dropped with warning `untrusted_workspace_setting`.
 */
export function narrowUntrusted(
  roles: Role[],
  path: string,
  maxTurns: number,
): { roles: Role[]; warnings: Warning[] } {
  const warnings: Warning[] = [];
  const why =
    "the workspace is not trusted (pass --trust-workspace, set CHATCLI_TRUST_WORKSPACE=1 or add it to trusted_workspaces in ~/.chatcli/config.json)";
  for (const role of roles) {
    if (role.model !== undefined) {
      warnings.push({
        code: "untrusted_workspace_setting",
        message: `ignored model: ${role.model} of role @${role.name} from ${path}: ${why}`,
      });
      delete role.model;
    }
    if (role.maxTurns !== undefined && role.maxTurns > maxTurns) {
      warnings.push({
        code: "untrusted_workspace_setting",
        message: `ignored max_turns: ${role.maxTurns} of role @${role.name} from ${path} (above ${maxTurns}): ${why}`,
      });
      delete role.maxTurns;
    }
  }
  return { roles, warnings };
}

/**
 * The roles of a run: from the workspace root's AGENTS.md when it exists, else the global one (the
 * same shadowing as the bootstrap files); none with --bare or CHATCLI_BOOTSTRAP_ENABLED=false. The
 * workspace's file is narrowed unless the workspace is trusted (`narrowUntrusted`).
 */
export function loadRoles(
  env: Env,
  workspaceRoot: string,
  bare: boolean,
  trust: RoleTrust = { trusted: false, maxTurns: 50 },
): { roles: Role[]; warnings: Warning[] } {
  if (bare || !bootstrapEnabled(env)) return { roles: [], warnings: [] };
  const globalDir = bootstrapGlobalDir(env);
  for (const dir of [workspaceRoot, globalDir]) {
    const path = join(dir, "AGENTS.md");
    let text: string;
    if (dir === workspaceRoot) {
      // a link out of the workspace is not read (bootstrap warns `link_outside_workspace`)
      const read = readConfined(path, workspaceRoot);
      if (read.kind !== "ok") continue;
      text = neutraliseControls(read.raw.toString("utf8")).text;
    } else {
      try {
        text = neutraliseControls(readFileSync(path, "utf8")).text;
      } catch {
        continue;
      }
    }
    const parsed = parseRoles(text, path);
    if (trust.trusted || (dir === globalDir && resolve(dir) !== resolve(workspaceRoot)))
      return parsed;
    const narrowed = narrowUntrusted(parsed.roles, path, trust.maxTurns);
    return { roles: narrowed.roles, warnings: [...parsed.warnings, ...narrowed.warnings] };
  }
  return { roles: [], warnings: [] };
}

/** `@name rest…` at the start of a task naming a known role: that role and the rest of the task. */
export function roleOfTask(
  task: string,
  roles: readonly Role[],
): { role: Role; task: string } | undefined {
  const m = /^\s*@([A-Za-z0-9_.-]+)(?:\s+|$)([\s\S]*)$/.exec(task);
  if (!m) return undefined;
  const role = roles.find((r) => r.name === m[1]);
  return role ? { role, task: (m[2] as string).trim() } : undefined;
}
