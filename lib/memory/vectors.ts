import type { Env } from "../core/ctx.ts";
import { writeFileAtomic } from "../core/fs.ts";
import { type Fact, liveScore, rankedFacts } from "./facts.ts";
import type { Hit } from "./recall-hit.ts";
import { lockStore, type Memory, memPath, readStoreJson } from "./store.ts";

/** Optional embeddings (reference §2.17): OpenAI-compatible `/embeddings`, blended with BM25. */
export interface EmbedConfig {
  provider: string;
  model: string;
  baseURL: string;
  apiKey: string;
  dimensions?: number;
}

const FILE = "vector_index.json";
const MIN_COSINE = 0.25;
const TOP_K = 12;
const BACKFILL_MAX = 500;

/** `CHATCLI_EMBED_PROVIDER=openai` (+ OPENAI_API_KEY) enables it; anything else → undefined. */
export function embedConfig(env: Env): EmbedConfig | undefined {
  const provider = (env["CHATCLI_EMBED_PROVIDER"] ?? "").trim().toLowerCase();
  if (provider !== "openai") return undefined;
  const apiKey = env["OPENAI_API_KEY"] ?? "";
  if (!apiKey) return undefined;
  const dims = Number(env["CHATCLI_EMBED_DIMENSIONS"]);
  const baseURL = (env["OPENAI_BASE_URL"] || "https://api.openai.com/v1").replace(/\/+$/, "");
  const cfg: EmbedConfig = {
    provider: "openai",
    model: env["CHATCLI_EMBED_MODEL"] || "text-embedding-3-small",
    baseURL,
    apiKey,
  };
  if (Number.isInteger(dims) && dims > 0) cfg.dimensions = dims;
  return cfg;
}

async function embed(
  cfg: EmbedConfig,
  fetcher: typeof fetch,
  input: string[],
  signal?: AbortSignal,
): Promise<number[][]> {
  const body: Record<string, unknown> = { model: cfg.model, input };
  if (cfg.dimensions) body["dimensions"] = cfg.dimensions;
  const res = await fetcher(`${cfg.baseURL}/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${cfg.apiKey}` },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok) throw new Error(`embeddings: HTTP ${res.status}`);
  const json = (await res.json()) as { data?: Array<{ index?: number; embedding?: number[] }> };
  const out: number[][] = [];
  for (const [i, d] of (json.data ?? []).entries()) out[d.index ?? i] = d.embedding ?? [];
  if (out.length !== input.length) throw new Error("embeddings: wrong number of vectors");
  return out;
}

interface VectorIndex {
  dimension: number;
  provider: string;
  entries: Record<string, number[]>;
}

async function loadIndex(mem: Memory, label: string): Promise<VectorIndex> {
  const raw = (await readStoreJson(mem, FILE)) as Partial<VectorIndex> | undefined;
  if (
    !raw ||
    typeof raw !== "object" ||
    raw.provider !== label ||
    typeof raw.entries !== "object" ||
    !raw.entries
  ) {
    return { dimension: 0, provider: label, entries: {} };
  }
  return { dimension: raw.dimension ?? 0, provider: label, entries: raw.entries };
}

function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function minMax(values: readonly number[]): number[] {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return values.map((v) => (hi > lo ? (v - lo) / (hi - lo) : 0));
}

/**
 * Blended recall: backfills missing vectors (top 500 facts), embeds the query, then ranks
 * keyword hits ∪ vector hits by 0.55·semantic + 0.30·lexical + 0.15·temporal (min-max normalised).
 */
export async function blendedRecall(
  mem: Memory,
  cfg: EmbedConfig,
  fetcher: typeof fetch,
  query: string,
  facts: readonly Fact[],
  lexical: readonly Hit[],
  limit: number,
): Promise<Hit[]> {
  const label = `${cfg.provider}:${cfg.model}`;
  const nowMs = mem.now().getTime();
  const index = await loadIndex(mem, label);
  const missing = rankedFacts(facts, nowMs)
    .slice(0, BACKFILL_MAX)
    .filter((f) => !index.entries[f.id]);
  if (missing.length) {
    const vectors = await embed(
      cfg,
      fetcher,
      missing.map((f) => f.content),
    );
    await lockStore(mem, FILE, async () => {
      const fresh = await loadIndex(mem, label);
      missing.forEach((f, i) => {
        fresh.entries[f.id] = vectors[i] as number[];
      });
      const live = new Set(facts.map((f) => f.id));
      for (const id of Object.keys(fresh.entries)) if (!live.has(id)) delete fresh.entries[id];
      fresh.dimension = vectors[0]?.length ?? fresh.dimension;
      index.entries = fresh.entries;
      await writeFileAtomic(memPath(mem, FILE), JSON.stringify(fresh));
    });
  }
  const [q] = await embed(cfg, fetcher, [query]);
  const byId = new Map(facts.map((f) => [f.id, f]));
  const semantic = new Map<string, number>();
  for (const [id, vec] of Object.entries(index.entries)) {
    if (!byId.has(id)) continue;
    const c = cosine(q ?? [], vec);
    if (c >= MIN_COSINE) semantic.set(id, c);
  }
  const top = [...semantic.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP_K);
  const candidates = new Map<string, Hit>();
  for (const h of lexical) candidates.set(h.fact.id, h);
  for (const [id] of top) {
    if (candidates.has(id)) continue;
    const fact = byId.get(id) as Fact;
    const source = fact.source_project ?? "";
    const fromOther = source !== "" && mem.workspace !== "" && source !== mem.workspace;
    candidates.set(id, { fact, score: 0, relevance: 0, live: liveScore(fact, nowMs), fromOther });
  }
  const list = [...candidates.values()];
  const sem = minMax(list.map((h) => semantic.get(h.fact.id) ?? 0));
  const lex = minMax(list.map((h) => h.relevance));
  const tmp = minMax(list.map((h) => h.live));
  return list
    .map((h, i) => ({
      ...h,
      score: 0.55 * (sem[i] ?? 0) + 0.3 * (lex[i] ?? 0) + 0.15 * (tmp[i] ?? 0),
    }))
    .sort((a, b) => b.score - a.score || (a.fact.id < b.fact.id ? -1 : 1))
    .slice(0, limit);
}
