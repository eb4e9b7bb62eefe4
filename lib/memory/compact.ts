import { writeFileAtomic } from "../core/fs.ts";
import {
  ARCHIVE_THRESHOLD,
  CATEGORIES,
  COMPACTION_CHECK_MS,
  COMPACTION_INTERVAL_MS,
} from "./config.ts";
import type { ExtractLlm } from "./extract.ts";
import { type Fact, factId, liveScore, rankedFacts, removeFact } from "./facts.ts";
import { formatGoTime, parseGoTime } from "./gotime.ts";
import { cleanupDaily } from "./notes.ts";
import { isUserSource } from "./source.ts";
import {
  appendArchive,
  loadFacts,
  lockStore,
  type Memory,
  memPath,
  mutateFacts,
  readStoreJson,
  writeStoreJson,
} from "./store.ts";

export const COMPACTION_INSTRUCTIONS = `You consolidate a long-term memory store. Below is the list of stored facts. Produce the cleaned list:
- merge duplicates and near-duplicates into one fact;
- drop facts that are obsolete, temporary or trivial;
- consolidate related facts about the same subject;
- keep every unique, actionable piece of information; preserve paths, commands and exact details;
- user preferences, personal information, gotchas and patterns are high priority;
- keep the language of each fact.
Output ONLY lines of the form:
- [category] fact content
where category is one of: architecture, pattern, preference, gotcha, project, personal, general. No headers, no commentary.`;

export interface CompactionResult {
  ran: boolean;
  /** not_due | too_few | llm | score | kept (empty LLM answer) */
  method: "not_due" | "too_few" | "llm" | "score" | "kept";
  before: number;
  after: number;
  archived: number;
  notesRemoved: number;
  /** Why the LLM path was not used, when it was tried. */
  fallbackReason?: string;
}

/** Due when 24 h passed since `compactor_state.json` last_compaction (missing/corrupt → due). */
export async function compactionDue(mem: Memory): Promise<boolean> {
  const raw = (await readStoreJson(mem, "compactor_state.json", "object")) as
    | Record<string, unknown>
    | undefined;
  const last = parseGoTime(raw?.["last_compaction"]);
  return last === undefined || mem.now().getTime() - last >= COMPACTION_INTERVAL_MS;
}

/**
 * For one-shot commands: true at most once per 6 h (tracked on disk) and only when compaction is
 * due — the caller then starts a detached `chatcli memory compact --if-due`.
 */
export async function compactionCheckDue(mem: Memory): Promise<boolean> {
  const now = mem.now().getTime();
  const state = "chatcli_memory_state.json";
  const checked = await lockStore(mem, state, async () => {
    const raw = await readStoreJson(mem, state, "object");
    const s =
      raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    const last = parseGoTime(s["last_compaction_check"]);
    if (last !== undefined && now - last < COMPACTION_CHECK_MS) return false;
    s["version"] = 1;
    s["last_compaction_check"] = formatGoTime(now);
    await writeStoreJson(mem, state, s);
    return true;
  });
  return checked && (await compactionDue(mem));
}

async function markCompacted(mem: Memory): Promise<void> {
  await writeFileAtomic(
    memPath(mem, "compactor_state.json"),
    JSON.stringify({ last_compaction: formatGoTime(mem.now()) }),
  );
}

/** The consolidation prompt: instructions + the numbered facts with stored score and accesses. */
export function buildCompactionPrompt(facts: readonly Fact[]): string {
  const lines = facts.map(
    (f, i) =>
      `${i + 1}. [${f.category || "general"}] ${f.content} (score: ${(f.score || 0).toFixed(2)}, accessed: ${f.access_count} times)`,
  );
  return `${COMPACTION_INSTRUCTIONS}\n\n---\n\nCURRENT FACTS (${facts.length} total):\n\n${lines.join("\n")}`;
}

