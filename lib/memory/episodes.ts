import { createHash } from "node:crypto";
import { readTextIfExists } from "../core/fs.ts";
import { goToLower } from "../core/gostrings.ts";
import { formatGoTime, localDate, parseGoTime } from "./gotime.ts";
import { lockStore, type Memory, memPath, readStoreJson, writeStoreJson } from "./store.ts";
import { wordRuns } from "./text.ts";

/**
 * The Go ChatCLI's episodic timeline (`episodes.json`): dated units of work. Read for retrieval and
 * `recall`; extraction adds the episodes the model returned, in Go's format (below).
 */
export interface Episode {
  /** `YYYY-MM-DD` */
  date: string;
  at: number;
  summary: string;
  outcome: string;
  refs: string[];
  project: string;
}

const RECENT_DAYS = 14;
const MAX_SHOWN = 5;
const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");

/** Episodes with a summary and a readable date, oldest first; [] when the file is missing or not an array. */
export async function loadEpisodes(mem: Memory): Promise<Episode[]> {
  let raw: unknown;
  try {
    raw = JSON.parse((await readTextIfExists(memPath(mem, "episodes.json"))) ?? "[]");
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  const out: Episode[] = [];
  for (const item of raw) {
    if (!item || typeof item !== "object") continue;
    const e = item as Record<string, unknown>;
    const summary = str(e["summary"]);
    const when = [e["date"], e["created_at"], e["timestamp"], e["updated_at"]]
      .map((v) => (typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v))
      .map(parseGoTime)
      .find((t) => t !== undefined);
    if (!summary || when === undefined) continue;
    const date =
      /^\d{4}-\d{2}-\d{2}/.exec(str(e["date"]))?.[0] ?? new Date(when).toISOString().slice(0, 10);
    const refs = Array.isArray(e["refs"]) ? e["refs"].map(str).filter(Boolean) : [];
    out.push({
      date,
      at: when,
      summary,
      outcome: str(e["outcome"]),
      refs,
      project: str(e["project"]),
    });
  }
  return out.sort((a, b) => a.at - b.at);
}

/**
 * `## Recent Episodes` (reference §2.14 step 5b): with query keywords, the newest episodes that mention
 * one of them (any age — chatcli has no `timeline` command); otherwise the newest of the last 14 days.
 * At most 5; "" when none.
 */
export function episodesSection(
  episodes: readonly Episode[],
  hints: readonly string[],
  nowMs: number,
): string {
  const words = new Set(hints.flatMap((h) => wordRuns(h)).filter((w) => w.length >= 3));
  const matching = words.size
    ? episodes.filter((e) =>
        wordRuns([e.summary, e.outcome, e.project, ...e.refs].join(" ")).some((w) => words.has(w)),
      )
    : [];
  const recent = episodes.filter((e) => nowMs - e.at <= RECENT_DAYS * 86_400_000);
  const chosen = (matching.length ? matching : recent).slice(-MAX_SHOWN).reverse();
  if (chosen.length === 0) return "";
  const lines = chosen.map((e) => {
    let line = `- [${e.date}]${e.project ? ` (${e.project})` : ""} ${e.summary}`;
    if (e.outcome) line += ` → ${e.outcome}`;
    if (e.refs.length) line += ` [${e.refs.join(", ")}]`;
    return line;
  });
  return `## Recent Episodes\n\n${lines.join("\n")}`;
}

const FILE = "episodes.json";
const MAX_EPISODES = 2000;

/** One `- summary :: outcome :: ref, ref` line of an extraction's `## EPISODES` section. */
export interface NewEpisode {
  summary: string;
  outcome: string;
  refs: string[];
}

/** Go's episode id: `ep_` + hex of the first 12 bytes of SHA-256 of `YYYY-MM-DD|project|summary`. */
export function episodeId(day: string, project: string, summary: string): string {
  const norm = goToLower(
    summary
      .split(/[\s\u0085\u00a0]+/u)
      .filter(Boolean)
      .join(" "),
  );
  return `ep_${createHash("sha256").update(`${day}|${project}|${norm}`).digest("hex").slice(0, 24)}`;
}

type Row = Record<string, unknown>;

/**
 * Adds extracted episodes to `episodes.json` as Go's EpisodeStore.Add does: id from the local day,
 * the workspace and the summary; a repeat only fills a missing outcome and adds refs; entries are
 * `{id, date, project?, summary, outcome?, refs?, source, created_at}`, sorted by date, the oldest
 * beyond 2,000 dropped; what another process wrote (unknown keys too) is kept. Returns how many new.
 */
export async function addEpisodes(mem: Memory, items: readonly NewEpisode[]): Promise<number> {
  const fresh = items.filter((e) => e.summary.trim() !== "");
  if (fresh.length === 0 || mem.readOnly) return 0;
  const now = mem.now();
  const iso = formatGoTime(now);
  const project = mem.workspace;
  return lockStore(mem, FILE, async () => {
    const raw = await readStoreJson(mem, FILE, "array");
    const rows: Row[] = Array.isArray(raw)
      ? raw.filter((r): r is Row => !!r && typeof r === "object" && !Array.isArray(r))
      : [];
    const byId = new Map<string, Row>();
    for (const r of rows) if (typeof r["id"] === "string" && r["id"]) byId.set(r["id"], r);
    let added = 0;
    let changed = false;
    for (const e of fresh) {
      const summary = e.summary.trim();
      const outcome = e.outcome.trim();
      const id = episodeId(localDate(now), project, summary);
      const have = byId.get(id);
      if (have) {
        if (!have["outcome"] && outcome) {
          have["outcome"] = outcome;
          changed = true;
        }
        const refs = mergeRefs(Array.isArray(have["refs"]) ? have["refs"] : [], e.refs);
        if (refs.length > (Array.isArray(have["refs"]) ? have["refs"].length : 0)) {
          have["refs"] = refs;
          changed = true;
        }
        continue;
      }
      const row: Row = { id, date: iso };
      if (project) row["project"] = project;
      row["summary"] = summary;
      if (outcome) row["outcome"] = outcome;
      const refs = mergeRefs([], e.refs);
      if (refs.length) row["refs"] = refs;
      row["source"] = "extraction";
      row["created_at"] = iso;
      rows.push(row);
      byId.set(id, row);
      added++;
    }
    if (added === 0 && !changed) return 0;
    const at = (r: Row) => parseGoTime(r["date"]) ?? Number.NEGATIVE_INFINITY;
    const sorted = rows.map((r, i) => ({ r, i })).sort((a, b) => at(a.r) - at(b.r) || a.i - b.i);
    const kept = sorted.slice(Math.max(0, sorted.length - MAX_EPISODES)).map((x) => x.r);
    await writeStoreJson(mem, FILE, kept);
    return added;
  });
}

function mergeRefs(a: readonly unknown[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (const r of [...a, ...b]) {
    const t = typeof r === "string" ? r.trim() : "";
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}
