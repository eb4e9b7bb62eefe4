import { join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { createFileAtomic, readTextIfExists } from "../core/fs.ts";
import { redactDeep } from "../core/redact.ts";
import { enforceCap, type Fact, factToJson, isBuried, rankedFacts } from "./facts.ts";
import { listDailyFiles } from "./notes.ts";
import { loadProfile, profileToJson } from "./profile.ts";
import { holdFact } from "./review.ts";
import { isUserSource, unverifiedSource } from "./source.ts";
import {
  loadFacts,
  lockStore,
  type Memory,
  mergeFact,
  mutateFacts,
  nowIso,
  readStoreJson,
  writeStoreJson,
} from "./store.ts";
import { scanThreat } from "./threatscan.ts";
import { loadProjects, loadTopics, loadUsage, type Row } from "./tracking.ts";
import { holdReason } from "./trust.ts";
import { checkFact, checkProfile, checkRow, PROJECT_SHAPE, TOPIC_SHAPE } from "./validate.ts";

/** One JSON document holding the whole store (`chatcli memory export`). */
export async function exportMemory(mem: Memory): Promise<Record<string, unknown>> {
  const state = await loadFacts(mem);
  const notes: Record<string, string> = {};
  for (const rel of await listDailyFiles(mem)) {
    notes[rel] = (await readTextIfExists(join(mem.cfg.dir, rel))) ?? "";
  }
  return {
    format: "chatcli-memory-export",
    version: 1,
    exported_at: nowIso(mem),
    facts: rankedFacts(state.facts.values(), mem.now().getTime()).map(factToJson),
    tombstones: Object.fromEntries(state.tombstones),
    profile: profileToJson(await loadProfile(mem)),
    topics: await loadTopics(mem),
    projects: await loadProjects(mem),
    usage: await loadUsage(mem),
    daily_notes: notes,
  };
}

export interface ImportSummary {
  /** Facts in the document. */
  facts_read: number;
  facts_added: number;
  facts_merged: number;
  /** Facts refused: unsafe text, or a value that cannot be a Go type (see `rejected`). */
  facts_rejected: number;
  /** Of the added facts, how many are in the index afterwards (the cap may archive some). */
  facts_kept: number;
  /** Facts the cap (`max_facts`) moved to memory_archive.json during the import. */
  facts_pruned: number;
  /** Facts marked unverified in the file that ask the agent to act: held for review (issue 20). */
  facts_held: number;
  max_facts: number;
  /** Values brought to Go's types (times as RFC 3339, integers…), counted per kind of fix. */
  normalized: Record<string, number>;
  /** What was refused and why (at most 20 entries). */
  rejected: Array<{ what: string; reason: string }>;
  profile_fields: number;
  topics_added: number;
  projects_added: number;
  notes_added: number;
}

const rows = (v: unknown): Row[] =>
  Array.isArray(v)
    ? v.filter((x): x is Row => !!x && typeof x === "object" && !Array.isArray(x))
    : [];

/**
 * Merges an export document into the store: every value brought to the Go types (or refused, and
 * said so), facts deduped by id, absent entries added, the fact cap enforced through the archive.
 */
export async function importMemory(
  mem: Memory,
  doc: Record<string, unknown>,
): Promise<ImportSummary> {
  const clean = redactDeep(doc, mem.cfg.secrets);
  const out: ImportSummary = {
    facts_read: 0,
    facts_added: 0,
    facts_merged: 0,
    facts_rejected: 0,
    facts_kept: 0,
    facts_pruned: 0,
    facts_held: 0,
    max_facts: mem.cfg.maxFacts,
    normalized: {},
    rejected: [],
    profile_fields: 0,
    topics_added: 0,
    projects_added: 0,
    notes_added: 0,
  };
  const note = (fixed: string[]) => {
    for (const f of fixed) {
      const kind = f.replace(/"[^"]*"/g, "…");
      out.normalized[kind] = (out.normalized[kind] ?? 0) + 1;
    }
  };
  const refuse = (what: string, reason: string) => {
    if (out.rejected.length < 20) out.rejected.push({ what, reason });
  };
  const rawFacts = Array.isArray(clean["facts"]) ? clean["facts"] : [];
  out.facts_read = rawFacts.length;
  const incoming: Fact[] = [];
  for (const [i, raw] of rawFacts.entries()) {
    const c = checkFact(raw, mem.now());
    if (!c.ok) {
      out.facts_rejected++;
      refuse(`facts[${i}]`, c.reason);
      continue;
    }
    if (mem.cfg.threatscan && scanThreat(c.value.content)) {
      out.facts_rejected++;
      refuse(`facts[${i}]`, "unsafe text (threatscan)");
      continue;
    }
    note(c.fixed);
    // the file keeps its marks: an unverified fact that asks the agent to act waits for review
    const source = c.value["source"];
    const hold = isUserSource(source) ? undefined : holdReason(c.value.content, c.value.category);
    if (hold) {
      await holdFact(mem, {
        content: c.value.content,
        category: c.value.category || "general",
        source: unverifiedSource(String(source)),
        reason: hold,
      });
      out.facts_held++;
      continue;
    }
    incoming.push(c.value);
  }
  if (incoming.length) {
    await mutateFacts(
      mem,
      (state) => {
        const added = new Set<string>();
        for (const f of incoming) {
          const have = state.facts.get(f.id);
          if (have) {
            state.facts.set(f.id, mergeFact(have, f));
            out.facts_merged++;
          } else if (!isBuried(f, state.tombstones)) {
            state.facts.set(f.id, f);
            added.add(f.id);
          }
        }
        out.facts_added = added.size;
        const pruned = enforceCap(state, mem.now(), mem.cfg.maxFacts);
        out.facts_pruned = pruned.length;
        out.facts_kept = [...added].filter((id) => state.facts.has(id)).length;
      },
      { markdown: () => true },
    );
  }
  const profile = clean["profile"];
  if (profile !== undefined && profile !== null) {
    const c = checkProfile(profile);
    if (!c.ok) refuse("profile", c.reason);
    else {
      note(c.fixed);
      await lockStore(mem, "user_profile.json", async () => {
        const current = await loadProfile(mem);
        for (const [k, v] of Object.entries(c.value)) {
          if (k === "last_updated" || v === null || v === "" || k in current) continue;
          current[k] = v;
          out.profile_fields++;
        }
        if (out.profile_fields)
          await writeStoreJson(mem, "user_profile.json", profileToJson(current));
      });
    }
  }
  const checked = (key: string, shape: typeof TOPIC_SHAPE): Row[] => {
    const list: Row[] = [];
    for (const [i, raw] of rows(clean[key]).entries()) {
      const c = checkRow(raw, shape, `${key}[${i}]`);
      if (!c.ok || typeof c.value["name"] !== "string" || !c.value["name"].trim()) {
        refuse(`${key}[${i}]`, c.ok ? "name is empty" : c.reason);
        continue;
      }
      note(c.fixed);
      list.push(c.value);
    }
    return list;
  };
  out.topics_added = await mergeRows(mem, "topics.json", checked("topics", TOPIC_SHAPE));
  const projects = checked("projects", PROJECT_SHAPE).map((r) => {
    if (typeof r["status"] === "string" && r["status"].trim()) return r;
    note(["project status missing → active"]);
    return { ...r, status: "active" };
  });
  out.projects_added = await mergeRows(mem, "projects.json", projects);
  const notes = clean["daily_notes"];
  if (notes && typeof notes === "object") {
    for (const [rel, text] of Object.entries(notes)) {
      if (!/^\d{6}\/\d{8}\.md$/.test(rel) || typeof text !== "string") {
        refuse(`daily_notes[${JSON.stringify(rel).slice(0, 40)}]`, "not YYYYMM/YYYYMMDD.md text");
        continue;
      }
      // Never replaces a note that is there (or appears meanwhile); a failed write is reported.
      if (await createFileAtomic(join(mem.cfg.dir, rel), text)) out.notes_added++;
    }
  }
  return out;
}

async function mergeRows(mem: Memory, file: string, incoming: Row[]): Promise<number> {
  if (incoming.length === 0) return 0;
  return lockStore(mem, file, async () => {
    const current = rows(await readStoreJson(mem, file, "array"));
    const names = new Set(current.map((r) => r["name"]));
    let added = 0;
    for (const r of incoming) {
      if (typeof r["name"] !== "string" || names.has(r["name"])) continue;
      current.push(r);
      names.add(r["name"]);
      added++;
    }
    if (added) await writeStoreJson(mem, file, current);
    return added;
  });
}

const EXPORT_PARTS = ["facts", "profile", "topics", "projects", "daily_notes"] as const;
const HINT = "the input of import is the output of: chatcli memory export";

/**
 * Parses an export document; malformed input — not JSON, not an object, none of the parts of an
 * export, a part of the wrong type — is a usage error (exit 2, bad_input) and nothing is written.
 */
export function parseExportDocument(text: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`import: not JSON (${(error as Error).message})`, {
      reason: "bad_input",
      hint: HINT,
    });
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) {
    throw new UsageError("import: expected a JSON object", { reason: "bad_input", hint: HINT });
  }
  const d = doc as Record<string, unknown>;
  if (d["format"] !== undefined && d["format"] !== "chatcli-memory-export")
    throw new UsageError(
      `import: not a chatcli memory export (format ${JSON.stringify(d["format"]).slice(0, 40)})`,
      { reason: "bad_input", hint: HINT },
    );
  const parts = EXPORT_PARTS.filter((k) => d[k] !== undefined && d[k] !== null);
  if (parts.length === 0) {
    const keys = Object.keys(d).slice(0, 5).join(", ") || "none";
    throw new UsageError(
      `import: not a memory export: it has none of ${EXPORT_PARTS.join(", ")} (keys: ${keys})`,
      { reason: "bad_input", hint: HINT },
    );
  }
  for (const k of ["facts", "topics", "projects"] as const)
    if (d[k] !== undefined && d[k] !== null && !Array.isArray(d[k]))
      throw new UsageError(`import: "${k}" is not a list`, { reason: "bad_input", hint: HINT });
  for (const k of ["profile", "daily_notes", "tombstones", "usage"] as const) {
    const v = d[k];
    if (v !== undefined && v !== null && (typeof v !== "object" || Array.isArray(v)))
      throw new UsageError(`import: "${k}" is not an object`, { reason: "bad_input", hint: HINT });
  }
  return d;
}

