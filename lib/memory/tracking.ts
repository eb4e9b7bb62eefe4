import { localParts } from "../core/local-time.ts";
import { redact } from "../core/redact.ts";
import { formatGoTime, localDate, parseGoTime } from "./gotime.ts";
import { lockStore, type Memory, readStoreJson, writeStoreJson } from "./store.ts";
import { cutBytes } from "./text.ts";

/** topics.json / projects.json / usage_stats.json entries (reference §2.11); unknown keys kept. */
export type Row = Record<string, unknown>;

const str = (v: unknown) => (typeof v === "string" ? v : "");
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const rows = (v: unknown): Row[] =>
  Array.isArray(v)
    ? v.filter((x): x is Row => !!x && typeof x === "object" && !Array.isArray(x))
    : [];

/** Reads topics.json. */
export async function loadTopics(mem: Memory): Promise<Row[]> {
  return rows(await readStoreJson(mem, "topics.json", "array"));
}

/** Records topic mentions (`mentions++`, summary replaced when given, 240-byte cap). */
export async function recordTopics(
  mem: Memory,
  topics: ReadonlyArray<{ name: string; summary?: string }>,
): Promise<number> {
  const clean = topics
    .map((t) => ({
      name: t.name
        .trim()
        .replace(/^[-•*#]+|[-•*#]+$/g, "")
        .trim(),
      summary: redact((t.summary ?? "").trim(), mem.cfg.secrets),
    }))
    .filter((t) => Buffer.byteLength(t.name) >= 2);
  if (clean.length === 0) return 0;
  return lockStore(mem, "topics.json", async () => {
    const list = await loadTopics(mem);
    const iso = formatGoTime(mem.now());
    for (const t of clean) {
      let row = list.find((r) => str(r["name"]) === t.name);
      if (!row) {
        row = { name: t.name, mentions: 0, first_seen: iso, last_seen: iso };
        list.push(row);
      }
      row["mentions"] = num(row["mentions"]) + 1;
      row["last_seen"] = iso;
      if (t.summary) row["summary"] = cutBytes(t.summary, 240);
    }
    list.sort((a, b) => num(b["mentions"]) - num(a["mentions"]));
    await writeStoreJson(mem, "topics.json", list);
    return clean.length;
  });
}

/** Topics ranked by mentions / (1 + daysSinceLastSeen/30). */
export function rankTopics(list: readonly Row[], nowMs: number): Row[] {
  const rank = (r: Row) => {
    const last = parseGoTime(r["last_seen"]) ?? nowMs;
    return num(r["mentions"]) / (1 + Math.max(0, nowMs - last) / 86400_000 / 30);
  };
  return [...list].sort(
    (a, b) => rank(b) - rank(a) || str(a["name"]).localeCompare(str(b["name"])),
  );
}

/** `Active topics:` prompt text of the top N topics. */
export function topicsText(list: readonly Row[], nowMs: number, top: number): string {
  const items = rankTopics(list, nowMs)
    .slice(0, top)
    .map((r) =>
      str(r["summary"]) ? `${str(r["name"])} — ${cutBytes(str(r["summary"]), 80)}` : str(r["name"]),
    );
  return items.length ? `Active topics:\n  - ${items.join("\n  - ")}` : "";
}

/** Reads projects.json. */
export async function loadProjects(mem: Memory): Promise<Row[]> {
  return rows(await readStoreJson(mem, "projects.json", "array"));
}

function normalizeStatus(s: string): string {
  const v = s.trim().toLowerCase();
  if (v === "active" || v === "ativo") return "active";
  if (v === "paused" || v === "pausado") return "paused";
  if (["completed", "done", "concluido", "concluído"].includes(v)) return "completed";
  return s.trim();
}

/** Upserts a project from `project_*` keys; returns whether it changed. */
export async function upsertProject(mem: Memory, kv: Record<string, string>): Promise<boolean> {
  const get = (k: string) => redact((kv[k] ?? "").trim(), mem.cfg.secrets);
  const name = (get("project_name") || get("name")).toLowerCase();
  if (!name) return false;
  return lockStore(mem, "projects.json", async () => {
    const list = await loadProjects(mem);
    let row = list.find((r) => str(r["name"]) === name);
    const created = !row;
    if (!row) {
      // As Go's projects.go: a new project is active until told otherwise.
      row = { name, status: "active" };
      list.push(row);
    }
    const before = JSON.stringify(row);
    if (get("project_path")) row["path"] = get("project_path");
    if (get("project_description")) row["description"] = get("project_description");
    if (get("project_status")) row["status"] = normalizeStatus(get("project_status"));
    const techs = Array.isArray(row["technologies"]) ? (row["technologies"] as string[]) : [];
    for (const t of get("project_technologies")
      .split(/[,;|]/)
      .map((x) => x.trim())
      .filter(Boolean)) {
      if (!techs.some((x) => x.toLowerCase() === t.toLowerCase())) techs.push(t);
    }
    if (techs.length) row["technologies"] = techs;
    const changed = created || JSON.stringify(row) !== before;
    if (!changed) return false;
    row["last_active"] = formatGoTime(mem.now());
    row["priority"] ??= 0;
    await writeStoreJson(mem, "projects.json", list);
    return true;
  });
}

/** Active or paused projects, most recently active first. */
export function activeProjects(list: readonly Row[]): Row[] {
  return list
    .filter((r) => ["active", "paused"].includes(str(r["status"])))
    .sort((a, b) => (parseGoTime(b["last_active"]) ?? 0) - (parseGoTime(a["last_active"]) ?? 0));
}

/** `Active projects:` prompt text. */
export function projectsText(list: readonly Row[]): string {
  const lines = activeProjects(list).map((r) => {
    let line = `- ${str(r["name"])}`;
    if (str(r["path"])) line += ` (${str(r["path"])})`;
    if (str(r["description"])) line += `: ${str(r["description"])}`;
    const tech = Array.isArray(r["technologies"]) ? (r["technologies"] as string[]) : [];
    if (tech.length) line += ` [${tech.join(", ")}]`;
    return line;
  });
  return lines.length ? `Active projects:\n${lines.join("\n")}` : "";
}

/** Reads usage_stats.json. */
export async function loadUsage(mem: Memory): Promise<Row> {
  const raw = await readStoreJson(mem, "usage_stats.json", "object");
  return raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Row) : {};
}

/** One extraction pass: total_messages += n, hour_distribution[hour]++, feature_usage[feature]++. */
export async function recordUsage(mem: Memory, messages: number, feature: string): Promise<void> {
  await lockStore(mem, "usage_stats.json", async () => {
    const u = await loadUsage(mem);
    const now = mem.now();
    u["session_count"] = num(u["session_count"]);
    u["total_messages"] = num(u["total_messages"]) + messages;
    u["avg_session_secs"] = num(u["avg_session_secs"]);
    const hours = Array.isArray(u["hour_distribution"]) ? (u["hour_distribution"] as number[]) : [];
    const dist = Array.from({ length: 24 }, (_, i) => num(hours[i]));
    const hour = localParts(now).hours;
    dist[hour] = (dist[hour] ?? 0) + 1;
    u["hour_distribution"] = dist;
    u["command_frequency"] ??= {};
    const features = (u["feature_usage"] as Record<string, number> | null) ?? {};
    features[feature] = num(features[feature]) + 1;
    u["feature_usage"] = features;
    u["last_session"] = formatGoTime(now);
    await writeStoreJson(mem, "usage_stats.json", u);
  });
}

/**
 * The REPL's session bookkeeping, as Go's: at start `session_count++` and `last_session=now`; at exit
 * (`durationSecs` given) the running average `avg += (duration − avg) / session_count`.
 */
export async function recordReplSession(mem: Memory, durationSecs?: number): Promise<void> {
  await lockStore(mem, "usage_stats.json", async () => {
    const u = await loadUsage(mem);
    if (durationSecs === undefined) {
      u["session_count"] = num(u["session_count"]) + 1;
      u["last_session"] = formatGoTime(mem.now());
    } else {
      const count = Math.max(1, num(u["session_count"]));
      const avg = num(u["avg_session_secs"]);
      u["avg_session_secs"] = avg + (durationSecs - avg) / count;
    }
    await writeStoreJson(mem, "usage_stats.json", u);
  });
}

/** `## Usage Patterns` body text ("" when there is nothing to say). */
export function usageText(u: Row): string {
  const lines: string[] = [];
  const sessions = num(u["session_count"]);
  if (sessions)
    lines.push(`Sessions: ${sessions} (avg ${Math.round(num(u["avg_session_secs"]) / 60)} min)`);
  const dist = Array.isArray(u["hour_distribution"]) ? (u["hour_distribution"] as number[]) : [];
  const peaks = dist
    .map((n, h) => ({ n: num(n), h }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n || a.h - b.h)
    .slice(0, 3)
    .map((x) => `${String(x.h).padStart(2, "0")}:00`);
  if (peaks.length) lines.push(`Peak hours: ${peaks.join(", ")}`);
  const f = (u["feature_usage"] as Record<string, number> | null) ?? {};
  const modes = Object.keys(f)
    .sort((a, b) => num(f[b]) - num(f[a]) || a.localeCompare(b))
    .slice(0, 3);
  if (modes.length) lines.push(`Preferred modes: ${modes.join(", ")}`);
  return lines.join("\n");
}

/** `YYYY-MM-DD` of a Go time, "" when unset. */
export function dayOf(v: unknown): string {
  const t = parseGoTime(v);
  return t === undefined ? "" : localDate(t);
}
