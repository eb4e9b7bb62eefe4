import { outboundDenied, outboundVerdict, secretRefusal } from "./outbound.ts";
import { wildcardMatch } from "./patterns.ts";
import type {
  Action,
  Decision,
  PermissionMode,
  PermissionPolicy,
  Rule,
  ToolKind,
  Verdict,
} from "./policy-types.ts";
import { type Cls, type Part, pathPart, shellParts } from "./shell-judge.ts";
import { isInside, toAbsolute } from "./workspace.ts";

export type { Action, Decision, Part, PermissionMode, PermissionPolicy, Rule, ToolKind, Verdict };

/** The values of --permission-mode, least to most permissive. */
export const PERMISSION_MODES: readonly PermissionMode[] = ["read-only", "edit", "auto", "bypass"];

const RANK: Record<Verdict, number> = { allow: 0, ask: 1, deny: 2 };

/** `*` as a wildcard, matched in linear-bounded time (a rule may come from a workspace config). */
function wildcard(glob: string): { readonly glob: string; test(text: string): boolean } {
  return { glob, test: (text) => wildcardMatch(glob, text) };
}

/**
 * The run's mode: the flag, else config, else read-only. A config file (maybe the repository's
 * own) never switches every check off: its bypass becomes auto, with a warning.
 */
export function resolvePermissionMode(
  flag: string | undefined,
  config: string | undefined,
): { mode: PermissionMode; warning?: string } | { error: string } {
  const mode = (flag ?? config ?? "read-only") as PermissionMode;
  if (!PERMISSION_MODES.includes(mode))
    return {
      error: `permission mode ${JSON.stringify(mode)} is not one of ${PERMISSION_MODES.join(", ")}`,
    };
  if (mode === "bypass" && !flag)
    return {
      mode: "auto",
      warning:
        "permissions.mode bypass in config.json is not honoured (auto is used); pass --permission-mode bypass",
    };
  return { mode };
}

/** The rules that do not parse (quoted), to report instead of silently dropping. */
export function invalidRules(rules: string[]): string[] {
  return rules.filter((r) => !parseRule(r)).map((r) => JSON.stringify(r));
}

/** Parses `tool` or `tool(pattern)` (tool names may use `*`). */
export function parseRule(text: string): Rule | undefined {
  const m = /^\s*([A-Za-z0-9_*@-]+)\s*(?:\((.*)\))?\s*$/s.exec(text);
  if (!m) return undefined;
  return { tool: wildcard(m[1] as string), arg: m[2], text: text.trim() };
}

function ruleMatches(
  rule: Rule,
  tool: Pick<Action, "tool" | "kind">,
  subject: string,
  absPath?: string,
): boolean {
  if (!rule.tool.test(tool.tool)) return false;
  if (rule.arg === undefined || rule.arg === "*" || rule.arg === "**") return true;
  if (tool.kind === "edit" || absPath) {
    const glob = new Bun.Glob(rule.arg);
    return glob.match(subject) || (absPath !== undefined && glob.match(absPath));
  }
  return wildcard(rule.arg).test(subject);
}

/** A rule that names what it allows (`run_command(rm -rf build)`), not just a tool. */
function specific(rule: Rule): boolean {
  return rule.arg !== undefined && !/^\**$/.test(rule.arg.trim());
}

function modeVerdict(cls: Cls, mode: PermissionMode): Verdict {
  if (mode === "bypass" || cls === "read") return "allow";
  if (cls === "outside" || cls === "secret") return "deny";
  if (cls === "dangerous" || cls === "unknown") return "ask";
  if (cls === "edit") return mode === "read-only" ? "ask" : "allow";
  return mode === "auto" ? "allow" : "ask";
}

const MODE_REASON: Record<Cls, (mode: PermissionMode) => string> = {
  read: () => "read",
  edit: (mode) => `edits need --permission-mode edit (${mode} mode)`,
  shell: (mode) => `commands other than read-only ones need --permission-mode auto (${mode} mode)`,
  dangerous: () => "dangerous command",
  outside: () => "write outside the workspace",
  secret: () => "read of a protected path",
  unknown: () => "write to a location known only at run time",
};

