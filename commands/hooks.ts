import { Command } from "@commander-js/extra-typings";
import { detectWorkspaceRoot } from "../lib/bootstrap/workspace.ts";
import type { Ctx } from "../lib/core/ctx.ts";
import { configuredSecrets } from "../lib/core/redact.ts";
import { loadSettings } from "../lib/core/settings.ts";
import { jsonDocument, stripControl } from "../lib/output/terminal.ts";
import { acceptOutputFormat, type RunState } from "./_shared.ts";

/** `chatcli hooks list`: hooks.json hooks with their scope and source. */
export function hooksCommand(ctx: Ctx, state: RunState) {
  const root = new Command("hooks").description(
    "hooks.json hooks (~/.chatcli/hooks.json, a trusted workspace's .chatcli/hooks.json)",
  );
  root.addCommand(
    new Command("list")
      .description("every hook: event, type, what it runs, scope, source, and whether it is active")
      .option("--json", "print one JSON document")
      .option("--trust-workspace", "count the workspace's .chatcli/hooks.json")
      .action(async (flags) => {
        const workspaceRoot = detectWorkspaceRoot(ctx.cwd);
        const settings = await loadSettings(ctx, {
          workspaceRoot,
          trustWorkspace: flags.trustWorkspace,
        });
        const { listHooks } = await import("../lib/extensions/inspect.ts");
        const { rows, warnings } = await listHooks({
          env: settings.env,
          workspaceRoot,
          trusted: settings.trust.trusted,
        });
        for (const w of warnings)
          ctx.stderr.write(stripControl(`chatcli: warning: ${w.message}\n`));
        if (flags.json) ctx.stdout.write(jsonDocument(rows, configuredSecrets(settings.redactEnv)));
        else if (!rows.length) ctx.stderr.write("No hooks configured (~/.chatcli/hooks.json).\n");
        else
          for (const r of rows) {
            const what = r.type === "command" ? r.command : r.url;
            const status = !r.enabled
              ? "disabled"
              : r.active
                ? "active"
                : "not active: the workspace is not trusted (--trust-workspace)";
            ctx.stdout.write(
              stripControl(
                `${r.name}  ${r.event}${r.tool_pattern ? `(${r.tool_pattern})` : ""}  ${r.type}: ${what}  ${r.scope}, ${status}  (${r.source})\n`,
              ),
            );
          }
        state.exitCode = 0;
      }),
    { isDefault: true },
  );
  acceptOutputFormat(root);
  return root;
}
