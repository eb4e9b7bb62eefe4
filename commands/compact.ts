import { Command, Option } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { outputFormatOf, outputFormatOptions, parsePositiveInt, type RunState } from "./_shared.ts";
import { type CompactFlags, runCompact } from "./compact-run.ts";

function parseRatio(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 1) throw new UsageError("--ratio must be in (0, 1]");
  return n;
}

/** `chatcli compact`: a filter that compacts a conversation in any supported format. */
export function compactCommand(ctx: Ctx, state: RunState) {
  const command = new Command("compact")
    .description(
      "compact a conversation (ChatCLI session/messages, OpenAI or Anthropic body) from stdin, FILE or --session",
    )
    .argument("[file]", "read the conversation from FILE instead of stdin (- = stdin)")
    .option("--session <name>", "compact a saved session in place")
    .option("--instruction <text>", "guided: what the summary must keep")
    .addOption(
      new Option("--level <n>", "highest level allowed: 1 trim, 2 summarise, 3 truncate")
        .choices(["1", "2", "3"])
        .default("3"),
    )
    .option("--no-llm", "levels 1 and 3 only (no model call)")
    .option("--budget <tokens>", "target size in tokens", parsePositiveInt("--budget"))
    .option(
      "--window <tokens>",
      "context window in tokens (with --ratio)",
      parsePositiveInt("--window"),
    )
    .option("--ratio <r>", "fraction of the window to aim for (default 0.5)", parseRatio)
    .option(
      "--keep <n>",
      "messages kept verbatim at the end (default 10, 4 with --instruction)",
      parsePositiveInt("--keep"),
    )
    .option("-m, --model <model>", "summariser model, provider/model")
    .addOption(
      new Option("--fake-responses <file>", "scripted responses for mock:script").hideHelp(),
    );
  for (const option of outputFormatOptions()) command.addOption(option);
  return command.action(async (file, flags) => {
    const opts = flags as CompactFlags;
    state.exitCode = await runCompact(ctx, file, opts, outputFormatOf(opts));
  });
}
