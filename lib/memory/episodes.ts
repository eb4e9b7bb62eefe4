import { readTextIfExists } from "../core/fs.ts";
import { parseGoTime } from "./gotime.ts";
import { type Memory, memPath } from "./store.ts";
import { wordRuns } from "./text.ts";

/**
 * The Go ChatCLI's episodic timeline (`episodes.json`, a newer Go feature): read here so a user's dated
 * work log shows up in retrieval and `recall`; chatcli never writes, quarantines or rewrites the file.
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