/** A summary of an import: what was added, kept, archived by the cap, normalised and refused. */
export function importSummaryText(r: ImportSummary): string {
  const lines = [
    `Imported: ${r.facts_added} fact(s) added, ${r.facts_merged} merged, ${r.facts_rejected} rejected; ${r.profile_fields} profile field(s), ${r.topics_added} topic(s), ${r.projects_added} project(s), ${r.notes_added} daily note(s).`,
  ];
  if (r.facts_pruned > 0)
    lines.push(
      `Kept ${r.facts_kept} of the ${r.facts_added} added fact(s): the cap of ${r.max_facts} facts (CHATCLI_MEMORY_MAX_FACTS) moved ${r.facts_pruned} lowest-scored fact(s) to memory_archive.json.`,
    );
  if (r.facts_held > 0)
    lines.push(
      `Held ${r.facts_held} unverified fact(s) that ask the agent to act for review: chatcli memory review.`,
    );
  const fixes = Object.entries(r.normalized);
  if (fixes.length)
    lines.push(`Normalised to the Go types: ${fixes.map(([k, n]) => `${k} (${n})`).join(", ")}.`);
  for (const x of r.rejected) lines.push(`Rejected ${x.what}: ${x.reason}`);
  return `${lines.join("\n")}\n`;
}
