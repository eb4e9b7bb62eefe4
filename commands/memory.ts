import { Command, Option } from "@commander-js/extra-typings";
import { detectWorkspaceRoot } from "../lib/bootstrap/workspace.ts";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { goTrimSpace } from "../lib/core/gostrings.ts";
import { readStdin } from "../lib/core/input.ts";
import { configuredSecrets } from "../lib/core/redact.ts";
import { loadSettings } from "../lib/core/settings.ts";
import { renderMarkdown } from "../lib/memory/facts.ts";
import { localDate } from "../lib/memory/gotime.ts";
import { memoryFiles, memoryStats } from "../lib/memory/inventory.ts";
import { parseFlexibleDate, readDaily, recentNotes } from "../lib/memory/notes.ts";
import { listFacts, recall } from "../lib/memory/ops.ts";
import {
  hitsJson,
  panel,
  renderFacts,
  renderFiles,
  renderHits,
  renderNote,
  renderProjects,
  renderStats,
  renderTopics,
  renderWeek,
} from "../lib/memory/render.ts";
import { loadFacts, type Memory, openMemory } from "../lib/memory/store.ts";
import { loadProjects, loadTopics } from "../lib/memory/tracking.ts";
import { jsonDocument, quotedLine, stripControl } from "../lib/output/terminal.ts";
import type { RunState } from "./_shared.ts";
import { acceptOutputFormat, closest, FORMAT_CHOICES, parsePositiveInt } from "./_shared.ts";
import { addMemoryEditCommands } from "./memory-edit.ts";
import { addMemoryReviewCommand } from "./memory-review.ts";

type Json = { json?: boolean };

