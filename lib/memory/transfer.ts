import { join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { createFileAtomic, readTextIfExists } from "../core/fs.ts";
import { redactDeep } from "../core/redact.ts";
import { factToJson, isBuried, normalizeFact, rankedFacts } from "./facts.ts";
import { listDailyFiles } from "./notes.ts";
import { loadProfile, profileToJson } from "./profile.ts";
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
  facts_added: number;
  facts_merged: number;
  facts_rejected: number;
  profile_fields: number;
  topics_added: number;
  projects_added: number;
  notes_added: number;
}

const rows = (v: unknown): Row[] =>
  Array.isArray(v)
    ? v.filter((x): x is Row => !!x && typeof x === "object" && !Array.isArray(x))
    : [];

/** Merges an export document into the store: facts deduped by id, absent entries added. */
export async function importMemory(
  mem: Memory,
  doc: Record<string, unknown>,
): Promise<ImportSummary> {
  const clean = redactDeep(doc, mem.cfg.secrets);
  const out: ImportSummary = {
    facts_added: 0,
    facts_merged: 0,
    facts_rejected: 0,
    profile_fields: 0,
    topics_added: 0,
    projects_added: 0,
    notes_added: 0,
  };
  const incoming = (Array.isArray(clean["facts"]) ? clean["facts"] : [])
    .map(normalizeFact)
    .filter((f) => f !== undefined);
  if (incoming.length) {
    await mutateFacts(
      mem,
      (state) => {
        for (const f of incoming) {
          if (mem.cfg.threatscan && scanThreat(f.content)) {
            out.facts_rejected++;
            continue;
          }
          const have = state.facts.get(f.id);
          if (have) {
            state.facts.set(f.id, mergeFact(have, f));
            out.facts_merged++;
          } else if (!isBuried(f, state.tombstones)) {
            state.facts.set(f.id, f);
            out.facts_added++;
          }
        }
      },
      { markdown: () => true },
    );
  }
  const profile = clean["profile"];
  if (profile && typeof profile === "object" && !Array.isArray(profile)) {
    await lockStore(mem, "user_profile.json", async () => {
      const current = await loadProfile(mem);
      for (const [k, v] of Object.entries(profile)) {
        if (k === "last_updated" || v === null || v === "" || k in current) continue;
        current[k] = v;
        out.profile_fields++;
      }
      if (out.profile_fields)
        await writeStoreJson(mem, "user_profile.json", profileToJson(current));
    });
  }
  out.topics_added = await mergeRows(mem, "topics.json", rows(clean["topics"]));
  out.projects_added = await mergeRows(mem, "projects.json", rows(clean["projects"]));
  const notes = clean["daily_notes"];
  if (notes && typeof notes === "object") {
    for (const [rel, text] of Object.entries(notes)) {
      if (!/^\d{6}\/\d{8}\.md$/.test(rel) || typeof text !== "string") continue;
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

/** Parses an export document; malformed input is a usage error (exit 2, bad_input). */
export function parseExportDocument(text: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`import: not JSON (${(error as Error).message})`, { reason: "bad_input" });
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) {
    throw new UsageError("import: expected a JSON object", { reason: "bad_input" });
  }
  return doc as Record<string, unknown>;
}

/** One line summarising an import. */
export function importSummaryText(r: ImportSummary): string {
  return `Imported: ${r.facts_added} fact(s) added, ${r.facts_merged} merged, ${r.facts_rejected} rejected; ${r.profile_fields} profile field(s), ${r.topics_added} topic(s), ${r.projects_added} project(s), ${r.notes_added} daily note(s).\n`;
}
