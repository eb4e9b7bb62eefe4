import { goToLower, goTrimSpace } from "../core/gostrings.ts";
import { CATEGORIES, HALF_LIFE_DAYS, TOMBSTONE_RETENTION_MS } from "./config.ts";
import { formatGoTime, parseGoTime } from "./gotime.ts";
import { type FactTokens, factTokens, reconcile } from "./reconcile.ts";
import { isUserSource } from "./source.ts";

/** One long-term fact as stored in `memory_index.json` (reference §2.3); unknown keys kept. */
export interface Fact {
  id: string;
  content: string;
  category: string;
  tags?: string[];
  created_at: string;
  last_accessed: string;
  access_count: number;
  score: number;
  source_project?: string;
  confidence?: number;
  provenance?: string;
  [extra: string]: unknown;
}

/** The in-memory index: facts by id plus tombstones (`factId → RFC 3339 time`). */
export interface FactState {
  facts: Map<string, Fact>;
  tombstones: Map<string, string>;
  /** Memo of the reconcile tokens per fact (keeps bulk inserts linear-ish). */
  tokens?: WeakMap<Fact, FactTokens>;
  /** Facts the cap removed since the state was read: archived before the index is written. */
  archived?: Fact[];
  /** How many facts the cap moved to the archive while this state was written. */
  pruned?: number;
}

function tokensOf(state: FactState, fact: Fact): FactTokens {
  state.tokens ??= new WeakMap();
  let t = state.tokens.get(fact);
  if (!t) {
    t = factTokens(fact.content);
    state.tokens.set(fact, t);
  }
  return t;
}

export const CONFIDENCE = { user: 0.9, correction: 1.0, extraction: 0.6 } as const;

/**
 * Fact id: hex of the first 12 bytes of SHA-256 of the content trimmed and lower-cased as Go does.
 * Bun's hasher, not node:crypto: loading that module costs ~2 ms, a fifth of a `memory facts` start
 * (issue 23), for an id only a store without ids needs.
 */
export function factId(content: string): string {
  return new Bun.CryptoHasher("sha256")
    .update(goToLower(goTrimSpace(content)))
    .digest("hex")
    .slice(0, 24);
}

/** Live score: (1 + ln(1 + access)) × exp(−days·ln2/30) × (0.5 + confidence). */
export function liveScore(fact: Fact, nowMs: number): number {
  const last = parseGoTime(fact.last_accessed) ?? parseGoTime(fact.created_at) ?? nowMs;
  const days = Math.max(0, nowMs - last) / 86400_000;
  const confidence = fact.confidence && fact.confidence > 0 ? fact.confidence : 0.6;
  const access = Math.max(0, fact.access_count || 0);
  return (
    (1 + Math.log(1 + access)) * Math.exp((-days * Math.LN2) / HALF_LIFE_DAYS) * (0.5 + confidence)
  );
}

/** Legacy confidence backfill: clamp(0.5 + 0.1·ln(1+access), 0.5, 0.85). */
export function legacyConfidence(access: number): number {
  return Math.min(0.85, Math.max(0.5, 0.5 + 0.1 * Math.log(1 + Math.max(0, access))));
}

/** Normalises a raw JSON fact (Go quirks: null lists, zero times); returns undefined if unusable. */
export function normalizeFact(raw: unknown): Fact | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  return normalizeParsedFact({ ...(raw as Record<string, unknown>) });
}

/**
 * normalizeFact of an object the caller hands over — one JSON.parse just made — changed in place
 * instead of copied: the same fact, keys in the same order (a key it lacks is added at the end, as
 * the copy adds it). Reading the store does this for every fact at every start (issue 23).
 */