/** `chatcli memory` — the persistent memory store (CONTRACT §7). */
export function memoryCommand(ctx: Ctx, _state: RunState) {
  // Settings layer .env and config.json "env" under the process env (CHATCLI_MEMORY_* may live there).
  const mem = async (): Promise<Memory> => {
    const workspace = detectWorkspaceRoot(ctx.cwd);
    const { env, warnings } = await loadSettings(ctx, { workspaceRoot: workspace });
    // a .env the Go tool rejects is not loaded here either: say so, the variables are missing
    for (const w of warnings)
      if (w.code === "dotenv_invalid" || w.code === "link_outside_workspace")
        ctx.stderr.write(`chatcli: warning: ${quotedLine(w.message)}\n`);
    return openMemory({
      env,
      now: ctx.now,
      workspace,
      warn: (line) => ctx.stderr.write(`${line}\n`),
    });
  };
  const out = (opts: Json, value: unknown, text: string | (() => string)) => {
    // Facts and notes hold whatever was remembered: no escape sequence reaches the terminal.
    ctx.stdout.write(
      opts.json
        ? jsonDocument(value, configuredSecrets(ctx.env))
        : stripControl(typeof text === "string" ? text : text()),
    );
  };
  const json = () => new Option("--json", "print one JSON document");
  /** Words joined, or stdin when there are none or the only word is `-` (CONTRACT §1). */
  const textArg = async (words: readonly string[]): Promise<string | undefined> => {
    if (words.length && !(words.length === 1 && words[0] === "-"))
      return goTrimSpace(words.join(" "));
    const read = await readStdin(ctx.stdin, {
      hasPrompt: false,
      giveUpOnSilentPipe: true,
      firstByteTimeoutMs: 3000,
      maxBytes: 1 << 20,
    });
    return read.text === undefined ? undefined : goTrimSpace(read.text);
  };
  const showDay = async (label: string, opts: Json) => {
    const m = await mem();
    const day = parseFlexibleDate(label, m.now());
    if (!day) {
      const near = closest(
        label,
        root.commands.map((c) => c.name()),
      );
      throw new UsageError(`unknown memory subcommand or date: ${label}`, {
        hint: near ? `did you mean: chatcli memory ${near}?` : "chatcli memory --help",
      });
    }
    const date = localDate(day);
    const content = await readDaily(m, day);
    out(opts, { date, content: content ?? null }, () => renderNote(date, content));
  };

  // No root-level --json option: commander would then swallow the subcommands' --json (positional
  // options need the program's cooperation), so the date form reads it from the raw args.
  const root = new Command("memory")
    .description("the persistent memory: facts, profile, daily notes, recall")
    .addHelpText(
      "after",
      "\nFact cap: at most CHATCLI_MEMORY_MAX_FACTS facts (default 500). A write that goes over moves the\n" +
        "lowest-scored facts to memory_archive.json (warning memory_pruned; `memory stats` counts them).\n" +
        "Runs with --memory read (the default in CI) never write memory.\n",
    )
    .argument("[date]", "today, yesterday, YYYY-MM-DD, YYYYMMDD or DD/MM/YYYY (default today)")
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_date, _opts, cmd) => {
      const { json, words } = dateFormArgs(cmd.args);
      if (words.length > 1)
        throw new UsageError(`unknown memory option or argument: ${words[1]}`, {
          hint: "chatcli memory --help",
        });
      await showDay(words[0] ?? "today", { json });
    });

  root
    .command("today")
    .description("today's daily note")
    .addOption(json())
    .action(async (o) => showDay("today", o));
  root
    .command("yesterday")
    .description("yesterday's daily note")
    .addOption(json())
    .action(async (o) => showDay("yesterday", o));
  root
    .command("week")
    .description("daily notes of the last 7 days")
    .addOption(json())
    .action(async (opts) => {
      const notes = await recentNotes(await mem(), 7);
      out(opts, notes, () => renderWeek(notes));
    });
  root
    .command("longterm")
    .alias("lt")
    .description("long-term memory rendered as MEMORY.md")
    .addOption(json())
    .action(async (opts) => {
      const m = await mem();
      const state = await loadFacts(m);
      const md = renderMarkdown(state.facts.values(), m.now().getTime(), m.cfg.maxSize);
      out(opts, { facts: state.facts.size, markdown: md }, () =>
        md
          ? panel("Long-term Memory (MEMORY.md)", [md.trimEnd()])
          : "No long-term memory stored yet.\n",
      );
    });
  root
    .command("list")
    .description("the files of the memory store")
    .addOption(json())
    .action(async (opts) => {
      const files = await memoryFiles(await mem());
      out(opts, files, () => renderFiles(files));
    });
  root
    .command("facts")
    .description("stored facts, highest score first")
    .argument("[category]")
    .option("--category <c>", "only this category")
    .option("--limit <n>", "at most N facts", parsePositiveInt("--limit"))
    .addOption(json())
    .action(async (cat, opts) => {
      const category = opts.category ?? cat;
      const facts = await listFacts(await mem(), { category, limit: opts.limit });
      out(opts, facts, () => renderFacts(facts, category));
    });
  root
    .command("recall")
    .description(
      "search memory like the agent does (BM25 × live score); a look-up, not counted as an access",
    )
    .argument("[query...]", "the query (stdin when absent or -)")
    .option("--limit <n>", "at most N results (default 10)", parsePositiveInt("--limit"))
    .addOption(json())
    .action(async (words, opts) => {
      const query = await textArg(words);
      if (!query)
        throw new UsageError("nothing to recall", {
          reason: "no_prompt",
          hint: 'chatcli memory recall "topic"',
        });
      const hits = await recall(await mem(), query, opts.limit || 10, {
        fetch: ctx.fetch,
        countAccess: false,
      });
      out(opts, hitsJson(hits), () => renderHits(hits));
    });
  root
    .command("topics")
    .description("tracked topics")
    .addOption(json())
    .action(async (opts) => {
      const list = await loadTopics(await mem());
      out(opts, list, () => renderTopics(list));
    });
  root
    .command("projects")
    .description("tracked projects")
    .addOption(json())
    .action(async (opts) => {
      const list = await loadProjects(await mem());
      out(opts, list, () => renderProjects(list));
    });
  root
    .command("stats")
    .description("memory system statistics")
    .addOption(json())
    .action(async (opts) => {
      const stats = await memoryStats(await mem());
      out(opts, stats, () => renderStats(stats));
    });
  addMemoryEditCommands(root, { ctx, mem, out, textArg });
  addMemoryReviewCommand(root, { ctx, mem, out, textArg });
  root
    .command("path")
    .description("where the memory store lives")
    .addOption(json())
    .action(async (opts) => {
      const dir = (await mem()).cfg.dir;
      out(opts, { path: dir }, `${dir}\n`);
    });
  acceptOutputFormat(root);
  // Subcommands inherit the date form's allowExcessArguments: `memory profile st` must not pass.
  const strict = (c: typeof root): void => {
    for (const sub of c.commands) strict(sub.allowExcessArguments(false) as typeof root);
  };
  strict(root);
  return root;
}

/**
 * The date form's own flags (allowUnknownOption hides commander's checks): --json, --output-format,
 * and an unknown flag rejected with commander's message and a suggestion.
 */
function dateFormArgs(args: readonly string[]): { json: boolean; words: string[] } {
  let json = false;
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const [name, inline] = arg.split(/=(.*)/s, 2);
    if (arg === "--json" || arg === "--jsonl") json = true;
    else if (name === "--output-format") {
      const value = inline ?? args[++i];
      if (!FORMAT_CHOICES.some((f) => f === value))
        throw new UsageError(
          `option '--output-format <format>' argument '${value ?? ""}' is invalid. Allowed choices are ${FORMAT_CHOICES.join(", ")}.`,
        );
      json = value !== "text";
    } else if (arg.startsWith("-") && !/^-\d/.test(arg)) {
      const near = closest(name ?? arg, ["--json", "--jsonl", "--output-format", "--help"]);
      throw new UsageError(`unknown option '${arg}'`, {
        hint: near ? `did you mean ${near}?` : "chatcli memory --help",
      });
    } else words.push(arg);
  }
  return { json, words };
}
