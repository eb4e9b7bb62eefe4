import type { Fact } from "./facts.ts";
import { removeFact } from "./facts.ts";
import { otherToolHolds } from "./foreign.ts";
import { formatGoTime } from "./gotime.ts";
import { acceptable, findHeld, type HeldFact, type ReviewOutcome } from "./review.ts";
import { loadFacts, type Memory, mutateFacts } from "./store.ts";

/**
 * The review of facts another tool wrote (lib/memory/foreign.ts): they stay in memory_index.json,
 * untouched, while held; `--accept` sets `source: "user:reviewed"` on the fact (a string field of
 * Go's Fact struct, kept by Go when it rewrites the file), `--reject` removes it as `forget` does
 * (the id is tombstoned).
 */

/** The `source` a held other-tool fact is listed with (the index has none). */
export const OTHER_TOOL = "other-tool";

const asHeld = (f: Fact, reason: string): HeldFact => {
  const held: HeldFact = {
    id: f.id,
    content: f.content,
    category: f.category || "general",
    source: OTHER_TOOL,
    reason,
    held_at: f.created_at,
  };
  if (f.source_project) held.source_project = f.source_project;
  return held;
};

/** The held facts another tool wrote, in file order. */
export async function loadOtherToolHeld(mem: Memory): Promise<HeldFact[]> {
  const state = await loadFacts(mem);
  const held = otherToolHolds(state.facts.values());
  return [...state.facts.values()]
    .filter((f) => held.has(f.id))
    .map((f) => asHeld(f, held.get(f.id) as string));
}

/** Accepts one: the fact becomes the user's in place. Text the threat scan flags needs `force`. */
export async function acceptOtherTool(
  mem: Memory,
  id: string,
  opts: { force?: boolean } = {},
): Promise<ReviewOutcome> {
  const ok = acceptable(mem, await loadOtherToolHeld(mem), id, opts.force);
  if ("refused" in ok) return ok.refused;
  const { held } = ok;
  const done = await mutateFacts(
    mem,
    (state) => {
      const f = state.facts.get(held.id);
      if (f) f["source"] = "user:reviewed";
      return f !== undefined;
    },
    { markdown: () => false },
  );
  return done ? { status: "accepted", fact: held, id: held.id } : { status: "not_found", id };
}

/** Rejects one: removed from the index (tombstoned), as `memory forget ID` does. */
export async function rejectOtherTool(mem: Memory, id: string): Promise<ReviewOutcome> {
  const held = findHeld(await loadOtherToolHeld(mem), id);
  if (!held) return { status: "not_found", id };
  const removed = await mutateFacts(
    mem,
    (state) => removeFact(state, held.id, formatGoTime(mem.now())),
    { markdown: (r) => r },
  );
  return removed ? { status: "rejected", fact: held } : { status: "not_found", id };
}
