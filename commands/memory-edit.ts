import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type Command, Option } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { readStdin } from "../lib/core/input.ts";
import { configuredSecrets } from "../lib/core/redact.ts";
import { compactionDue, compactMemory } from "../lib/memory/compact.ts";
import { CATEGORIES } from "../lib/memory/config.ts";
import type { ExtractLlm } from "../lib/memory/extract.ts";
import type { Fact } from "../lib/memory/facts.ts";
import { extractionChain } from "../lib/memory/llm-chain.ts";
import { forget, profileGet, profileSet, remember } from "../lib/memory/ops.ts";
import {
  PROFILE_KEYS_HELP,
  profileKeyNames,
  resolveProfileSetKey,
} from "../lib/memory/profile-keys.ts";
import { parseProfilePairs } from "../lib/memory/profile-text.ts";
import { compactionJson, renderCompaction, renderProfile } from "../lib/memory/render.ts";
import { loadFacts, type Memory, readStoreJson, writeMarkdown } from "../lib/memory/store.ts";
import { threatReason } from "../lib/memory/threatscan.ts";
import {
  exportMemory,
  importMemory,
  importSummaryText,
  parseExportDocument,
} from "../lib/memory/transfer.ts";
import { jsonDocument } from "../lib/output/terminal.ts";
import { closest } from "./_shared.ts";

type Json = { json?: boolean };

/** What the memory subcommands share (built once in memory.ts). */
export interface MemoryCli {
  ctx: Ctx;
  mem: () => Promise<Memory>;
  out: (opts: Json, value: unknown, text: string | (() => string)) => void;
  textArg: (words: readonly string[]) => Promise<string | undefined>;
}

/** The subcommands that change the store: remember, forget, profile [set], compact, export, import. */
export function addMemoryEditCommands(root: Command<[string | undefined]>, cli: MemoryCli): void {
  const { ctx, mem, out, textArg } = cli;
  const json = () => new Option("--json", "print one JSON document");
  root
    .command("remember")
    .description("store a fact (TEXT, or stdin when absent or -)")
    .argument("[text...]")
    .addOption(new Option("--category <c>", "the fact's category").choices(CATEGORIES))
    .option("--force", "store it even if it reads like a command to run or a permission change")
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
      const r = await remember(await mem(), text, category, { force: opts.force === true });
      const forced = opts.force && r.status !== "rejected" ? threatReason(text) : undefined;
      if (forced)
        ctx.stderr.write(`chatcli: warning: stored with --force although it reads as ${forced}\n`);
      if (r.status === "rejected") {
        throw new UsageError(`refused to store this fact (${r.reason})`, {
          reason: "bad_input",
          hint: "memory is injected into later prompts, so text that would make the agent run downloads or commands, or widen its permissions, is not stored; --force stores it if you mean it",
        });
      }
      out(opts, r, r.status === "added" ? "Remembered.\n" : "Already in memory (no change).\n");
    });
  root
    .command("forget")
    .description(
      "remove a fact: its ID, or a TEXT matching exactly one fact (several: exit 2 unless --all)",
    )
    .argument("[target...]", "fact id or text (stdin when absent or -)")
    .option("--all", "remove every fact the text matches")
    .option("--dry-run", "only show what would be removed")
    .addOption(json())
    .action(async (words, opts) => {
      const target = await textArg(words);
      if (!target)
        throw new UsageError("nothing to forget", {
          reason: "no_prompt",
          hint: "chatcli memory forget ID (ids: chatcli memory facts --json)",
        });
      const r = await forget(await mem(), target, { dryRun: opts.dryRun, all: opts.all });
      const line = (f: Fact) => `  - [${f.category || "general"}] ${f.content} (id ${f.id})`;
      if (r.ambiguous) {
        ctx.stderr.write(
          `${r.matched.length} facts match "${target}":\n${r.matched.map(line).join("\n")}\n`,
        );
        throw new UsageError(`forget: ${r.matched.length} facts match; nothing removed`, {
          hint: "give one fact's id, or --all to remove them all (--dry-run to preview)",
        });
      }
      const gone = opts.dryRun ? r.matched : r.removed;
      // Nothing to forget is an error, as `sessions rm NOSUCH` (a script must not think it worked);
      // a --dry-run is a preview, a list like any other (CONTRACT §2: an empty list is [], exit 0).
      if (gone.length === 0 && !opts.dryRun)
        throw new UsageError(`forget: no fact matches ${JSON.stringify(target)}`, {
          reason: "bad_input",
          hint: "list the facts and their ids with: chatcli memory facts",
        });
      // JSON: the list of removed (with --dry-run: removable) facts with their ids (CONTRACT §2).
      out(opts, gone, () => {
        if (gone.length === 0) return "No matching fact found.\n";
        const head = opts.dryRun
          ? `Would remove ${gone.length} fact(s):`
          : `Removed ${gone.length} fact(s):`;
        return `${head}\n${gone.map(line).join("\n")}\n`;
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
    .addHelpText("after", `\n${PROFILE_KEYS_HELP}\n`)
    .action(async (pairs, opts) => {
      const { fields: typed, bad } = parseProfilePairs(pairs);
      if (bad !== undefined)
        throw new UsageError(`expected KEY=VALUE, got: ${bad}`, {
          hint: "chatcli memory profile set name=Ana",
        });
      // Every key is checked before anything is written: a typo is not stored as a preference.
      const fields: Record<string, string> = {};
      for (const [k, v] of Object.entries(typed)) {
        const r = resolveProfileSetKey(k);
        if ("error" in r) {
          const near = closest(k.toLowerCase(), profileKeyNames());
          throw new UsageError(r.error, {
            reason: "bad_input",
            hint: `${near ? `did you mean ${near}? ` : ""}keys: chatcli memory profile set --help (a free-form preference: pref:${k}=…)`,
          });
        }
        fields[r.key] = v;
      }
      const changed = await profileSet(await mem(), fields);
      // `profile` has its own --json and commander hands it the flag first (no positional options).
      out({ json: opts.json || profile.opts().json }, { changed }, () =>
        changed.length
          ? `${changed.map((k) => `Profile field '${k}' updated.`).join("\n")}\n`
          : "No change (value already set).\n",
      );
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
      const doc = await exportMemory(await mem());
      ctx.stdout.write(jsonDocument(doc, configuredSecrets(ctx.env), opts.json ? undefined : 2));
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
