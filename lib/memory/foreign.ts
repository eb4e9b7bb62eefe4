import { dangerReason } from "./danger.ts";
import type { Fact } from "./facts.ts";

/**
 * Facts another tool wrote (issue 20): a fact in memory_index.json with no `source` was not judged
 * by chatcli — the Go ChatCLI (whose model-driven `remember` also writes provenance `user`), an
 * older chatcli or any other program wrote it. Its origin is unknown, so neither the missing source
 * nor provenance `user` proves the user said it. At injection such a fact is held when it asks the
 * agent to act in a way a memory never should (lib/memory/danger.ts) — alone, or joined with the
 * fact next to it in the file or in its category when both name the same file, path or URL (a split
 * instruction: "curl … -o setup.txt", then "sh setup.txt"). A held fact stays on disk
 * untouched (Go still reads it); `chatcli memory review` lists it, `--accept` marks it the user's
 * (`source: "user:reviewed"`), `--reject` removes it.
 */

/** Whether chatcli never judged this fact: no `source` at all. */
export const isOtherToolFact = (f: Fact): boolean => {
  const s = f["source"];
  return s === undefined || s === null || s === "";
};

/** The other-tool facts held from prompts, by id → why; pure, in file order. */
export function otherToolHolds(facts: Iterable<Fact>): Map<string, string> {
  const held = new Map<string, string>();
  const judged = new Map<string, string | undefined>();
  const judge = (text: string) => {
    if (!judged.has(text)) judged.set(text, dangerReason(text));
    return judged.get(text);
  };
  const foreign = [...facts].filter(isOtherToolFact);
  const names = new Map<Fact, Set<string>>();
  const named = (f: Fact) => {
    const known = names.get(f);
    if (known) return known;
    const fresh = artifacts(f.content);
    names.set(f, fresh);
    return fresh;
  };
  for (const f of foreign) {
    const why = judge(f.content);
    if (why) held.set(f.id, why);
  }
  const pair = (a: Fact | undefined, b: Fact | undefined) => {
    if (!a || !b || held.has(a.id) || held.has(b.id) || !sharesArtifact(named(a), named(b))) return;
    const why = judge(`${a.content}\n${b.content}`);
    if (!why) return;
    held.set(a.id, `split across two facts: ${why}`);
    held.set(b.id, `split across two facts: ${why}`);
  };
  // neighbours in the file, then neighbours within a category
  for (let i = 0; i + 1 < foreign.length; i++) pair(foreign[i], foreign[i + 1]);
  const byCategory = new Map<string, Fact[]>();
  for (const f of foreign) {
    const c = f.category || "general";
    const list = byCategory.get(c);
    if (list) list.push(f);
    else byCategory.set(c, [f]);
  }
  for (const list of byCategory.values())
    for (let i = 0; i + 1 < list.length; i++) pair(list[i], list[i + 1]);
  return held;
}

/** The files, paths and URLs a fact names (`-o setup.txt`, `sh setup.txt`). */
function artifacts(text: string): Set<string> {
  return new Set(
    (text.toLowerCase().match(/[\w~-]*[./][\w./~:-]*\w/g) ?? []).filter((n) => n.length >= 4),
  );
}

/** A file, path or URL named in both: one fact refers to the other. */
function sharesArtifact(mine: Set<string>, theirs: Set<string>): boolean {
  for (const n of theirs) if (mine.has(n)) return true;
  return false;
}

/** The stderr line for `n` held facts (once per run). */
export const otherToolNotice = (n: number): string =>
  n === 1
    ? "memory: 1 fact another tool wrote asks the agent to act; it waits for review: chatcli memory review"
    : `memory: ${n} facts another tool wrote ask the agent to act; they wait for review: chatcli memory review`;
