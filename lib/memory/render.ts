import type { CompactionResult } from "./compact.ts";
import type { Fact } from "./facts.ts";
import { localDate, localHHMM, parseGoTime } from "./gotime.ts";
import type { MemoryFiles, MemoryStats } from "./inventory.ts";
import type { Profile } from "./profile.ts";
import { PROFILE_LABELS } from "./profile-format.ts";
import type { Hit } from "./recall-hit.ts";
import { isUserSource } from "./source.ts";
import { dayOf, type Row, usageText } from "./tracking.ts";

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** Text renderers of `chatcli memory` (reference §2.21, adapted to a one-shot CLI). */
export const RULE = "─────────────────────────────────────────";

const s = (v: unknown) => (typeof v === "string" ? v : "");
const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** A titled panel: title, rule, body lines. */
export function panel(title: string, lines: readonly string[]): string {
  return `${title}\n${RULE}\n${lines.join("\n")}\n`;
}

/** `NNN. <content> [<cat>] (score: 0.00, accessed: N, id <id>)` + `Total: N facts` (ids for forget). */
export function renderFacts(facts: readonly Fact[], category?: string): string {
  if (facts.length === 0)
    return category ? `No facts in category ${category}.\n` : "No facts stored yet.\n";
  const lines = facts.map(
    (f, i) =>
      `${String(i + 1).padStart(3, "0")}. ${f.content} [${f.category || "general"}] (score: ${n(f.score).toFixed(2)}, accessed: ${f.access_count}, id ${f.id}${isUserSource(f["source"]) ? "" : `, ${s(f["source"]) || "unverified"}`})`,
  );
  return panel(category ? `Memory Facts [${category}]` : "Memory Facts", [
    ...lines,
    "",
    `Total: ${facts.length} facts`,
  ]);
}

/** Recall hits with their scores. */
export function renderHits(hits: readonly Hit[]): string {
  if (hits.length === 0) return "No matching memory.\n";
  return `${hits
    .map((h) => {
      const from = h.fromOther ? ` (from: ${h.fact.source_project})` : "";
      return `- [${h.fact.category || "general"}] ${h.fact.content}${from}  (score ${h.score.toFixed(2)})`;
    })
    .join("\n")}\n`;
}

