import { Command, Option } from "@commander-js/extra-typings";
import type { PromptMode } from "../lib/bootstrap/context.ts";
import type { MemorySource } from "../lib/bootstrap/show.ts";
import type { Ctx } from "../lib/core/ctx.ts";
import { toChatcliError } from "../lib/core/errors.ts";
import { redactDeep } from "../lib/core/redact.ts";
import { newEnvelope } from "../lib/output/fold.ts";
import { type OutputFormat, Reporter } from "../lib/output/reporter.ts";
import { jsonDocument, quotedLine, stripControl } from "../lib/output/terminal.ts";
import { collect, outputFormatOf, outputFormatOptions, type RunState } from "./_shared.ts";

type FormatFlags = { outputFormat?: string; json?: boolean; jsonl?: boolean };

function addFormats(command: { addOption(option: Option): unknown }): void {
  for (const option of outputFormatOptions()) command.addOption(option);
}

/** Runs `body`; in json modes a failure still prints one JSON object (an error envelope). */
async function guarded(
  ctx: Ctx,
  state: RunState,
  name: string,
  format: OutputFormat,
  body: () => Promise<void>,
): Promise<void> {
  try {
    await body();
  } catch (error) {
    if (format === "text") throw error;
    const failure = toChatcliError(error);
    // a document command: with --jsonl too, the failure is one envelope line (as --json)
    const reporter = new Reporter(ctx, {
      format: "json",
      envelope: newEnvelope(name, ctx.version),
    });
    reporter.fail(failure);
    reporter.finish();
    state.exitCode = failure.exitCode;
  }
}

function printJson(ctx: Ctx, value: unknown): void {
  // (the text mode keeps the files' bytes exact; JSON never carries escape sequences)
  ctx.stdout.write(jsonDocument(value, []));
}

/**
 * The memory part exactly as ask/agent/coder/chat build it from ~/.chatcli/memory, without counting
 * the preview as an access (showing the prompt must not change the scores that rank the next one).
 */
function storeMemory(ctx: Ctx, prompt: string): MemorySource {
  return async (q) => {
    const { memoryForPrompt } = await import("../lib/memory/prompt.ts");
    const result = await memoryForPrompt({
      env: q.env,
      cwd: q.cwd,
      workspace: q.workspaceRoot,
      now: ctx.now,
      mode: q.memoryMode,
      query: prompt,
      surface: q.mode === "agent" || q.mode === "coder" ? "agent" : "chat",
      track: false,
      warn: (line) => ctx.stderr.write(`${line}\n`),
    });
    return { stable: result.stable, volatile: result.volatile };
  };
}

/** `chatcli bootstrap show|path`; `memory` replaces the store's memory (tests). */
export function bootstrapCommand(ctx: Ctx, state: RunState, memory?: MemorySource) {
  const command = new Command("bootstrap").description(
    "the bootstrap files, path rules and attached context that go into the system prompt",
  );
  const show = new Command("show")
    .description("print the exact system context a command would send now")
    .argument("[prompt...]", "a prompt: paths named in it select path-specific rules")
    .addOption(
      new Option("--mode <mode>", "which command's context")
        .choices(["ask", "agent", "coder", "chat"])
        .default("ask"),
    )
    .option("-f, --file <path>", "attach a file or glob (repeatable)", collect, [] as string[])
    .option("--bare", "skip bootstrap files, rules and memory")
    .option("--no-bootstrap", "same as --bare")
    .option("-m, --model <provider/model>", "the model whose context to show (default: as ask)");
  addFormats(show);
  show.action(async (words, opts) => {
    const format = outputFormatOf(opts as FormatFlags);
    await guarded(ctx, state, "bootstrap show", format, async () => {
      // Loaded on use, so other commands (and --version) do not pay for it.
      const { showSystemContext } = await import("../lib/bootstrap/show.ts");
      const { document, secrets } = await showSystemContext(ctx, {
        mode: opts.mode as PromptMode,
        files: opts.file,
        prompt: words.join(" "),
        bare: Boolean(opts.bare) || opts.bootstrap === false,
        model: opts.model,
        memory: memory ?? storeMemory(ctx, words.join(" ")),
        blocksOnly: format === "text",
      });
      // JSON output never carries secrets (CONTRACT §9); the text is the exact prompt.
      if (format !== "text") return printJson(ctx, redactDeep(document, secrets));
      for (const w of document.warnings)
        ctx.stderr.write(`chatcli: warning: ${quotedLine(w.message, secrets)}\n`);
      // Blocks joined as a single-string system prompt carries them (OpenAI-compatible APIs); the
      // Anthropic API gets the same blocks separately, the block headers on stderr show the cut.
      const separator = "\n\n";
      const blocks = document.blocks;
      blocks.forEach((b, i) => {
        const kind = b.cache ? "cached" : "volatile";
        const header = `── ${i + 1}/${blocks.length} ${b.id} (${kind}, ~${b.tokens_estimate} tokens) ──`;
        ctx.stderr.write(`${header}\n`);
        // Exact in a pipe; on a terminal, escape sequences from the files are not replayed.
        const text = ctx.stdout.isTTY ? stripControl(b.text) : b.text;
        ctx.stdout.write(`${text}${i < blocks.length - 1 ? separator : "\n"}`);
      });
    });
  });
  const path = new Command("path").description(
    "print the directories searched for bootstrap files and rules",
  );
  addFormats(path);
  path.action(async (opts) => {
    const format = outputFormatOf(opts as FormatFlags);
    await guarded(ctx, state, "bootstrap path", format, async () => {
      const { bootstrapPaths } = await import("../lib/bootstrap/show.ts");
      const doc = await bootstrapPaths(ctx);
      if (format !== "text") return printJson(ctx, doc);
      const lines = [
        ...doc.bootstrap_dirs.map(
          (d) => `${d.scope === "workspace" ? "workspace" : "global"}\t${d.dir}`,
        ),
        ...doc.rule_dirs.map((d) => `rules\t${d.dir}`),
      ];
      ctx.stdout.write(`${lines.join("\n")}\n`);
    });
  });
  return command.addCommand(show, { isDefault: true }).addCommand(path);
}
