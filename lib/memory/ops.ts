import { goTrimSpace } from "../core/gostrings.ts";
import { redact } from "../core/redact.ts";
import { CATEGORIES, CONFIDENCE_USER } from "./config.ts";
import { addFact, type Fact, listedFacts, rankedFacts, removeFact, scoredFacts } from "./facts.ts";
import { formatGoTime } from "./gotime.ts";
import { loadProfile, type Profile, updateProfile } from "./profile.ts";
import { recallIndex } from "./recall-cache.ts";
import type { Hit } from "./recall-hit.ts";
import { holdFact } from "./review.ts";
import { isUserSource, unverifiedSource } from "./source.ts";
import { loadFacts, type Memory, type MemoryOptions, mutateFacts, openMemory } from "./store.ts";
import { classifyFactContent, extractTags, splitCategoryPrefix } from "./text.ts";
import { threatReason } from "./threatscan.ts";
import { holdReason } from "./trust.ts";
import { blendedRecall, embedConfig } from "./vectors.ts";

export type RememberResult =
  | { status: "added"; id: string; content: string; category: string; superseded?: string }
  | { status: "reinforced"; id: string; content: string; category: string }
  | { status: "rejected"; content: string; reason: string }
  | { status: "held"; id: string; content: string; category: string; reason: string };

const asMemory = (o: MemoryOptions | Memory): Memory => ("cfg" in o ? o : openMemory(o));

/**
 * Stores a user-stated fact (confidence 0.9, provenance `user`); `[category] text` accepted. Text
 * that would make the agent run downloads or commands, or widen its permissions, is rejected with
 * the reason — unless `force` (a human at `memory remember --force`). `source` marks text that is not
 * the user's word (lib/memory/trust.ts): it is stored `unverified:<origin>`, and when it asks the
 * agent to act it is held for review (lib/memory/review.ts) instead of joining the index.
 */
export async function remember(
  options: MemoryOptions | Memory,
  text: string,
  category?: string,
  opts: { force?: boolean; source?: string } = {},
): Promise<RememberResult> {
  const mem = asMemory(options);
  const split = splitCategoryPrefix(text);
  const content = goTrimSpace(redact(split.content, mem.cfg.secrets));
  if (!content) return { status: "rejected", content, reason: "empty" };
  const mine = isUserSource(opts.source);
  const threat = threatReason(content);
  if (mine && threat && mem.cfg.threatscan && !opts.force)
    return { status: "rejected", content, reason: threat };
  const asked = (category ?? split.category ?? "").trim().toLowerCase();
  const cat = (CATEGORIES as readonly string[]).includes(asked)
    ? asked
    : classifyFactContent(content);
  const source = mine ? opts.source : unverifiedSource(opts.source ?? "");
  if (!mine) {
    const reason = holdReason(content, cat);
    if (reason) {
      const id = await holdFact(mem, { content, category: cat, source: source as string, reason });
      return { status: "held", id, content, category: cat, reason };
    }
  }
  return mutateFacts(
    mem,
    (state) => {
      const out = addFact(
        state,
        {
          content,
          category: cat,
          tags: extractTags(content),
          sourceProject: mem.workspace,
          // not the user's word: an extraction's confidence, an unverified source
          confidence: mine ? CONFIDENCE_USER : 0.6,
          provenance: mine ? "user" : "extraction",
          source,
        },
        mem.now(),
        mem.cfg.maxFacts,
      );
      if (out.kind === "added") {
        const r: RememberResult = { status: "added", id: out.id, content, category: cat };
        return out.superseded ? { ...r, superseded: out.superseded } : r;
      }
      return {
        status: "reinforced",
        id: out.kind === "reinforced" ? out.id : "",
        content,
        category: cat,
      };
    },
    { markdown: () => true },
  );
}

export interface ForgetResult {
  /** The facts the target selected (an id, the exact text, or the texts containing it). */
  matched: Fact[];
  /** What was removed: `matched`, or nothing on a dry run or when several matched without `all`. */
  removed: Fact[];
  /** Several facts matched a text and `all` was not given: nothing was removed. */
  ambiguous: boolean;
}

const FACT_ID = /^[0-9a-f]{24}$/i;

/**
 * Selects facts for `forget`: a fact id; else (unless `byId`) the fact whose text is exactly `target`
 * (any case); else every fact containing it (case-insensitive).
 */