/** Recall hits as JSON rows. */
export function hitsJson(hits: readonly Hit[]): Array<Record<string, unknown>> {
  return hits.map((h) => ({
    id: h.fact.id,
    content: h.fact.content,
    category: h.fact.category || "general",
    score: round(h.score),
    relevance: round(h.relevance),
    live_score: round(h.live),
    source_project: h.fact.source_project ?? null,
    // who said it (issue 20): null for the user's own facts and Go's, `unverified:…` otherwise
    source: typeof h.fact["source"] === "string" && h.fact["source"] ? h.fact["source"] : null,
    from_other_project: h.fromOther,
    created_at: h.fact.created_at,
  }));
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** The profile panel; "" fields skipped. */
export function renderProfile(p: Profile): string {
  const lines: string[] = [];
  for (const [k, label] of PROFILE_LABELS) if (s(p[k])) lines.push(`  ${label}: ${s(p[k])}`);
  for (const k of ["certifications", "skills", "goals", "interests", "directives"]) {
    const list = Array.isArray(p[k]) ? (p[k] as unknown[]).map(s).filter(Boolean) : [];
    if (list.length)
      lines.push(`  ${k[0]?.toUpperCase()}${k.slice(1)}:`, ...list.map((x) => `    - ${x}`));
  }
  const env = (p["environment"] as Record<string, unknown> | undefined) ?? {};
  if (Object.keys(env).length)
    lines.push(
      `  Environment: ${Object.keys(env)
        .sort()
        .map((k) => `${k}=${s(env[k])}`)
        .join(", ")}`,
    );
  const stances = Array.isArray(p["stances"]) ? (p["stances"] as Row[]) : [];
  for (const st of stances)
    lines.push(
      `  Stance: ${s(st["position"])}${s(st["reason"]) ? ` (why: ${s(st["reason"])})` : ""}`,
    );
  const ms = Array.isArray(p["milestones"]) ? (p["milestones"] as Row[]).slice(-10) : [];
  for (const m of ms) lines.push(`  Milestone: [${dayOf(m["date"])}] ${s(m["text"])}`);
  const prefs = (p["preferences"] as Record<string, unknown> | undefined) ?? {};
  const meta = (p["field_meta"] as Record<string, Row> | undefined) ?? {};
  for (const k of Object.keys(prefs).sort()) {
    const lock = meta[`pref:${k}`]?.["sensitive"] === true ? " 🔒" : "";
    lines.push(`  ${k}${lock}: ${s(prefs[k])}`);
  }
  if (lines.length === 0)
    return "No profile data yet. Interact more and the system will learn about you.\n";
  // Go's panel: `Last updated: YYYY-MM-DD HH:MM` (local time).
  const updated = parseGoTime(p["last_updated"]);
  if (updated !== undefined)
    lines.push("", `  Last updated: ${localDate(updated)} ${localHHMM(new Date(updated))}`);
  return panel("User Profile", lines);
}

/** `Tracked Topics`. */
export function renderTopics(list: readonly Row[]): string {
  if (list.length === 0) return "No topics tracked yet.\n";
  return panel(
    "Tracked Topics",
    list.map(
      (t) => `  ${s(t["name"])}  (${n(t["mentions"])} mentions, last: ${dayOf(t["last_seen"])})`,
    ),
  );
}

/** `Tracked Projects`. */
export function renderProjects(list: readonly Row[]): string {
  if (list.length === 0) return "No projects tracked yet.\n";
  const lines: string[] = [];
  for (const p of list) {
    lines.push(`  ${s(p["name"])}  [${s(p["status"]) || "unknown"}]`);
    if (s(p["path"])) lines.push(`    Path: ${s(p["path"])}`);
    if (s(p["description"])) lines.push(`    ${s(p["description"])}`);
    const tech = Array.isArray(p["technologies"]) ? (p["technologies"] as unknown[]).map(s) : [];
    if (tech.length) lines.push(`    Tech: ${tech.join(", ")}`);
    if (dayOf(p["last_active"])) lines.push(`    Last active: ${dayOf(p["last_active"])}`);
  }
  return panel("Tracked Projects", lines);
}

/** A daily note, indented. */
export function renderNote(date: string, content: string | undefined): string {
  if (!content) return `No notes found for ${date}\n`;
  return panel(
    `Memory notes for ${date}`,
    content.split("\n").map((l) => (l ? `  ${l}` : "")),
  );
}

/** Human summary of a compaction. */
export function renderCompaction(r: CompactionResult, lastCompaction?: string): string {
  if (!r.ran)
    return `Memory compaction not due${lastCompaction ? ` (last: ${lastCompaction})` : ""}; nothing to do.\n`;
  const how: Record<CompactionResult["method"], string> = {
    not_due: "",
    too_few: "fewer than 10 facts, nothing to consolidate",
    llm: "LLM consolidation",
    score: "score-based (archived facts scoring under 0.1)",
    kept: "the model returned nothing usable; all facts kept",
  };
  const lines = [
    "Compaction complete",
    `  Method: ${how[r.method]}`,
    `  Facts: ${r.before} -> ${r.after}`,
    `  Archived: ${r.archived}`,
    `  Old daily notes removed: ${r.notesRemoved}`,
  ];
  if (r.fallbackReason) lines.push(`  Note: ${r.fallbackReason}`);
  return `${lines.join("\n")}\n`;
}

/** Human byte size: `%dB`, `%.1fKB`, `%.1fMB`. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)}MB`;
}

/** A compaction result for `--json` (snake_case, CONTRACT §2). */
export function compactionJson(r: CompactionResult): Record<string, unknown> {
  return {
    ran: r.ran,
    method: r.method,
    facts_before: r.before,
    facts_after: r.after,
    archived: r.archived,
    notes_removed: r.notesRemoved,
    fallback_reason: r.fallbackReason ?? null,
  };
}

/** `memory week`. */
export function renderWeek(notes: ReadonlyArray<{ date: string; content: string }>): string {
  if (notes.length === 0) return "No notes in the last 7 days.\n";
  const lines = notes.flatMap((note) => {
    const dow = WEEKDAYS[new Date(`${note.date}T12:00:00Z`).getUTCDay()];
    return [
      `${note.date} (${dow})`,
      ...note.content.split("\n").map((l) => (l ? `    ${l}` : "")),
      "",
    ];
  });
  return panel("Memory notes — last 7 days", lines);
}

/** `memory list`. */
export function renderFiles(f: MemoryFiles): string {
  return panel("Memory files", [
    `  Facts: ${f.facts}`,
    ...f.files.map((x) => `  ${x.name}  ${humanSize(x.bytes)}`),
    `  Daily notes: ${f.daily_notes.length}`,
    ...f.daily_notes.slice(-10).map((x) => `    ${x}`),
  ]);
}

/** `memory stats`. */
export function renderStats(s: MemoryStats): string {
  // As the index digest: most facts first, then by name.
  const cats = Object.entries(s.facts_by_category)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([c, k]) => `${c} ${k}`);
  return panel("Memory System Stats", [
    `  Facts: ${s.facts}${cats.length ? ` (${cats.join(", ")})` : ""}`,
    ...(s.archived > 0 ? [`  Archived: ${s.archived} (memory_archive.json)`] : []),
    `  Topics: ${s.topics}`,
    `  Projects: ${s.projects}`,
    `  Sessions: ${n(s.usage["session_count"])}`,
    `  Total messages: ${n(s.usage["total_messages"])}`,
    ...(n(s.usage["avg_session_secs"]) > 0
      ? [`  Avg session: ${Math.round(n(s.usage["avg_session_secs"]) / 60)} min`]
      : []),
    ...usageText(s.usage)
      .split("\n")
      .filter((l) => l.startsWith("Peak hours:"))
      .map((l) => `  ${l}`),
    ...counted("Top commands", s.usage["command_frequency"], 5),
    ...counted("Features", s.usage["feature_usage"]),
    ...commonErrors(s.usage["common_errors"]),
    ...(dayOf(s.usage["last_session"])
      ? [`  Last session: ${dayOf(s.usage["last_session"])}`]
      : []),
  ]);
}