export function normalizeParsedFact(raw: unknown): Fact | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const fact = raw as Fact;
  // Inline typeof checks, not str()/num(): this runs for every fact at every start, before the
  // engine compiles it, where each helper call costs more than the check itself (~1 → 0.3 ms
  // for 500 facts, issue 23). `x - x === 0` is Number.isFinite for a number.
  const content = typeof fact.content === "string" ? fact.content : "";
  if (content.trim() === "") return undefined;
  const rawConfidence: unknown = fact.confidence;
  const confidence =
    typeof rawConfidence === "number" && rawConfidence - rawConfidence === 0 ? rawConfidence : 0;
  // written only where the value changes (a stored fact is nearly always right already)
  if (typeof fact.id !== "string" || fact.id === "") fact.id = factId(content);
  if (fact.content !== content) fact.content = content;
  if (typeof fact.category !== "string") fact.category = "";
  if (typeof fact.created_at !== "string") fact.created_at = "";
  if (typeof fact.last_accessed !== "string") fact.last_accessed = "";
  const access: unknown = fact.access_count;
  if (typeof access !== "number" || access - access !== 0) fact.access_count = 0;
  const score: unknown = fact.score;
  if (typeof score !== "number" || score - score !== 0) fact.score = 0;
  const tags = stringsOf(fact.tags);
  if (tags.length === 0) delete fact.tags;
  else if (fact.tags !== tags) fact.tags = tags;
  if (confidence <= 0) {
    fact.confidence = legacyConfidence(fact.access_count);
    if (typeof fact.provenance !== "string" || fact.provenance === "") fact.provenance = "legacy";
  }
  return fact;
}

/** The strings of a JSON list (the list itself when they all are); [] for anything else. */
function stringsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  for (let i = 0; i < value.length; i++) {
    if (typeof value[i] !== "string") return value.filter((t) => typeof t === "string");
  }
  return value as string[];
}

/** Orders keys like Go's struct (known fields first), extras after; omitempty honoured. */
export function factToJson(fact: Fact): Record<string, unknown> {
  const { id, content, category, tags, created_at, last_accessed, access_count, score } = fact;
  const out: Record<string, unknown> = { id, content, category };
  if (tags && tags.length > 0) out["tags"] = tags;
  if (typeof fact["source"] === "string" && fact["source"]) out["source"] = fact["source"];
  Object.assign(out, { created_at, last_accessed, access_count, score });
  if (fact.source_project) out["source_project"] = fact.source_project;
  if (fact.confidence) out["confidence"] = fact.confidence;
  if (fact.provenance) out["provenance"] = fact.provenance;
  for (const [k, v] of Object.entries(fact)) if (!(k in out) && !KNOWN.has(k)) out[k] = v;
  return out;
}

/** The keys of the Go tool's Fact struct (memory_index.json); any other key is kept as it came. */
export const FACT_KEYS = [
  "id",
  "content",
  "category",
  "tags",
  "source",
  "created_at",
  "last_accessed",
  "access_count",
  "score",
  "source_project",
  "confidence",
  "provenance",
] as const;

const KNOWN = new Set<string>(FACT_KEYS);

/** Facts in live-score order (tie: id asc), with the `score` annotation refreshed. */
export function rankedFacts(facts: Iterable<Fact>, nowMs: number): Fact[] {
  return scoredFacts(facts, nowMs).map((s) => s.fact);
}

/** rankedFacts with each fact's live score beside it, computed once (what `memory facts` prints). */
export function scoredFacts(
  facts: Iterable<Fact>,
  nowMs: number,
): Array<{ fact: Fact; live: number }> {
  const list: Array<{ fact: Fact; live: number }> = [];
  for (const fact of facts) {
    const live = liveScore(fact, nowMs);
    fact.score = Math.round(live * 1e4) / 1e4;
    list.push({ fact, live });
  }
  // A store is written in rank order, and live scores all decay at one rate (their order does not
  // change with time), so the list is nearly always in order already: a check instead of a sort
  // that calls its comparator ~4,500 times for 500 facts, cold (issue 23).
  for (let i = 1; i < list.length; i++) {
    const a = list[i - 1] as { fact: Fact; live: number };
    const b = list[i] as { fact: Fact; live: number };
    if (!(a.live > b.live || (a.live === b.live && a.fact.id < b.fact.id)))
      return list.sort((x, y) => y.live - x.live || (x.fact.id < y.fact.id ? -1 : 1));
  }
  return list;
}

