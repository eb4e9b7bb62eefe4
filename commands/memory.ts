import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { Command, Option } from "@commander-js/extra-typings";
import { detectWorkspaceRoot } from "../lib/bootstrap/workspace.ts";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { readStdin } from "../lib/core/input.ts";
import { configuredSecrets, redactDeep } from "../lib/core/redact.ts";
import { loadSettings } from "../lib/core/settings.ts";
import { compactionDue, compactMemory } from "../lib/memory/compact.ts";
import { CATEGORIES } from "../lib/memory/config.ts";
import type { ExtractLlm } from "../lib/memory/extract.ts";
import { renderMarkdown } from "../lib/memory/facts.ts";
import { localDate } from "../lib/memory/gotime.ts";
import { memoryFiles, memoryStats } from "../lib/memory/inventory.ts";
import { extractionChain } from "../lib/memory/llm-chain.ts";
import { parseFlexibleDate, readDaily, recentNotes } from "../lib/memory/notes.ts";
import { forget, listFacts, profileGet, profileSet, recall, remember } from "../lib/memory/ops.ts";
import { parseProfilePairs } from "../lib/memory/profile-text.ts";
import {
  compactionJson,
  hitsJson,
  panel,
  renderCompaction,
  renderFacts,
  renderFiles,
  renderHits,
  renderNote,
  renderProfile,
  renderProjects,
  renderStats,
  renderTopics,
  renderWeek,
} from "../lib/memory/render.ts";
import {
  loadFacts,
  type Memory,
  openMemory,
  readStoreJson,
  writeMarkdown,
} from "../lib/memory/store.ts";
import { loadProjects, loadTopics } from "../lib/memory/tracking.ts";
import {
  exportMemory,
  importMemory,
  importSummaryText,
  parseExportDocument,
} from "../lib/memory/transfer.ts";
import { stripControl } from "../lib/output/terminal.ts";
import type { RunState } from "./_shared.ts";
import { acceptOutputFormat, closest, FORMAT_CHOICES, parsePositiveInt } from "./_shared.ts";

type Json = { json?: boolean };

