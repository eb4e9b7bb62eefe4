import { Command } from "@commander-js/extra-typings";
import { detectWorkspaceRoot } from "../lib/bootstrap/workspace.ts";
import type { Ctx } from "../lib/core/ctx.ts";
import { stripControl } from "../lib/output/terminal.ts";
import { configReport, renderConfig } from "../lib/run/config-report.ts";
import { acceptOutputFormat, type RunState } from "./_shared.ts";

/** `chatcli config [--json]` — the effective settings and where each came from. */
export function configCommand(ctx: Ctx, _state: RunState) {
  const command = new Command("config")
    .description("the effective settings and where each came from (secrets shown as set/unset)")
    .option("-m, --model <provider/model>", "show what this -m would resolve to")
    .option("--permission-mode <mode>", "show the mode with this flag")
    .option("--json", "print one JSON document")
    .addHelpText(
      "after",
      `
Sources, highest first: flag, env (the process environment), .env (CHATCLI_DOTENV or ./.env),
workspace config (.chatcli/config.json of the project), user config (~/.chatcli/config.json).

Examples:
  chatcli config                               # which model a bare \`chatcli ask\` would use, and why
  chatcli config --json | jq '.variables[] | select(.source == "workspace config")'
  chatcli config -m anthropic/claude-sonnet-4-6 --permission-mode edit
`,
    )
    .action(async (flags) => {
      const report = await configReport(ctx, {
        workspaceRoot: detectWorkspaceRoot(ctx.cwd),
        model: flags.model,
        permissionMode: flags.permissionMode,
      });
      ctx.stdout.write(
        flags.json ? `${JSON.stringify(report)}\n` : stripControl(renderConfig(report)),
      );
    });
  acceptOutputFormat(command);
  return command;
}
