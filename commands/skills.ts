import { Command } from "@commander-js/extra-typings";
import { detectWorkspaceRoot } from "../lib/bootstrap/workspace.ts";
import type { Ctx } from "../lib/core/ctx.ts";
import { configuredSecrets } from "../lib/core/redact.ts";
import { loadSettings } from "../lib/core/settings.ts";
import { jsonDocument, quotedLine, stripControl } from "../lib/output/terminal.ts";
import { acceptOutputFormat, type RunState } from "./_shared.ts";

/** `chatcli skills list`: SKILL.md skills with their scope and source. */
export function skillsCommand(ctx: Ctx, state: RunState) {
  const root = new Command("skills").description(
    "SKILL.md skills (~/.chatcli/skills, .agent/skills, .claude/skills)",
  );
  root.addCommand(
    new Command("list")
      .description("every skill: scope (global or workspace), source path, triggers and paths")
      .option("--json", "print one JSON document")
      .option("--trust-workspace", "show the workspace's skills as trusted")
      .action(async (flags) => {
        const workspaceRoot = detectWorkspaceRoot(ctx.cwd);
        const settings = await loadSettings(ctx, {
          workspaceRoot,
          trustWorkspace: flags.trustWorkspace,
        });
        const { listSkills } = await import("../lib/extensions/inspect.ts");
        const { rows, warnings } = await listSkills({
          env: settings.env,
          workspaceRoot,
          trusted: settings.trust.trusted,
        });
        for (const w of warnings) ctx.stderr.write(`chatcli: warning: ${quotedLine(w.message)}\n`);
        if (flags.json) ctx.stdout.write(jsonDocument(rows, configuredSecrets(settings.redactEnv)));
        else if (!rows.length)
          ctx.stderr.write(
            "No skills found (~/.chatcli/skills/<name>/SKILL.md, .agent/skills/<name>/SKILL.md).\n",
          );
        else
          for (const r of rows) {
            const when = [
              r.triggers.length ? `triggers: ${r.triggers.join(", ")}` : "",
              r.paths.length ? `paths: ${r.paths.join(", ")}` : "",
              r.model_invocable ? "" : "only /name",
            ]
              .filter(Boolean)
              .join("; ");
            const desc = r.description.replace(/\s+/g, " ").trim();
            ctx.stdout.write(
              stripControl(
                `${r.name}  ${r.scope}${r.trusted ? "" : " (untrusted: only narrows)"}  ${desc}${when ? `  [${when}]` : ""}  (${r.path})\n`,
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