/** Parses the consolidation answer; matched originals keep their history (created_at, confidence, …). */
export function parseCompaction(
  response: string,
  originals: readonly Fact[],
  nowIso: string,
): Fact[] {
  const out = new Map<string, Fact>();
  for (const raw of response.split("\n")) {
    let line = raw.trim();
    if (!line || line.startsWith("#") || line.startsWith("---")) continue;
    line = line
      .replace(/^[0-9.\-) ]+/, "")
      .replace(/^[*-] /, "")
      .trim();
    let category = "general";
    const m = /^\[([^\]]*)\]\s*/.exec(line);
    if (m) {
      const c = (m[1] as string).trim().toLowerCase();
      if ((CATEGORIES as readonly string[]).includes(c)) category = c;
      line = line.slice(m[0].length).trim();
    }
    if (!line) continue;
    const probe = Buffer.from(line.toLowerCase(), "utf8")
      .subarray(0, 50)
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    const match = originals.find((f) => f.content.toLowerCase().includes(probe));
    const id = factId(line);
    const fact: Fact = match
      ? { ...match, id, content: line, category, last_accessed: nowIso }
      : {
          id,
          content: line,
          category,
          created_at: nowIso,
          last_accessed: nowIso,
          access_count: 1,
          score: 1,
          confidence: 0.6,
          provenance: "extraction",
        };
    out.set(id, fact);
  }
  return [...out.values()];
}

/** Runs fact compaction (LLM with guards, else score-based), daily-note cleanup and MEMORY.md. */
export async function compactMemory(
  mem: Memory,
  options: { llm?: ExtractLlm; ifDue?: boolean; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<CompactionResult> {
  const snapshot = await loadFacts(mem);
  const before = snapshot.facts.size;
  if (options.ifDue && !(await compactionDue(mem))) {
    return { ran: false, method: "not_due", before, after: before, archived: 0, notesRemoved: 0 };
  }
  const result: CompactionResult = {
    ran: true,
    method: "score",
    before,
    after: before,
    archived: 0,
    notesRemoved: 0,
  };
  const originals = rankedFacts(snapshot.facts.values(), mem.now().getTime());
  // Only the user's facts are consolidated (issue 20): an unverified note never reaches the model
  // that rewrites the user's facts (it could steer it), and passes through unchanged.
  const mine = originals.filter((f) => isUserSource(f["source"]));
  const others = originals.filter((f) => !isUserSource(f["source"]));
  let replacement: Fact[] | undefined;
  if (options.llm) {
    if (mine.length < 10) result.method = "too_few";
    else {
      try {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 120_000);
        options.signal?.addEventListener("abort", () => controller.abort(), { once: true });
        const answer = await options
          .llm(buildCompactionPrompt(mine), controller.signal)
          .finally(() => clearTimeout(timer));
        const parsed = parseCompaction(answer, mine, formatGoTime(mem.now()));
        if (parsed.length === 0) result.method = "kept";
        else if (parsed.length < mine.length * 0.5)
          result.fallbackReason = `rejected: ${parsed.length} of ${mine.length} facts looks truncated`;
        else {
          replacement = [...parsed, ...others];
          result.method = "llm";
        }
      } catch (error) {
        result.fallbackReason = `llm failed: ${(error as Error).message}`;
      }
    }
  }
  if (result.method === "score") {
    const nowMs = mem.now().getTime();
    const victims = originals.filter((f) => liveScore(f, nowMs) < ARCHIVE_THRESHOLD);
    const ids = new Set(victims.map((f) => f.id));
    replacement = originals.filter((f) => !ids.has(f.id));
  }
  if (replacement) {
    const keep = new Set(replacement.map((f) => f.id));
    const dropped = originals.filter((f) => !keep.has(f.id));
    await appendArchive(mem, dropped);
    result.archived = dropped.length;
    result.after = await mutateFacts(
      mem,
      (state) => {
        const iso = formatGoTime(mem.now());
        for (const f of dropped) removeFact(state, f.id, iso);
        for (const f of replacement ?? []) {
          state.facts.set(f.id, f);
          state.tombstones.delete(f.id);
        }
        // Facts another process added meanwhile (not in the snapshot) stay as they are.
        return state.facts.size;
      },
      { markdown: () => true },
    );
  }
  result.notesRemoved = await cleanupDaily(mem);
  await markCompacted(mem);
  return result;
}

/**
 * After a command that loaded memory: when a check is due (≤ once per 6 h) and compaction is due,
 * calls `spawnSelf` — the caller starts `chatcli memory compact --if-due` detached, never waiting for
 * it (lib/memory starts no process itself).
 */
export async function scheduleCompactionIfDue(
  mem: Memory,
  spawnSelf: () => void,
): Promise<boolean> {
  if (!mem.cfg.enabled) return false;
  if (!(await compactionCheckDue(mem))) return false;
  spawnSelf();
  return true;
}