/** `chatcli memory` — the persistent memory store (CONTRACT §7). */
export function memoryCommand(ctx: Ctx, _state: RunState) {
  // Settings layer .env and config.json "env" under the process env (CHATCLI_MEMORY_* may live there).
  const mem = async (): Promise<Memory> => {
    const workspace = detectWorkspaceRoot(ctx.cwd);
    const { env } = await loadSettings(ctx, { workspaceRoot: workspace });
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
        ? `${JSON.stringify(redactDeep(value, configuredSecrets(ctx.env)))}\n`
        : stripControl(typeof text === "string" ? text : text()),
    );
  };
  const json = () => new Option("--json", "print one JSON document");
  /** Words joined, or stdin when there are none or the only word is `-` (CONTRACT §1). */
  const textArg = async (words: readonly string[]): Promise<string | undefined> => {
    if (words.length && !(words.length === 1 && words[0] === "-")) return words.join(" ").trim();
    const read = await readStdin(ctx.stdin, {
      hasPrompt: false,
      giveUpOnSilentPipe: true,
      firstByteTimeoutMs: 3000,
      maxBytes: 1 << 20,
    });
    return read.text?.trim();
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
    .description("search memory like the agent does (BM25 × live score)")
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
      });
      out(opts, hitsJson(hits), () => renderHits(hits));
    });
  root
    .command("remember")
    .description("store a fact (TEXT, or stdin when absent or -)")
    .argument("[text...]")
    .addOption(new Option("--category <c>", "the fact's category").choices(CATEGORIES))
    .addOption(json())
    .action(async (words, opts) => {
      // `remember [category] TEXT`: a leading category word (as ChatCLI's /memory) sets it.
      let category: string | undefined = opts.category;
      const first = words[0]?.toLowerCase();
      if (
        !category &&
        words.length > 1 &&
        (CATEGORIES as readonly string[]).includes(first ?? "")
      ) {
        category = first;
        words = words.slice(1);
      }
      const text = await textArg(words);
      if (!text)
        throw new UsageError("nothing to remember", {
          reason: "no_prompt",
          hint: 'chatcli memory remember "fact"',
        });
      const r = await remember(await mem(), text, category);
      if (r.status === "rejected") {
        throw new UsageError(`refused to store this fact (${r.reason})`, {
          reason: "bad_input",
          hint: "memory text that looks like a prompt injection or a remote-exec command is never stored",
        });
      }
      out(opts, r, r.status === "added" ? "Remembered.\n" : "Already in memory (no change).\n");
    });
  root
    .command("forget")
    .description("remove facts containing TEXT (case-insensitive)")
    .argument("[text...]", "substring to match (stdin when absent or -)")
    .option("--dry-run", "only show what would be removed")
    .addOption(json())
    .action(async (words, opts) => {
      const match = await textArg(words);
      if (!match)
        throw new UsageError("nothing to forget", {
          reason: "no_prompt",
          hint: 'chatcli memory forget "substring"',
        });
      const removed = await forget(await mem(), match, { dryRun: opts.dryRun });
      out(opts, removed, () => {
        if (removed.length === 0) return "No matching fact found.\n";
        const head = opts.dryRun
          ? `Would remove ${removed.length} fact(s):`
          : `Removed ${removed.length} fact(s):`;
        return `${head}\n${removed.map((f) => `  - [${f.category || "general"}] ${f.content}`).join("\n")}\n`;
      });
    });
  const profile = root
    .command("profile")
    .description("the user profile")
    .addOption(json())
    .action(async (opts) => {
      const p = await profileGet(await mem());
      out(opts, p, () => renderProfile(p));
    });
  profile
    .command("set")
    .description("set profile fields: KEY=VALUE (list fields accept _add/_remove/_replace)")
    .argument("<pairs...>")
    .addOption(json())
    .action(async (pairs, opts) => {
      const { fields, bad } = parseProfilePairs(pairs);
      if (bad !== undefined)
        throw new UsageError(`expected KEY=VALUE, got: ${bad}`, {
          hint: "chatcli memory profile set name=Ana",
        });
      const changed = await profileSet(await mem(), fields);
      // `profile` has its own --json and commander hands it the flag first (no positional options).
      out({ json: opts.json || profile.opts().json }, { changed }, () =>
        changed.length
          ? `${changed.map((k) => `Profile field '${k}' updated.`).join("\n")}\n`
          : "No change (value already set).\n",
      );
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
  root
    .command("compact")
    .description("consolidate facts (LLM, else score-based) and drop old daily notes")
    .option("--if-due", "only when 24 h passed since the last compaction (crontab-safe)")
    .option("--no-llm", "score-based only")
    .option("-m, --model <provider/model>", "model for the consolidation")
    .addOption(json())
    .action(async (opts) => {
      const m = await mem();
      if (opts.ifDue && !(await compactionDue(m))) {
        const state = (await readStoreJson(m, "compactor_state.json")) as
          | Record<string, unknown>
          | undefined;
        const r = await compactMemory(m, { ifDue: true });
        out(opts, compactionJson(r), () =>
          renderCompaction(
            r,
            typeof state?.["last_compaction"] === "string" ? state["last_compaction"] : undefined,
          ),
        );
        return;
      }
      const llm = opts.llm ? await compactionLlm(ctx, opts.model, m) : undefined;
      if (!opts.json) ctx.stderr.write("Running memory compaction...\n");
      const r = await compactMemory(m, { llm, signal: ctx.signal });
      await writeMarkdown(m, await loadFacts(m));
      out(opts, compactionJson(r), () => renderCompaction(r));
    });
  root
    .command("export")
    .description("the whole store as one JSON document")
    .addOption(json())
    .action(async (opts) => {
      // A file to keep is indented; --json is one document on one line like every other command.
      // Facts written by other tools (the Go ChatCLI) may hold raw secrets: JSON output never does.
      const doc = redactDeep(await exportMemory(await mem()), configuredSecrets(ctx.env));
      ctx.stdout.write(`${JSON.stringify(doc, null, opts.json ? undefined : 2)}\n`);
    });
  root
    .command("import")
    .description("merge an export document (FILE, or stdin when - or absent)")
    .argument("[file]")
    .addOption(json())
    .action(async (file, opts) => {
      let text: string | undefined;
      if (file && file !== "-") {
        text = await readFile(resolve(ctx.cwd, file), "utf8").catch(
          (error: NodeJS.ErrnoException) => {
            const why = error.code === "ENOENT" ? "no such file" : (error.code ?? error.message);
            throw new UsageError(`import: cannot read ${file} (${why})`, {
              reason: "bad_input",
              hint: "chatcli memory export > memory.json; chatcli memory import memory.json",
            });
          },
        );
      } else
        text = (
          await readStdin(ctx.stdin, {
            hasPrompt: false,
            giveUpOnSilentPipe: true,
            firstByteTimeoutMs: 3000,
            maxBytes: 256 << 20,
          })
        ).text;
      if (!text)
        throw new UsageError("nothing to import", {
          reason: "no_prompt",
          hint: "chatcli memory import export.json",
        });
      const r = await importMemory(await mem(), parseExportDocument(text));
      out(opts, r, () => importSummaryText(r));
    });
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

/** The consolidation LLM: the model chain tried in order; none configured → undefined. */
async function compactionLlm(
  ctx: Ctx,
  flag: string | undefined,
  m: Memory,
): Promise<ExtractLlm | undefined> {
  const chain = await extractionChain(m.env, { fetch: ctx.fetch, model: flag });
  if (chain.length === 0) {
    m.warn("memory: no model configured; using score-based compaction");
    return undefined;
  }
  return async (prompt, signal) => {
    let last: unknown;
    for (const llm of chain) {
      try {
        return await llm(prompt, signal);
      } catch (error) {
        last = error;
      }
    }
    throw last;
  };
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