export function selectFacts(
  facts: Iterable<Fact>,
  target: string,
  nowMs: number,
  byId = false,
): Fact[] {
  const needle = target.trim().toLowerCase();
  if (!needle) return [];
  const ranked = rankedFacts(facts, nowMs);
  if (FACT_ID.test(needle)) {
    const hit = ranked.filter((f) => f.id.toLowerCase() === needle);
    if (hit.length || byId) return hit;
  }
  if (byId) return [];
  const exact = ranked.filter((f) => f.content.trim().toLowerCase() === needle);
  if (exact.length) return exact;
  return ranked.filter((f) => f.content.toLowerCase().includes(needle));
}

/**
 * Removes the facts `target` selects (see selectFacts). A text matching several facts removes none
 * unless `all`; `dryRun` only reports; `byId` (the agent's tool) accepts nothing but an id.
 */
export async function forget(
  options: MemoryOptions | Memory,
  target: string,
  opts: { dryRun?: boolean; all?: boolean; byId?: boolean } = {},
): Promise<ForgetResult> {
  const mem = asMemory(options);
  const decide = (facts: Iterable<Fact>): ForgetResult => {
    const matched = selectFacts(facts, target, mem.now().getTime(), opts.byId);
    const ambiguous = matched.length > 1 && !opts.all;
    return { matched, removed: ambiguous || opts.dryRun ? [] : matched, ambiguous };
  };
  const preview = decide((await loadFacts(mem)).facts.values());
  if (preview.removed.length === 0) return preview;
  return mutateFacts(
    mem,
    (state) => {
      const r = decide(state.facts.values());
      const iso = formatGoTime(mem.now());
      for (const f of r.removed) removeFact(state, f.id, iso);
      return r;
    },
    { markdown: (r) => r.removed.length > 0 },
  );
}

/** Marks facts as accessed (`access_count++`, `last_accessed=now`) under the index lock. */
export async function markAccessed(mem: Memory, ids: readonly string[]): Promise<void> {
  if (ids.length === 0 || mem.readOnly) return;
  await mutateFacts(mem, (state) => {
    const iso = formatGoTime(mem.now());
    for (const id of ids) {
      const f = state.facts.get(id);
      if (!f) continue;
      f.access_count = (f.access_count || 0) + 1;
      f.last_accessed = iso;
    }
  });
}

/**
 * Ranked recall (BM25 × live score × workspace; blended with embeddings when `CHATCLI_EMBED_PROVIDER`
 * is configured and `fetch` given); each returned fact counts as an access.
 */
export async function recall(
  options: MemoryOptions | Memory,
  query: string,
  limit = 10,
  opts: { countAccess?: boolean; fetch?: typeof fetch } = {},
): Promise<Hit[]> {
  const mem = asMemory(options);
  const index = await recallIndex(mem);
  // a wider lexical list only when embeddings will re-rank it (ranking 50 costs a cold process)
  const embed = opts.fetch && query.trim() ? embedConfig(mem.env) : undefined;
  let hits = index.search(query, {
    nowMs: mem.now().getTime(),
    workspace: mem.workspace,
    limit: embed ? Math.max(limit, 50) : limit,
  });
  if (embed && opts.fetch) {
    try {
      hits = await blendedRecall(mem, embed, opts.fetch, query, index.facts, hits, limit);
    } catch (error) {
      mem.warn(`memory: embeddings unavailable (${(error as Error).message}); keyword recall only`);
    }
  }
  hits = hits.slice(0, limit);
  if (opts.countAccess !== false)
    await markAccessed(
      mem,
      hits.map((h) => h.fact.id),
    );
  return hits;
}

/** Facts in live-score order, optionally one category, at most `limit`. */
export async function listFacts(
  options: MemoryOptions | Memory,
  opts: { category?: string; limit?: number } = {},
): Promise<Array<Fact & { live_score: number }>> {
  const mem = asMemory(options);
  const nowMs = mem.now().getTime();
  const state = await loadFacts(mem);
  return listedFacts(scoredFacts(state.facts.values(), nowMs), opts.category, opts.limit);
}

/** Reads the user profile (`{}` when none). */
export async function profileGet(options: MemoryOptions | Memory): Promise<Profile> {
  return loadProfile(asMemory(options));
}

/** Applies KEY=VALUE fields to the profile with source `user`; returns the changed fields. */
export async function profileSet(
  options: MemoryOptions | Memory,
  fields: Record<string, string>,
): Promise<string[]> {
  return updateProfile(asMemory(options), fields, "user");
}