/**
 * What `memory facts` lists: the scored facts of `category` (every one when none), at most `limit`,
 * each with its `live_score` as the last key. Set on the fact itself, not on a copy of each (a key
 * `live_score` the fact already has keeps its place, as it would in a copy): the facts are the
 * caller's, just read.
 */
export function listedFacts(
  scored: ReadonlyArray<{ fact: Fact; live: number }>,
  category?: string,
  limit?: number,
): Array<Fact & { live_score: number }> {
  const cat = category?.trim().toLowerCase();
  const out: Array<Fact & { live_score: number }> = [];
  for (const { fact, live } of scored) {
    if (limit && limit > 0 && out.length >= limit) break;
    if (cat && (fact.category || "general") !== cat) continue;
    fact["live_score"] = live;
    out.push(fact as Fact & { live_score: number });
  }
  return out;
}

export interface AddInput {
  content: string;
  category?: string;
  tags?: string[];
  sourceProject?: string;
  confidence?: number;
  provenance?: string;
  /**
   * Where the text came from when not the user: `tool:web_fetch`, `tool:run_command`, `agent`
   * (Go's struct has this `source` field and keeps it; it never writes one itself).
   */
  source?: string;
}

export type AddOutcome =
  | { kind: "added"; id: string; superseded?: string; pruned: string[] }
  | { kind: "reinforced"; id: string }
  | { kind: "empty" };

function reinforce(fact: Fact, input: AddInput, nowIso: string): void {
  fact.access_count = (fact.access_count || 0) + 1;
  fact.last_accessed = nowIso;
  if (!fact.source_project && input.sourceProject) fact.source_project = input.sourceProject;
  const newConf = input.confidence && input.confidence > 0 ? input.confidence : 0.6;
  fact.confidence = Math.min(1, Math.max(fact.confidence || 0.6, newConf) + 0.05);
  if (!fact.provenance && input.provenance) fact.provenance = input.provenance;
}

/** Removes a fact and records its tombstone. */
export function removeFact(state: FactState, id: string, nowIso: string): boolean {
  const had = state.facts.delete(id);
  state.tombstones.set(id, nowIso);
  return had;
}

/** §2.4 AddFactWithMeta: dedupe, reinforce, supersede same-subject facts, enforce the cap. */
export function addFact(
  state: FactState,
  input: AddInput,
  now: Date,
  maxFacts: number,
): AddOutcome {
  const content = goTrimSpace(input.content);
  if (!content) return { kind: "empty" };
  const nowIso = formatGoTime(now);
  const confidence = input.confidence && input.confidence > 0 ? input.confidence : 0.6;
  const id = factId(content);
  const existing = state.facts.get(id);
  const mine = isUserSource(input.source);
  if (existing) {
    reinforce(existing, { ...input, confidence }, nowIso);
    // the user saying what an unverified note said makes it the user's fact
    if (mine && !isUserSource(existing["source"])) {
      if (input.source) existing["source"] = input.source;
      else delete existing["source"];
    }
    return { kind: "reinforced", id };
  }
  const category = (CATEGORIES as readonly string[]).includes(input.category ?? "")
    ? (input.category as string)
    : "general";
  const tokens = factTokens(content);
  let best: { fact: Fact; j: number } | undefined;
  // Go skips the similarity checks for a fact with no significant tokens ("Go 1.22", "Go 1.23").
  if (tokens.sig.length > 0) {
    for (const fact of state.facts.values()) {
      if ((fact.category || "general") !== category) continue;
      // an unverified fact never reinforces or supersedes the user's, nor the other way round
      if (isUserSource(fact["source"]) !== mine) continue;
      const verdict = reconcile(tokens, tokensOf(state, fact));
      if (verdict.kind === "same") {
        reinforce(fact, { ...input, confidence }, nowIso);
        return { kind: "reinforced", id: fact.id };
      }
      if (verdict.kind === "update" && (!best || verdict.j > best.j)) best = { fact, j: verdict.j };
    }
  }
  let provenance = input.provenance ?? "";
  let superseded: string | undefined;
  if (best && confidence >= (best.fact.confidence || 0.6)) {
    superseded = best.fact.id;
    removeFact(state, superseded, nowIso);
    provenance = `${provenance || "extraction"} (supersedes ${superseded})`;
  }
  const fact: Fact = {
    id,
    content,
    category,
    created_at: nowIso,
    last_accessed: nowIso,
    access_count: 1,
    score: 1,
    confidence,
  };
  if (input.tags && input.tags.length > 0) fact.tags = [...input.tags];
  if (input.sourceProject) fact.source_project = input.sourceProject;
  if (provenance) fact.provenance = provenance;
  if (input.source) fact["source"] = input.source;
  state.facts.set(id, fact);
  state.tombstones.delete(id);
  const pruned = enforceCap(state, now, maxFacts);
  return superseded ? { kind: "added", id, superseded, pruned } : { kind: "added", id, pruned };
}

