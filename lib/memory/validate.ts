import { goTrimSpace } from "../core/gostrings.ts";
import { localDateOf, localParts } from "../core/local-time.ts";
import { CATEGORIES } from "./config.ts";
import { FACT_KEYS, type Fact, factId, normalizeFact } from "./facts.ts";
import { formatGoTime, parseGoTime, ZERO_TIME } from "./gotime.ts";

/**
 * Imported values brought to the Go types of reference §2 (a value Go's `encoding/json` cannot decode
 * makes the Go tool quarantine the whole file): times RFC 3339, ints integers, floats numbers, string
 * lists of strings, enums known. What cannot be converted is rejected with a reason.
 */
export type Checked<T> = { ok: true; value: T; fixed: string[] } | { ok: false; reason: string };

/** Go's RFC 3339 as `encoding/json` reads it. */
const GO_RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

class Reject extends Error {}

/** A time field: RFC 3339 kept as is; a date, a space-separated time or epoch seconds/ms converted. */
function goTime(v: unknown, field: string, fixed: string[], missing: string): string {
  if (v === undefined || v === null || v === "") {
    fixed.push(`${field} missing`);
    return missing;
  }
  if (typeof v === "string") {
    const s = v.trim();
    if (GO_RFC3339.test(s) && (s === ZERO_TIME || parseGoTime(s) !== undefined)) return s;
    if (/^0001-01-01T00:00:00(\.0+)?(Z|[+-]00:00)$/.test(s)) return ZERO_TIME;
    const date = /^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s;
    const ms = parseGoTime(date) ?? zonelessTime(s);
    if (ms !== undefined) {
      fixed.push(`${field} as RFC 3339`);
      return formatGoTime(ms);
    }
    throw new Reject(`${field} is not a time: ${JSON.stringify(v).slice(0, 40)}`);
  }
  if (typeof v === "number" && Number.isFinite(v) && v > 0) {
    fixed.push(`${field} from epoch ${v < 1e11 ? "seconds" : "milliseconds"}`);
    return formatGoTime(v < 1e11 ? v * 1000 : v);
  }
  throw new Reject(`${field} is not a time: ${JSON.stringify(v).slice(0, 40)}`);
}

/** `2026-01-06 08:30:00` (or with a `T`, seconds and fraction optional): a time in the local zone. */
function zonelessTime(s: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map((x) => Number(x ?? 0)) as number[];
  const ms = Number((m[7] ?? "").padEnd(3, "0").slice(0, 3));
  const at = localDateOf(y as number, (mo as number) - 1, d as number, h, mi, sec, ms);
  // 2026-02-30 or 25:00 would roll over: not a time
  const back = localParts(at);
  return back.day === d && back.minutes === mi ? at.getTime() : undefined;
}

function toNumber(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(v)) return Number(v);
  throw new Reject(`${field} is not a number: ${JSON.stringify(v).slice(0, 40)}`);
}

/** A Go `int`: numeric strings and fractions rounded, with a note; missing → 0. */
function goInt(v: unknown, field: string, fixed: string[], min = 0): number {
  const n = toNumber(v, field);
  if (n === undefined) return 0;
  const i = Math.max(min, Math.round(n));
  if (i !== v) fixed.push(`${field} as an integer`);
  return i;
}

function goFloat(v: unknown, field: string, fixed: string[]): number | undefined {
  const n = toNumber(v, field);
  if (n !== undefined && n !== v) fixed.push(`${field} as a number`);
  return n;
}

function goString(v: unknown, field: string): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  throw new Reject(`${field} is not a string`);
}

function goStrings(v: unknown, field: string, fixed: string[]): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw new Reject(`${field} is not a list of strings`);
  const out = v.filter((x): x is string => typeof x === "string");
  if (out.length !== v.length) fixed.push(`${field}: non-strings dropped`);
  return out;
}

/** Keys Go would fold onto a known field (its decoder is case-insensitive) are dropped. */
function dropFolded(r: Record<string, unknown>, known: readonly string[], fixed: string[]): void {
  const lower = new Set(known.map((k) => k.toLowerCase()));
  for (const k of Object.keys(r)) {
    if (!known.includes(k) && lower.has(k.toLowerCase())) {
      delete r[k];
      fixed.push(`${k} dropped (Go would read it as ${k.toLowerCase()})`);
    }
  }
}

const PROVENANCE = /^(user|extraction|correction|legacy)( \(supersedes [0-9a-f]{24}\))?$/;

const guard = <T>(fn: (fixed: string[]) => T): Checked<T> => {
  const fixed: string[] = [];
  try {
    return { ok: true, value: fn(fixed), fixed };
  } catch (error) {
    if (error instanceof Reject) return { ok: false, reason: error.message };
    throw error;
  }
};

