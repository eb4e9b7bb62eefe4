import { CONFIDENCE_USER } from "./config.ts";
import { addFact, factId } from "./facts.ts";
import { formatGoTime } from "./gotime.ts";
import { lockStore, type Memory, mutateFacts, readStoreJson, writeStoreJson } from "./store.ts";
import { extractTags } from "./text.ts";
import { findThreat } from "./threatscan.ts";

/**
 * The review queue (issue 20): unverified facts that ask the agent to act wait here, in
 * `memory_review.json` — a chatcli file the Go ChatCLI never reads, so neither tool injects them —
 * until the user accepts (the fact joins the index as the user's, `source: "user:reviewed"`) or
 * rejects one (`chatcli memory review --accept ID | --reject ID`).
 */
export interface HeldFact {
  id: string;
  content: string;
  category: string;
  /** `unverified:<origin>`: `unverified:tool:web_fetch`, `unverified:agent`, `unverified:extraction`. */
  source: string;
  /** Why it is held. */
  reason: string;
  held_at: string;
  source_project?: string;
}

const FILE = "memory_review.json";
/** At most this many held facts; the oldest go first (a flood cannot grow the file without bound). */
export const REVIEW_CAP = 200;

const str = (v: unknown) => (typeof v === "string" ? v : "");

function normalize(raw: unknown): HeldFact | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const content = str(r["content"]);
  if (!content.trim()) return undefined;
  const held: HeldFact = {
    id: str(r["id"]) || factId(content),
    content,
    category: str(r["category"]) || "general",
    source: str(r["source"]) || "unverified:unknown",
    reason: str(r["reason"]),
    held_at: str(r["held_at"]),
  };
  if (str(r["source_project"])) held.source_project = str(r["source_project"]);
  return held;
}

/** The held facts, oldest first. */
export async function loadHeld(mem: Memory): Promise<HeldFact[]> {
  const raw = await readStoreJson(mem, FILE, "array");
  return Array.isArray(raw) ? raw.map(normalize).filter((h) => h !== undefined) : [];
}

async function mutateHeld<T>(mem: Memory, fn: (list: HeldFact[]) => T): Promise<T> {
  if (mem.readOnly) throw new Error("memory is read-only in this run (--memory read)");
  return lockStore(mem, FILE, async () => {
    const list = await loadHeld(mem);
    const out = fn(list);
    await writeStoreJson(mem, FILE, list.slice(-REVIEW_CAP));
    return out;
  });
}

/** Queues a fact for review (the same text twice is one entry); returns its id. */
export async function holdFact(
  mem: Memory,
  input: { content: string; category: string; source: string; reason: string },
): Promise<string> {
  const id = factId(input.content);
  return mutateHeld(mem, (list) => {
    if (list.some((h) => h.id === id)) return id;
    const held: HeldFact = { id, ...input, held_at: formatGoTime(mem.now()) };
    if (mem.workspace) held.source_project = mem.workspace;
    list.push(held);
    return id;
  });
}

export type ReviewOutcome =
  | { status: "accepted"; fact: HeldFact; id: string }
  | { status: "rejected"; fact: HeldFact }
  | { status: "not_found"; id: string }
  | { status: "needs_force"; fact: HeldFact; reason: string };

/** The held fact with this id (or a unique id prefix of at least 6 characters). */
export function findHeld(list: readonly HeldFact[], id: string): HeldFact | undefined {
  const needle = id.trim().toLowerCase();
  if (needle.length < 6) return undefined;
  const hits = list.filter((h) => h.id === needle || h.id.startsWith(needle));
  return hits.length === 1 ? hits[0] : undefined;
}

/**
 * The fact `id` names in `list`, ready to accept; or why not: no such held fact, or text the threat
 * scan flags without `force` (as `memory remember` asks).
 */
export function acceptable(
  mem: Memory,
  list: readonly HeldFact[],
  id: string,
  force: boolean | undefined,
): { held: HeldFact } | { refused: ReviewOutcome } {
  const held = findHeld(list, id);
  if (!held) return { refused: { status: "not_found", id } };
  const threat = findThreat(held.content);
  if (threat && mem.cfg.threatscan && !force)
    return {
      refused: { status: "needs_force", fact: held, reason: `${threat.kind}: ${threat.why}` },
    };
  return { held };
}

/**
 * Accepts a held fact: it joins the index as the user's (`source: "user:reviewed"`, confidence of a
 * user fact). Text the threat scan flags needs `force`, as `memory remember` does.
 */
export async function acceptHeld(
  mem: Memory,
  id: string,
  opts: { force?: boolean } = {},
): Promise<ReviewOutcome> {
  const ok = acceptable(mem, await loadHeld(mem), id, opts.force);
  if ("refused" in ok) return ok.refused;
  const { held } = ok;
  const added = await mutateFacts(
    mem,
    (state) =>
      addFact(
        state,
        {
          content: held.content,
          category: held.category,
          tags: extractTags(held.content),
          sourceProject: held.source_project ?? mem.workspace,
          confidence: CONFIDENCE_USER,
          provenance: "user",
          source: "user:reviewed",
        },
        mem.now(),
        mem.cfg.maxFacts,
      ),
    { markdown: () => true },
  );
  await mutateHeld(mem, (list) => {
    const i = list.findIndex((h) => h.id === held.id);
    if (i >= 0) list.splice(i, 1);
  });
  return { status: "accepted", fact: held, id: "id" in added ? added.id : held.id };
}

/** Rejects (drops) a held fact. */
export async function rejectHeld(mem: Memory, id: string): Promise<ReviewOutcome> {
  const held = findHeld(await loadHeld(mem), id);
  if (!held) return { status: "not_found", id };
  await mutateHeld(mem, (list) => {
    const i = list.findIndex((h) => h.id === held.id);
    if (i >= 0) list.splice(i, 1);
  });
  return { status: "rejected", fact: held };
}
