import { readFile, stat } from "node:fs/promises";
import { Command, Option } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { readStdin } from "../lib/core/input.ts";
import { compactionDue, compactMemory } from "../lib/memory/compact.ts";
import type { ExtractLlm } from "../lib/memory/extract.ts";
import { renderMarkdown } from "../lib/memory/facts.ts";
import { localDate } from "../lib/memory/gotime.ts";
import { listDailyFiles, parseFlexibleDate, readDaily, recentNotes } from "../lib/memory/notes.ts";
import { forget, listFacts, profileGet, profileSet, recall, remember } from "../lib/memory/ops.ts";
import {
  compactionJson,
  hitsJson,
  humanSize,
  panel,
  renderCompaction,
  renderFacts,
  renderHits,
  renderNote,
  renderProfile,
  renderProjects,
  renderTopics,
} from "../lib/memory/render.ts";
import {
  loadFacts,
  type Memory,
  memPath,
  openMemory,
  readStoreJson,
  writeMarkdown,
} from "../lib/memory/store.ts";
import { loadProjects, loadTopics, loadUsage } from "../lib/memory/tracking.ts";
import { exportMemory, importMemory } from "../lib/memory/transfer.ts";
import { detectWorkspace } from "../lib/memory/workspace.ts";
import type { RunState } from "./_shared.ts";
import { parsePositiveInt } from "./_shared.ts";

type Json = { json?: boolean };