/** One imported fact in Go's `Fact` types (unknown keys kept); `now` fills a missing created_at. */
export function checkFact(raw: unknown, now: Date): Checked<Fact> {
  return guard((fixed) => {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new Reject("not an object");
    const r = { ...(raw as Record<string, unknown>) };
    dropFolded(r, FACT_KEYS, fixed);
    const content = goTrimSpace(goString(r["content"], "content"));
    if (!content) throw new Reject("content is empty");
    let category = goString(r["category"], "category").trim().toLowerCase();
    if (category && !(CATEGORIES as readonly string[]).includes(category)) {
      fixed.push(`category "${category}" → general`);
      category = "general";
    } else if (category !== r["category"]) fixed.push("category lower-cased");
    const created = goTime(r["created_at"], "created_at", fixed, formatGoTime(now));
    const accessed = goTime(r["last_accessed"], "last_accessed", fixed, ZERO_TIME);
    const out: Record<string, unknown> = {
      ...r,
      id: factId(content),
      content,
      category,
      created_at: created === ZERO_TIME ? formatGoTime(now) : created,
      last_accessed: accessed,
      access_count: goInt(r["access_count"], "access_count", fixed),
      score: goFloat(r["score"], "score", fixed) ?? 0,
    };
    if (typeof r["id"] === "string" && r["id"] !== out["id"]) fixed.push("id = hash of content");
    const tags = goStrings(r["tags"], "tags", fixed);
    if (tags?.length) out["tags"] = tags;
    else delete out["tags"];
    for (const k of ["source", "source_project"]) {
      const v = goString(r[k], k);
      if (v) out[k] = v;
      else delete out[k];
    }
    const conf = goFloat(r["confidence"], "confidence", fixed);
    if (conf !== undefined && conf > 0) out["confidence"] = Math.min(1, conf);
    else delete out["confidence"];
    const prov = goString(r["provenance"], "provenance").trim();
    if (prov && !PROVENANCE.test(prov)) {
      fixed.push(`provenance "${prov.slice(0, 30)}" dropped`);
      delete out["provenance"];
    } else if (prov) out["provenance"] = prov;
    else delete out["provenance"];
    const fact = normalizeFact(out);
    if (!fact) throw new Reject("unusable");
    return fact;
  });
}

type Shape = Record<string, "string" | "strings" | "time" | "int" | "float" | "bool" | "dict">;

/** A Go struct of plain fields: each known key converted to its type, unknown keys kept. */
export function checkRow(
  raw: unknown,
  shape: Shape,
  label: string,
): Checked<Record<string, unknown>> {
  return guard((fixed) => {
    if (!raw || typeof raw !== "object" || Array.isArray(raw))
      throw new Reject(`${label} is not an object`);
    const r = { ...(raw as Record<string, unknown>) };
    dropFolded(r, Object.keys(shape), fixed);
    for (const [k, type] of Object.entries(shape)) {
      const v = r[k];
      if (v === undefined) continue;
      const f = `${label}.${k}`;
      if (type === "string") r[k] = goString(v, f);
      else if (type === "strings") r[k] = goStrings(v, f, fixed) ?? null;
      else if (type === "time") r[k] = goTime(v, f, fixed, ZERO_TIME);
      else if (type === "int") r[k] = goInt(v, f, fixed, Number.MIN_SAFE_INTEGER);
      else if (type === "float") r[k] = goFloat(v, f, fixed) ?? 0;
      else if (type === "bool") {
        if (v !== null && typeof v !== "boolean") throw new Reject(`${f} is not true/false`);
      } else if (v !== null && (typeof v !== "object" || Array.isArray(v)))
        throw new Reject(`${f} is not an object`);
      else if (v !== null)
        for (const [dk, dv] of Object.entries(v as Record<string, unknown>))
          if (typeof dv !== "string") throw new Reject(`${f}.${dk} is not a string`);
    }
    return r;
  });
}

export const TOPIC_SHAPE: Shape = {
  name: "string",
  mentions: "int",
  summary: "string",
  first_seen: "time",
  last_seen: "time",
  related_fact_ids: "strings",
};
export const PROJECT_SHAPE: Shape = {
  name: "string",
  path: "string",
  description: "string",
  status: "string",
  technologies: "strings",
  key_files: "strings",
  last_active: "time",
  priority: "int",
  metadata: "dict",
};
const PROFILE_SCALARS: Shape = {
  name: "string",
  role: "string",
  expertise_level: "string",
  preferred_language: "string",
  communication_style: "string",
  company: "string",
  location: "string",
  certifications: "strings",
  skills: "strings",
  goals: "strings",
  interests: "strings",
  directives: "strings",
  environment: "dict",
  preferences: "dict",
  last_updated: "time",
};

/** `user_profile.json` fields in Go's types, nested milestones/stances/field_meta included. */
export function checkProfile(raw: unknown): Checked<Record<string, unknown>> {
  const top = checkRow(raw, PROFILE_SCALARS, "profile");
  if (!top.ok) return top;
  const p = top.value;
  const fixed = [...top.fixed];
  const nested: Array<[string, Shape]> = [
    ["milestones", { date: "time", text: "string" }],
    ["stances", { position: "string", reason: "string", updated_at: "time" }],
    ["top_commands", { command: "string", count: "int" }],
  ];
  for (const [k, shape] of nested) {
    const v = p[k];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v)) return { ok: false, reason: `profile.${k} is not a list` };
    const items: unknown[] = [];
    for (const item of v) {
      const c = checkRow(item, shape, `profile.${k}[]`);
      if (!c.ok) return c;
      fixed.push(...c.fixed);
      items.push(c.value);
    }
    p[k] = items;
  }
  const meta = p["field_meta"];
  if (meta !== undefined && meta !== null) {
    if (typeof meta !== "object" || Array.isArray(meta))
      return { ok: false, reason: "profile.field_meta is not an object" };
    const out: Record<string, unknown> = {};
    for (const [k, m] of Object.entries(meta as Record<string, unknown>)) {
      const c = checkRow(
        m,
        { source: "string", updated_at: "time", confirmed_at: "time", sensitive: "bool" },
        `profile.field_meta.${k}`,
      );
      if (!c.ok) return c;
      fixed.push(...c.fixed);
      // Go writes these times even when zero.
      out[k] = { updated_at: ZERO_TIME, confirmed_at: ZERO_TIME, ...c.value };
    }
    p["field_meta"] = out;
  }
  return { ok: true, value: p, fixed };
}