/** `  Label: a(3), b(1)` from a Go `map[string]int`, most used first; nothing when empty. */
function counted(label: string, value: unknown, limit = Infinity): string[] {
  if (!value || typeof value !== "object" || Array.isArray(value)) return [];
  const items = Object.entries(value as Record<string, unknown>)
    .filter(([, k]) => n(k) > 0)
    .sort(([a, x], [b, y]) => n(y) - n(x) || a.localeCompare(b))
    .slice(0, limit)
    .map(([name, k]) => `${name}(${n(k)})`);
  return items.length ? [`  ${label}: ${items.join(", ")}`] : [];
}

/** Go's `common_errors` (`[{pattern, count, resolution?, last_seen}]`), most frequent first. */
function commonErrors(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const rows = value
    .filter((e): e is Record<string, unknown> => !!e && typeof e === "object")
    .filter((e) => typeof e["pattern"] === "string" && e["pattern"] !== "")
    .sort((a, b) => n(b["count"]) - n(a["count"]))
    .slice(0, 5)
    .map((e) => {
      const fix =
        typeof e["resolution"] === "string" && e["resolution"] ? ` → ${e["resolution"]}` : "";
      return `    ${e["pattern"]} (${n(e["count"])}x)${fix}`;
    });
  return rows.length ? ["  Common errors:", ...rows] : [];
}
