import { Command } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { toChatcliError, UsageError } from "../lib/core/errors.ts";
import { configuredSecrets } from "../lib/core/redact.ts";
import type { CheckpointRecord } from "../lib/history/checkpoints.ts";
import {
  applyRewind,
  planRewind,
  type RewindPlan,
  type RewindScope,
} from "../lib/history/rewind.ts";
import { openSession, type Session } from "../lib/history/session.ts";
import { latestSessionForWorkspace } from "../lib/history/session-list.ts";
import { settle } from "../lib/output/envelope.ts";
import { newEnvelope } from "../lib/output/fold.ts";
import { Reporter } from "../lib/output/reporter.ts";
import { jsonDocument, stripControl } from "../lib/output/terminal.ts";
import { outputFormatOf, outputFormatOptions, parsePositiveInt, type RunState } from "./_shared.ts";

interface RewindFlags {
  session?: string;
  list?: boolean;
  to?: number;
  code?: boolean;
  conversation?: boolean;
  both?: boolean;
  dryRun?: boolean;
  force?: boolean;
  outputFormat?: string;
  json?: boolean;
  jsonl?: boolean;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** Local `YYYY-MM-DD HH:MM:SS`. */
export function localTime(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function scopeOf(flags: RewindFlags): RewindScope {
  const picked = [
    flags.code ? "code" : undefined,
    flags.conversation ? "conversation" : undefined,
    flags.both ? "both" : undefined,
  ].filter((s): s is RewindScope => s !== undefined);
  if (picked.length > 1) throw new UsageError("choose one of --code, --conversation, --both");
  return picked[0] ?? "conversation";
}

async function resolveSession(ctx: Ctx, name: string | undefined): Promise<Session> {
  const chosen = name ?? (await latestSessionForWorkspace(ctx, ctx.cwd));
  if (chosen === undefined) {
    throw new UsageError("no session for this workspace", {
      hint: "pass --session NAME (see chatcli sessions list)",
    });
  }
  const session = await openSession(ctx, { name: chosen, strict: true });
  if (session.isNew) {
    throw new UsageError(`no session named ${JSON.stringify(chosen)}`, {
      reason: "bad_input",
      hint: "list them with: chatcli sessions list",
    });
  }
  return session;
}

function checkpointJson(cp: CheckpointRecord) {
  return {
    id: cp.id,
    created_at: cp.created_at,
    label: cp.label,
    message_count: cp.message_count,
    files: cp.files.map((f) => ({ path: f.path, existed: f.existed })),
  };
}

function listText(name: string, list: CheckpointRecord[]): string {
  if (list.length === 0) return `No checkpoints available yet in session '${name}'.`;
  const lines = [`Checkpoints of session '${name}' (restore with: chatcli rewind --to ID):`];
  lines.push("   ID  TIME                 MSGS  FILES  LABEL");
  for (const cp of [...list].reverse()) {
    lines.push(
      `${String(cp.id).padStart(5)}  ${localTime(cp.created_at)}  ${String(cp.message_count).padStart(4)}  ${String(cp.files.length).padStart(5)}  ${cp.label}`,
    );
  }
  return lines.join("\n");
}

function planText(name: string, plan: RewindPlan, dryRun: boolean): string {
  const cp = plan.checkpoint;
  const verb = dryRun ? "Would rewind" : "↩ Rewound";
  const what =
    plan.scope === "code"
      ? "files only"
      : `${plan.messagesAfter} messages; was ${plan.messagesBefore}`;
  const lines = [
    `${verb} session '${name}' to checkpoint ${cp.id} (${localTime(cp.created_at)}, ${what})`,
  ];
  for (const f of plan.files) {
    const note = f.conflict && f.action !== "unchanged" ? "  [changed since chatcli wrote it]" : "";
    const action =
      f.action === "delete"
        ? "deleted (created by chatcli)"
        : f.action === "restore"
          ? `restored (${f.change})`
          : f.action === "unrestorable"
            ? `NOT restorable (${f.snapshot.unrestorable})`
            : "unchanged";
    lines.push(`  ${action}: ${f.path}${note}`);
  }
  if (plan.scope !== "conversation" && plan.files.length === 0)
    lines.push("  no files were touched by tools since this checkpoint");
  if (plan.removedCheckpoints.length > 0)
    lines.push(`  removed checkpoints: ${plan.removedCheckpoints.join(", ")}`);
  return lines.join("\n");
}

/** `chatcli rewind`: list or restore a session's checkpoints (conversation and/or files). */
export function rewindCommand(ctx: Ctx, state: RunState) {
  const command = new Command("rewind")
    .description(
      "list or restore checkpoints of a session (conversation, and files touched by tools)",
    )
    .option("--session <name>", "the session (default: the latest of this workspace)")
    .option("--list", "list checkpoints (the default without --to)")
    .option("--to <id>", "restore this checkpoint", parsePositiveInt("--to"))
    .option("--code", "restore files only")
    .option("--conversation", "restore the conversation only (default)")
    .option("--both", "restore conversation and files")
    .option("--dry-run", "show what would be restored, change nothing")
    .option("--force", "overwrite files changed since the checkpoint");
  for (const option of outputFormatOptions()) command.addOption(option);
  return command.action(async (flags) => {
    state.exitCode = await runRewind(ctx, flags as RewindFlags);
  });
}

async function runRewind(ctx: Ctx, flags: RewindFlags): Promise<number> {
  const format = outputFormatOf(flags);
  if (flags.to === undefined && flags.session === undefined) {
    // Listing is read-only: no session for this workspace is an empty list, not an error.
    const latest = await latestSessionForWorkspace(ctx, ctx.cwd);
    if (latest === undefined) {
      if (format === "text") ctx.stdout.write("No sessions with checkpoints for this workspace.\n");
      else ctx.stdout.write(`${JSON.stringify({ session: null, checkpoints: [] })}\n`);
      return 0;
    }
  }
  const session = await resolveSession(ctx, flags.session);
  const name = session.name as string;
  if (flags.to === undefined) {
    const list = await session.listCheckpoints();
    const doc = { session: name, checkpoints: list.map(checkpointJson) };
    if (format === "text") ctx.stdout.write(`${stripControl(listText(name, list))}\n`);
    else ctx.stdout.write(jsonDocument(doc, configuredSecrets(ctx.env)));
    return 0;
  }
  const scope = scopeOf(flags);
  const started = Date.now();
  const envelope = newEnvelope("rewind", ctx.version);
  envelope.session_id = name;
  const reporter = new Reporter(ctx, { format, envelope });
  let plan: RewindPlan | undefined;
  try {
    plan = await planRewind(session, flags.to, scope);
    const conflicts = plan.files.filter((f) => f.conflict && f.action !== "unchanged");
    if (!flags.dryRun || (conflicts.length > 0 && !flags.force)) {
      await applyRewind(session, flags.dryRun ? { ...plan, files: conflicts } : plan, {
        force: flags.force,
      });
    }
    const text = planText(name, plan, flags.dryRun === true);
    envelope.result = text;
    reporter.print(text);
    settle(envelope, "completed");
  } catch (error) {
    if (plan) reporter.info(planText(name, plan, true));
    reporter.fail(toChatcliError(error));
  }
  if (plan) {
    const remaining = await session.listCheckpoints();
    envelope.checkpoints = { count: remaining.length, last: remaining.at(-1)?.id ?? null };
    envelope.files_changed = plan.files
      .filter((f) => f.change !== null && !flags.dryRun && envelope.exit_code === 0)
      .map((f) => ({ path: f.path, change: f.change as "created" | "modified" | "deleted" }));
    Object.assign(envelope, {
      rewind: {
        checkpoint: plan.checkpoint.id,
        scope,
        dry_run: flags.dryRun === true,
        messages_before: plan.messagesBefore,
        messages_after: plan.messagesAfter,
        files: plan.files.map((f) => ({
          path: f.path,
          action: f.action,
          change: f.change,
          conflict: f.conflict,
          reason: f.snapshot.unrestorable ?? null,
        })),
        removed_checkpoints: plan.removedCheckpoints,
      },
    });
  }
  envelope.duration_ms = Date.now() - started;
  reporter.finish();
  return envelope.exit_code;
}