/** `chatcli memory` — the persistent memory store (CONTRACT §7). */
export function memoryCommand(ctx: Ctx, _state: RunState) {
  const mem = (): Memory =>
    openMemory({
      env: ctx.env,
      now: ctx.now,
      workspace: detectWorkspace(ctx.cwd),
      warn: (line) => ctx.stderr.write(`${line}\n`),
    });
  const out = (opts: Json, value: unknown, text: string | (() => string)) => {
    ctx.stdout.write(
      opts.json ? `${JSON.stringify(value)}\n` : typeof text === "string" ? text : text(),
    );
  };
  const json = () => new Option("--json", "print one JSON document");
  const showDay = async (label: string, opts: Json) => {
    const m = mem();
    const day = parseFlexibleDate(label, m.now());
    if (!day)
      throw new UsageError(`unknown memory subcommand or date: ${label}`, {
        hint: "chatcli memory --help",
      });
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
    .action(async (date, _opts, cmd) => {
      const extra = cmd.args.filter((a) => a !== date);
      const unknown = extra.find((a) => a !== "--json");
      if (unknown)
        throw new UsageError(`unknown memory option or argument: ${unknown}`, {
          hint: "chatcli memory --help",
        });
      await showDay(date === "--json" || date === undefined ? "today" : date, {
        json: cmd.args.includes("--json"),
      });
    });

  root
    .command("today")
    .description("today's daily note")
    .addOption(json())
    .action((o) => showDay("today", o));
  root
    .command("yesterday")
    .description("yesterday's daily note")
    .addOption(json())
    .action((o) => showDay("yesterday", o));
  root
    .command("week")
    .description("daily notes of the last 7 days")
    .addOption(json())
    .action(async (opts) => {
      const notes = await recentNotes(mem(), 7);
      out(opts, notes, () => {
        if (notes.length === 0) return "No notes in the last 7 days.\n";
        const lines = notes.flatMap((n) => {
          const dow = new Date(`${n.date}T12:00:00`).toLocaleDateString("en-US", {
            weekday: "short",
          });
          return [
            `${n.date} (${dow})`,
            ...n.content.split("\n").map((l) => (l ? `    ${l}` : "")),
            "",
          ];
        });
        return panel("Memory notes — last 7 days", lines);
      });
    });
  root
    .command("longterm")
    .alias("lt")
    .description("long-term memory rendered as MEMORY.md")
    .addOption(json())
    .action(async (opts) => {
      const m = mem();
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
      const m = mem();
      const files: Array<{ name: string; path: string; bytes: number }> = [];
      for (const name of [
        "MEMORY.md",
        "user_profile.json",
        "topics.json",
        "projects.json",
        "usage_stats.json",
        "memory_index.json",
      ]) {
        const info = await stat(memPath(m, name)).catch(() => undefined);
        if (info) files.push({ name, path: memPath(m, name), bytes: info.size });
      }
      const notes = await listDailyFiles(m);
      const facts = (await loadFacts(m)).facts.size;
      out(opts, { dir: m.cfg.dir, facts, files, daily_notes: notes }, () =>
        panel("Memory files", [
          `  Facts: ${facts}`,
          ...files.map((f) => `  ${f.name}  ${humanSize(f.bytes)}`),
          `  Daily notes: ${notes.length}`,
          ...notes.slice(-10).map((n) => `    ${n}`),
        ]),
      );
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
      const facts = await listFacts(mem(), { category, limit: opts.limit });
      out(opts, facts, () => renderFacts(facts, category));
    });
  root
    .command("recall")
    .description("search memory like the agent does (BM25 × live score)")
    .argument("<query...>")
    .option("--limit <n>", "at most N results (default 10)", parsePositiveInt("--limit"))
    .addOption(json())
    .action(async (words, opts) => {
      const hits = await recall(mem(), words.join(" "), opts.limit || 10);
      out(opts, hitsJson(hits), () => renderHits(hits));
    });
  root
    .command("remember")
    .description("store a fact (TEXT, or stdin when absent or -)")
    .argument("[text...]")
    .option("--category <c>", "architecture|pattern|preference|gotcha|project|personal|general")
    .addOption(json())
    .action(async (words, opts) => {
      let text =
        words.length && !(words.length === 1 && words[0] === "-") ? words.join(" ") : undefined;
      if (text === undefined) {
        const read = await readStdin(ctx.stdin, {
          hasPrompt: false,
          firstByteTimeoutMs: 3000,
          maxBytes: 1 << 20,
        });
        text = read.text?.trim();
      }
      if (!text)
        throw new UsageError("nothing to remember", {
          reason: "no_prompt",
          hint: 'chatcli memory remember "fact"',
        });
      const r = await remember(mem(), text, opts.category);
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
    .argument("<text...>")
    .option("--dry-run", "only show what would be removed")
    .addOption(json())
    .action(async (words, opts) => {
      const removed = await forget(mem(), words.join(" "), { dryRun: opts.dryRun });
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
      const p = await profileGet(mem());
      out(opts, p, () => renderProfile(p));
    });
  profile
    .command("set")
    .description("set profile fields: KEY=VALUE (list fields accept _add/_remove/_replace)")
    .argument("<pairs...>")
    .addOption(json())
    .action(async (pairs, opts) => {
      const fields: Record<string, string> = {};
      for (const pair of pairs) {
        const at = pair.indexOf("=") > 0 ? pair.indexOf("=") : pair.indexOf(":");
        if (at <= 0)
          throw new UsageError(`expected KEY=VALUE, got: ${pair}`, {
            hint: "chatcli memory profile set name=Ana",
          });
        fields[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
      }
      const changed = await profileSet(mem(), fields);
      out(opts, { changed }, () =>
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
      const list = await loadTopics(mem());
      out(opts, list, () => renderTopics(list));
    });
  root
    .command("projects")
    .description("tracked projects")
    .addOption(json())
    .action(async (opts) => {
      const list = await loadProjects(mem());
      out(opts, list, () => renderProjects(list));
    });
  root
    .command("stats")
    .description("memory system statistics")
    .addOption(json())
    .action(async (opts) => {
      const m = mem();
      const [state, topics, projects, usage] = await Promise.all([
        loadFacts(m),
        loadTopics(m),
        loadProjects(m),
        loadUsage(m),
      ]);
      const byCat: Record<string, number> = {};
      for (const f of state.facts.values())
        byCat[f.category || "general"] = (byCat[f.category || "general"] ?? 0) + 1;
      const stats = {
        facts: state.facts.size,
        facts_by_category: byCat,
        topics: topics.length,
        projects: projects.length,
        usage,
      };
      out(opts, stats, () =>
        panel("Memory System Stats", [
          `  Facts: ${stats.facts}${
            Object.keys(byCat).length
              ? ` (${Object.entries(byCat)
                  .map(([c, n]) => `${c} ${n}`)
                  .join(", ")})`
              : ""
          }`,
          `  Topics: ${stats.topics}`,
          `  Projects: ${stats.projects}`,
          `  Sessions: ${Number(usage["session_count"] ?? 0)}`,
          `  Total messages: ${Number(usage["total_messages"] ?? 0)}`,
        ]),
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
      const m = mem();
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
    .action(async () => {
      ctx.stdout.write(`${JSON.stringify(await exportMemory(mem()), null, 2)}\n`);
    });
  root
    .command("import")
    .description("merge an export document (FILE, or stdin when - or absent)")
    .argument("[file]")
    .addOption(json())
    .action(async (file, opts) => {
      let text: string | undefined;
      if (file && file !== "-") text = await readFile(file, "utf8");
      else
        text = (
          await readStdin(ctx.stdin, {
            hasPrompt: false,
            firstByteTimeoutMs: 3000,
            maxBytes: 256 << 20,
          })
        ).text;
      if (!text)
        throw new UsageError("nothing to import", {
          reason: "no_prompt",
          hint: "chatcli memory import export.json",
        });
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch (error) {
        throw new UsageError(`import: not JSON (${(error as Error).message})`, {
          reason: "bad_input",
        });
      }
      if (!doc || typeof doc !== "object" || Array.isArray(doc))
        throw new UsageError("import: expected a JSON object", { reason: "bad_input" });
      const r = await importMemory(mem(), doc as Record<string, unknown>);
      out(
        opts,
        r,
        () =>
          `Imported: ${r.facts_added} fact(s) added, ${r.facts_merged} merged, ${r.facts_rejected} rejected; ${r.profile_fields} profile field(s), ${r.topics_added} topic(s), ${r.projects_added} project(s), ${r.notes_added} daily note(s).\n`,
      );
    });
  root
    .command("path")
    .description("where the memory store lives")
    .addOption(json())
    .action((opts) => {
      const dir = mem().cfg.dir;
      out(opts, { path: dir }, `${dir}\n`);
    });
  return root;
}

/** The consolidation LLM: the configured model (lazy SDK import); none configured → undefined. */
async function compactionLlm(
  ctx: Ctx,
  flag: string | undefined,
  m: Memory,
): Promise<ExtractLlm | undefined> {
  const [{ resolveModel }, { createProvider }, { complete }] = await Promise.all([
    import("../lib/llm/models.ts"),
    import("../lib/llm/registry.ts"),
    import("../lib/llm/complete.ts"),
  ]);
  let ref: ReturnType<typeof resolveModel>;
  try {
    ref = resolveModel(flag, ctx.env);
  } catch {
    m.warn("memory: no model configured; using score-based compaction");
    return undefined;
  }
  const provider = await createProvider(ref, { fetch: ctx.fetch });
  return async (prompt, signal) =>
    (
      await complete(
        provider,
        { model: ref.model, system: [], messages: [{ role: "user", content: prompt }] },
        signal,
      )
    ).text;
}
