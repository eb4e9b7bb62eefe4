import { Command, Option } from "@commander-js/extra-typings";
import { actionOf } from "../lib/agent/action.ts";
import { runCommandTool } from "../lib/agent/tools/run-command.ts";
import { detectWorkspaceRoot } from "../lib/bootstrap/workspace.ts";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { loadSettings } from "../lib/core/settings.ts";
import { jsonDocument, stripControl } from "../lib/output/terminal.ts";
import { type Decision, decide, type Part, parseRule } from "../lib/policy/permissions.ts";
import { buildPolicy } from "../lib/run/policy.ts";
import { acceptOutputFormat, type RunState } from "./_shared.ts";

const collectRule = (flag: string) => (value: string, previous: string[]) => {
  if (!parseRule(value))
    throw new UsageError(
      `${flag} ${JSON.stringify(value)} is not a rule: use TOOL or TOOL(PATTERN), e.g. 'run_command(npm test*)'`,
    );
  return [...previous, value];
};

/** What an `ask` verdict becomes where nobody can answer (CONTRACT §5). */
function unattended(d: Decision, onAsk: "deny" | "fail"): "allow" | "deny" | "fail" {
  if (d.verdict !== "ask") return d.verdict;
  return d.dangerous || onAsk === "deny" ? "deny" : "fail";
}

export interface PolicyReport {
  command: string;
  mode: string;
  workspace: string;
  verdict: Decision["verdict"];
  /** What the verdict becomes without a TTY (`ask` resolves by --on-ask; dangerous is denied). */
  unattended: "allow" | "deny" | "fail";
  dangerous: boolean;
  reason: string;
  /** The flag (or the rule to drop) that would allow it; null when it is allowed. */
  suggestion: string | null;
  /** Every part judged on its own: each simple command of `;`, `&&`, `|`, `$(…)` and each file written. */
  parts: Array<{
    subject: string;
    class: Part["cls"];
    verdict: Decision["verdict"];
    reason: string;
  }>;
  rules: { allow: string[]; deny: string[] };
}

/** `chatcli policy check -- CMD`: the permission decision for a command, explained. */
export function policyCommand(ctx: Ctx, state: RunState) {
  const policy = new Command("policy").description(
    "explain the permission policy: chatcli policy check -- CMD",
  );
  policy
    .command("check")
    .description(
      "explain the decision for a shell command (verdict, reason, parts, the flag that allows it)",
    )
    .argument("<cmd...>", "the command line (after --)")
    .addOption(
      new Option(
        "--permission-mode <mode>",
        "read-only, edit, auto or bypass (default: config, else read-only)",
      ).choices(["read-only", "edit", "auto", "bypass"]),
    )
    .option(
      "--allow-tool <pattern>",
      "an allow rule, as for agent (repeatable)",
      collectRule("--allow-tool"),
      [] as string[],
    )
    .option(
      "--deny-tool <pattern>",
      "a deny rule, as for agent (repeatable)",
      collectRule("--deny-tool"),
      [] as string[],
    )
    .addOption(
      new Option("--on-ask <action>", "what an ask becomes without a TTY (default deny)").choices([
        "deny",
        "fail",
      ]),
    )
    .option("--trust-workspace", "honour this workspace's .chatcli/config.json in full")
    .option("--json", "one JSON document")
    .action(async (words, opts) => {
      const workspaceRoot = detectWorkspaceRoot(ctx.cwd);
      const settings = await loadSettings(ctx, {
        workspaceRoot,
        trustWorkspace: opts.trustWorkspace === true,
      });
      // the same policy a run builds: config rules + flags, the same mode rules and errors
      const { policy: p } = buildPolicy({
        env: settings.env,
        config: settings.config,
        workspaceRoot,
        cwd: ctx.cwd,
        flag: opts.permissionMode,
        allowTool: opts.allowTool,
        denyTool: opts.denyTool,
        onAsk: opts.onAsk,
      });
      const cmd = words.join(" ");
      const parts: PolicyReport["parts"] = [];
      const decision = decide(p, actionOf(runCommandTool, { cmd }), (part, d) =>
        parts.push({
          subject: part.subject,
          class: part.cls,
          verdict: d.verdict,
          reason: d.reason,
        }),
      );
      const report: PolicyReport = {
        command: cmd,
        mode: p.mode,
        workspace: workspaceRoot,
        verdict: decision.verdict,
        unattended: unattended(decision, p.onAsk),
        dangerous: decision.dangerous,
        reason: decision.reason,
        suggestion: decision.verdict === "allow" ? null : (decision.suggestion ?? null),
        parts,
        rules: { allow: p.allow, deny: p.deny },
      };
      ctx.stdout.write(opts.json ? jsonDocument(report, []) : renderReport(report));
      state.exitCode = 0;
    });
  // --output-format json|stream-json and --jsonl, as every document command takes them
  acceptOutputFormat(policy);
  return policy;
}

/** The report as a person reads it. */
export function renderReport(r: PolicyReport): string {
  const lines = [
    `${r.verdict}: ${r.command}`,
    `  reason: ${r.reason}`,
    `  mode: ${r.mode}${r.dangerous ? " (dangerous: needs a typed yes on a TTY)" : ""}`,
    `  without a TTY: ${r.unattended}${r.verdict === "ask" ? " (--on-ask)" : ""}`,
  ];
  if (r.suggestion) lines.push(`  to allow: ${r.suggestion}`);
  if (r.parts.length > 1 || (r.parts[0] && r.parts[0].subject !== r.command)) {
    lines.push("  parts:");
    for (const part of r.parts)
      lines.push(
        `    ${part.verdict.padEnd(5)} ${part.class.padEnd(9)} ${part.subject} — ${part.reason}`,
      );
  }
  return `${stripControl(lines.join("\n"))}\n`;
}
