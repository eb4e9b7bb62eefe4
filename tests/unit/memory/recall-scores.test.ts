import { expect, test } from "bun:test";
import { Scores } from "../../../lib/memory/recall-scores.ts";

/** The reference: every entry, best first, ties in the order they were added. */
function reference(s: Scores, k: number, weight: (i: number) => number): Array<[number, number]> {
  return s
    .keys()
    .map((i, at) => ({ i, v: (s.get(i) as number) * weight(i), at }))
    .sort((a, b) => b.v - a.v || a.at - b.at)
    .slice(0, k)
    .map(({ i, v }) => [i, v]);
}

test("top(k): the k best, ties in the order added — small k (sorted list) and large k (cut)", () => {
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const weight = (i: number) => (i % 3 === 0 ? 1.5 : 1);
  for (let round = 0; round < 300; round++) {
    const s = new Scores(500);
    const n = 1 + Math.floor(rand() * 400);
    // few distinct values: many ties at the cut
    for (let j = 0; j < n; j++) s.add(Math.floor(rand() * 500), Math.floor(rand() * 6));
    for (const k of [1, 4, 20, 40, 200]) expect(s.top(k, weight)).toEqual(reference(s, k, weight));
  }
});