/** Judges one tool call: deny rules > allow rules > the mode table; every shell part must pass. */
export function decide(
  policy: PermissionPolicy,
  action: Action,
  /** Sees each part's own decision (`chatcli policy check` explains with them). */
  onPart?: (part: Part, decision: Decision) => void,
): Decision {
  const tool = action;
  const rules = {
    allow: policy.allow.map(parseRule).filter((r): r is Rule => r !== undefined),
    deny: policy.deny.map(parseRule).filter((r): r is Rule => r !== undefined),
  };
  const subject = action.subject;
  if (action.kind === "network") return decideNetwork(policy, action, rules);
  for (const rule of rules.deny) {
    if (ruleMatches(rule, tool, subject)) {
      return {
        verdict: "deny",
        reason: `denied by rule ${rule.text}`,
        dangerous: false,
        suggestion: `remove the rule ${rule.text}`,
      };
    }
  }
  const parts = partsOf(policy, action);
  let worst: Decision = {
    verdict: "allow",
    reason: policy.mode === "bypass" ? "bypass mode" : `${policy.mode} mode`,
    dangerous: false,
  };
  for (const part of parts) {
    const partTool =
      part.abs && tool.kind !== "edit"
        ? { ...tool, tool: "write_file", kind: "edit" as const }
        : tool;
    const denied = rules.deny.find((r) => ruleMatches(r, partTool, part.subject, part.abs));
    let d: Decision;
    if (denied) {
      d = {
        verdict: "deny",
        reason: `denied by rule ${denied.text}`,
        dangerous: false,
        suggestion: `remove the rule ${denied.text}`,
      };
    } else if (
      part.cls !== "secret" &&
      rules.allow.some(
        (r) =>
          (ruleMatches(r, partTool, part.subject, part.abs) ||
            // `--allow-tool 'run_command(touch *)'` covers the files `touch` writes in the workspace
            (part.cls === "edit" &&
              part.command !== undefined &&
              ruleMatches(r, tool, part.command))) &&
          // a bare `run_command` or `write_file(*)` never waves through rm -rf or /etc writes
          ((part.cls !== "dangerous" && part.cls !== "outside") || specific(r)),
      )
    ) {
      d = { verdict: "allow", reason: "allowed by rule", dangerous: false };
    } else {
      const verdict = modeVerdict(part.cls, policy.mode);
      const label =
        part.cls === "dangerous" || part.cls === "outside"
          ? `${MODE_REASON[part.cls](policy.mode)}: ${part.reason ?? part.subject}`
          : (part.reason ?? MODE_REASON[part.cls](policy.mode));
      d = {
        verdict,
        reason: verdict === "allow" ? worst.reason : label,
        dangerous: part.cls === "dangerous" && verdict !== "allow",
        outside: part.cls === "outside" && policy.mode === "bypass",
      };
      if (verdict !== "allow") d.suggestion = suggest(part, partTool.tool);
    }
    // an allowed part carries the run's worst reason so far: its own is the mode's
    const own = policy.mode === "bypass" ? "bypass mode" : `${policy.mode} mode`;
    onPart?.(part, d.verdict === "allow" && d.reason === worst.reason ? { ...d, reason: own } : d);
    if (
      RANK[d.verdict] > RANK[worst.verdict] ||
      (d.verdict === worst.verdict && d.dangerous && !worst.dangerous)
    )
      worst = d;
    if (d.outside) worst.outside = true;
  }
  return worst;
}

/** An outbound call: a secret never leaves; deny rules; then open (auto) or allowed by a rule. */
function decideNetwork(
  policy: PermissionPolicy,
  action: Action,
  rules: { allow: Rule[]; deny: Rule[] },
): Decision {
  const secret = secretRefusal(action, policy.secrets);
  if (secret) return secret;
  const denied = rules.deny.find((r) => outboundDenied(r, action));
  if (denied)
    return {
      verdict: "deny",
      reason: `denied by rule ${denied.text}`,
      dangerous: false,
      suggestion: `remove the rule ${denied.text}`,
    };
  return outboundVerdict(policy.mode, rules.allow, action);
}

/**
 * The files inside the workspace a call will write, as far as the policy can tell (shell redirects,
 * `touch`, `sed -i`, `tee`, …): snapshotted before it runs, so rewind can restore them.
 */
export function plannedWrites(policy: PermissionPolicy, action: Action): string[] {
  return partsOf(policy, action)
    .filter((p) => p.cls === "edit" && p.abs !== undefined)
    .map((p) => p.abs as string);
}

function suggest(part: Part, toolName: string): string {
  const rule = `--allow-tool '${toolName}(${part.subject.replace(/'/g, "")})'`;
  switch (part.cls) {
    case "edit":
      return `--permission-mode edit or ${rule}`;
    case "shell":
      return `--permission-mode auto or ${rule}`;
    case "dangerous":
      return `${rule} (or --permission-mode bypass)`;
    case "secret":
      return "--permission-mode bypass (protected paths are not read in any other mode)";
    default:
      return `--permission-mode bypass or ${rule}`;
  }
}

function partsOf(policy: PermissionPolicy, action: Action): Part[] {
  if (action.kind === "read" || action.kind === "network" || action.kind === "memory") {
    return [{ cls: "read", subject: action.subject }];
  }
  if (action.kind === "edit") {
    const paths = action.writes ?? [action.subject];
    return paths.map((p) => pathPart(policy, p, policy.cwd));
  }
  const line = action.cmd ?? "";
  const dir =
    action.dir !== undefined ? toAbsolute(policy.cwd, action.dir, policy.home) : policy.cwd;
  if (!line) {
    // run_tests with no cmd: the detected runner writes where it runs
    const subject = action.subject;
    const away = !isInside(policy.workspaceRoot, dir);
    const reason = `${subject} runs in ${dir}, outside the workspace`;
    return [
      { cls: "shell", subject },
      ...(away ? [{ cls: "outside" as const, subject, reason }] : []),
    ];
  }
  return shellParts(policy, line, dir);
}
