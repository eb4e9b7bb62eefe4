import { stat } from "node:fs/promises";
import { listDailyFiles } from "./notes.ts";
import { loadFacts, type Memory, memPath, readStoreJson } from "./store.ts";
import { loadProjects, loadTopics, loadUsage, type Row } from "./tracking.ts";

export interface MemoryFiles {
  dir: string;
  facts: number;
  files: Array<{ name: string; path: string; bytes: number }>;
  daily_notes: string[];
}

/** The store's files with sizes, the fact count and every daily note (`memory list`). */
export async function memoryFiles(mem: Memory): Promise<MemoryFiles> {
  const files: MemoryFiles["files"] = [];
  const names = [
    "MEMORY.md",
    "user_profile.json",
    "topics.json",
    "projects.json",
    "usage_stats.json",
    "memory_index.json",
    "memory_archive.json",
  ];
  for (const name of names) {
    const info = await stat(memPath(mem, name)).catch(() => undefined);
    if (info) files.push({ name, path: memPath(mem, name), bytes: info.size });
  }
  const facts = (await loadFacts(mem)).facts.size;
  return { dir: mem.cfg.dir, facts, files, daily_notes: await listDailyFiles(mem) };
}

export interface MemoryStats {
  facts: number;
  facts_by_category: Record<string, number>;
  /** Entries of `memory_archive.json` (facts the cap or compaction moved out of the index). */
  archived: number;
  /** The fact cap (`CHATCLI_MEMORY_MAX_FACTS`). */
  max_facts: number;
  topics: number;
  projects: number;
  usage: Row;
}

/** Counts for `memory stats`. */
export async function memoryStats(mem: Memory): Promise<MemoryStats> {
  const [state, archive, topics, projects, usage] = await Promise.all([
    loadFacts(mem),
    readStoreJson(mem, "memory_archive.json", "array"),
    loadTopics(mem),
    loadProjects(mem),
    loadUsage(mem),
  ]);
  const byCat: Record<string, number> = {};
  for (const f of state.facts.values())
    byCat[f.category || "general"] = (byCat[f.category || "general"] ?? 0) + 1;
  return {
    facts: state.facts.size,
    facts_by_category: byCat,
    archived: Array.isArray(archive) ? archive.length : 0,
    max_facts: mem.cfg.maxFacts,
    topics: topics.length,
    projects: projects.length,
    usage,
  };
}
