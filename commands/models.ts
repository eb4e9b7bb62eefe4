import { Command } from "@commander-js/extra-typings";
import { detectWorkspaceRoot } from "../lib/bootstrap/workspace.ts";
import type { Ctx } from "../lib/core/ctx.ts";
import { loadSettings } from "../lib/core/settings.ts";
import { acceptOutputFormat, type RunState } from "./_shared.ts";

/** `chatcli models [--json]`: providers (configured or not, by which variable), models, windows, prices. */
export function modelsCommand(ctx: Ctx, state: RunState) {
  const command = new Command("models")
    .description(
      "providers (configured or not, by which variable), default and known models, context windows, prices",
    )
    .option("--json", "print one JSON document")
    .action(async (flags) => {
      const settings = await loadSettings(ctx, { workspaceRoot: detectWorkspaceRoot(ctx.cwd) });
      // Loaded on use: the price table and the provider table are not start-up costs of other commands.
      const { modelsDocument, renderModels } = await import("../lib/llm/catalogue.ts");
      const doc = modelsDocument(settings.env, settings.config.model);
      ctx.stdout.write(flags.json ? `${JSON.stringify(doc)}\n` : renderModels(doc));
      state.exitCode = 0;
    });
  acceptOutputFormat(command);
  return command;
}
