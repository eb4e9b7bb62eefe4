import { Command } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { configuredSecrets } from "../lib/core/redact.ts";
import { CheckpointStore } from "../lib/history/checkpoints.ts";
import { loadSessionDoc } from "../lib/history/session.ts";
import { sessionDataDir } from "../lib/history/session-file.ts";
import { deleteSession, listSessions } from "../lib/history/session-list.ts";
import { estimateTokens } from "../lib/history/tokens.ts";
import { jsonDocument, stripControl } from "../lib/output/terminal.ts";
import { acceptOutputFormat, type RunState } from "./_shared.ts";
import { localTime } from "./rewind.ts";

function missing(name: string): never {
  throw new UsageError(`no session named ${JSON.stringify(name)}`, {
    reason: "bad_input",
    hint: "list them with: chatcli sessions list",
  });
}

/** `chatcli sessions list|show NAME|rm NAME`. */
export function sessionsCommand(ctx: Ctx, state: RunState) {
  const sessions = new Command("sessions").description(
    "saved conversations in ~/.chatcli/sessions/",
  );
  sessions.addCommand(
    new Command("list")
      .description("list saved sessions")
      .option("--json", "print one JSON document")
      .action(async (flags) => {
        const skipped: string[] = [];
        const list = await listSessions(ctx, skipped);
        for (const line of skipped)
          ctx.stderr.write(stripControl(`chatcli: warning: skipped ${line}\n`));
        if (flags.json) {
          // Files written by other tools (the Go ChatCLI) may hold raw secrets.
          ctx.stdout.write(jsonDocument(list, configuredSecrets(ctx.env)));
        } else if (list.length === 0) {
          ctx.stderr.write("No saved sessions found.\n");
        } else {
          for (const s of list) {
            const title = s.title ? ` — ${stripControl(s.title)}` : "";
            ctx.stdout.write(
              `${s.name}${title} (${s.messages} msgs, ${localTime(s.updated_at)})\n`,
            );
          }
        }
        state.exitCode = 0;
      }),
    { isDefault: true },
  );
  sessions.addCommand(
    new Command("show")
      .description("print a session's conversation")
      .argument("<name>")
      .option("--json", "print one JSON document")
      .action(async (name, flags) => {
        const doc = await loadSessionDoc(ctx, name, [], true);
        if (!doc) missing(name);
        const checkpoints = (await new CheckpointStore(sessionDataDir(ctx.env, name)).read())
          .checkpoints;
        if (flags.json) {
          const out = {
            name,
            title: doc.title,
            messages: doc.messages,
            tokens: estimateTokens(doc.messages),
            checkpoints: checkpoints.map((c) => ({
              id: c.id,
              created_at: c.created_at,
              label: c.label,
              message_count: c.message_count,
            })),
          };
          ctx.stdout.write(jsonDocument(out, configuredSecrets(ctx.env)));
          return;
        }
        const lines = [`# ${name}${doc.title ? ` — ${doc.title}` : ""}`, ""];
        for (const m of doc.messages) {
          const calls = (m.tool_calls ?? [])
            .map((c) => ` [tool call ${c.name} ${JSON.stringify(c.arguments)}]`)
            .join("");
          lines.push(
            `[${m.role}]${m.meta?.is_summary ? " (summary)" : ""} ${m.content}${calls}`,
            "",
          );
        }
        lines.push(
          `${doc.messages.length} messages, ~${estimateTokens(doc.messages)} tokens, ${checkpoints.length} checkpoints`,
        );
        ctx.stdout.write(`${stripControl(lines.join("\n"))}\n`);
      }),
  );
  sessions.addCommand(
    new Command("rm")
      .description("delete a session (and its checkpoints)")
      .argument("<name>")
      .option("--json", "print one JSON document")
      .action(async (name, flags) => {
        if (!(await deleteSession(ctx, name))) missing(name);
        if (flags.json) ctx.stdout.write(`${JSON.stringify({ name, deleted: true })}\n`);
        else ctx.stderr.write(`Session '${name}' deleted.\n`);
      }),
  );
  acceptOutputFormat(sessions);
  return sessions;
}