/**
 * Moves the lowest-scoring facts beyond the cap out of the index (tombstoned) and onto
 * `state.archived`, which the writer appends to `memory_archive.json` first; returns their ids.
 */
export function enforceCap(state: FactState, now: Date, maxFacts: number): string[] {
  const excess = state.facts.size - maxFacts;
  if (excess <= 0) return [];
  const nowMs = now.getTime();
  const victims = [...state.facts.values()]
    .map((f) => ({ fact: f, s: liveScore(f, nowMs) }))
    .sort((a, b) => a.s - b.s || (a.fact.id < b.fact.id ? 1 : -1))
    .slice(0, excess)
    .map((v) => v.fact);
  const nowIso = formatGoTime(now);
  state.archived ??= [];
  for (const fact of victims) {
    removeFact(state, fact.id, nowIso);
    state.archived.push(fact);
  }
  return victims.map((f) => f.id);
}

/** Drops tombstones older than 30 days. */
export function pruneTombstones(state: FactState, nowMs: number): void {
  for (const [id, at] of state.tombstones) {
    const t = parseGoTime(at);
    if (t === undefined || nowMs - t > TOMBSTONE_RETENTION_MS) state.tombstones.delete(id);
  }
}

/** Whether a tombstone kills this fact (deleted after it was created). */
export function isBuried(fact: Fact, tombstones: ReadonlyMap<string, string>): boolean {
  const at = tombstones.get(fact.id);
  if (at === undefined) return false;
  const dead = parseGoTime(at) ?? 0;
  const born = parseGoTime(fact.created_at) ?? 0;
  return dead >= born;
}

/** §2.8 MEMORY.md: facts by category (alphabetical), in live-score order, capped at maxSize bytes. */
export function renderMarkdown(facts: Iterable<Fact>, nowMs: number, maxSize: number): string {
  const ranked = rankedFacts(facts, nowMs);
  if (ranked.length === 0) return "";
  const groups = new Map<string, Fact[]>();
  for (const f of ranked) {
    const cat = f.category || "general";
    groups.set(cat, [...(groups.get(cat) ?? []), f]);
  }
  let out = "# Long-term Memory\n\n";
  let size = Buffer.byteLength(out);
  for (const cat of [...groups.keys()].sort()) {
    const head = `## ${cat.charAt(0).toUpperCase()}${cat.slice(1)}\n\n`;
    out += head;
    size += Buffer.byteLength(head);
    for (const f of groups.get(cat) ?? []) {
      const line = `- ${f.content}\n`;
      const len = Buffer.byteLength(line);
      if (size + len > maxSize) return `${out}- ...(truncated)\n`;
      out += line;
      size += len;
    }
    out += "\n";
    size += 1;
  }
  return out;
}
