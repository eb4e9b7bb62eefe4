import { describe, expect, test } from "bun:test";
import type { Fact } from "../../../lib/memory/facts.ts";
import { factId } from "../../../lib/memory/facts.ts";
import { formatGoTime } from "../../../lib/memory/gotime.ts";
import { decodeCache, encodeCache } from "../../../lib/memory/recall-cache.ts";
import { cooccurring } from "../../../lib/memory/recall-context.ts";
import { buildCorpus, termId } from "../../../lib/memory/recall-corpus.ts";
import { parseQuery } from "../../../lib/memory/recall-query.ts";
import { FactIndex } from "../../../lib/memory/retrieve.ts";
import { stem } from "../../../lib/memory/stem.ts";

const DAY = 86_400_000;
const S1 = Date.UTC(2023, 4, 8, 13, 56); // 8 May 2023, 1:56 pm
const S2 = Date.UTC(2023, 4, 15, 10, 0);
const S3 = Date.UTC(2023, 5, 2, 18, 30);

/** Dialog turns of dated sessions, as the long-conversation benchmark stores them (one per turn). */
function talk(sessions: Array<[number, string[]]>): Fact[] {
  const out: Fact[] = [];
  for (const [at, turns] of sessions)
    for (const [k, content] of turns.entries()) {
      const when = formatGoTime(at + k * 30_000);
      out.push({
        id: factId(content),
        content,
        category: "personal",
        created_at: when,
        last_accessed: when,
        access_count: 1,
        score: 1,
      });
    }
  return out;
}

const FACTS = talk([
  [
    S1,
    [
      "Caroline: We finally adopted a puppy from the shelter! Her name is Luna.",
      "Melanie: No way!! What breed is she?",
      "Caroline: She's a beagle, and so friendly with everyone.",
      "Melanie: Yesterday I went to a jazz concert, it was a really emotional day for me.",
      "Caroline: Wow, that sounds amazing, I'm really happy for you!",
    ],
  ],
  [
    S2,
    [
      "Melanie: I've been doing pottery a lot lately, it really helps me unwind.",
      "Caroline: That's awesome! How did you get into it?",
      "Melanie: A friend dragged me to the studio last spring and I was hooked right away.",
      "Melanie: Signed up for a pottery class with a few friends, the first session is next week.",
      "Caroline: Life gets so busy sometimes, I totally get it.",
      "Melanie: My aunt runs a ceramics workshop now, she says pottery is the best way to start.",
    ],
  ],
  [
    S3,
    [
      "Caroline: Got promoted last Friday! I'm a senior nurse now.",
      "Melanie: Congrats!! Did you celebrate?",
      "Caroline: My team took me out for dinner, my manager even gave a little speech.",
    ],
  ],
]);
const index = new FactIndex(FACTS);
const NOW = S3 + 30 * DAY;
const top = (q: string, k = 3) =>
  index.search(q, { nowMs: NOW, limit: k }).map((h) => h.fact.content);

describe("recall on conversations", () => {
  test("a reply that holds the answer in a pronoun is found with the turn that names it", () => {
    // "She's a beagle" shares no word with "Luna" or "puppy": its neighbours do
    expect(top("What breed is Luna?", 3)).toContain(
      "Caroline: She's a beagle, and so friendly with everyone.",
    );
    expect(top("What did Caroline's manager do at the dinner?", 1)).toEqual([
      "Caroline: My team took me out for dinner, my manager even gave a little speech.",
    ]);
  });

  test("question and answer: the reply to the question a strong turn raised is found with it", () => {
    // the answer shares no word with the question; the turn before the other speaker's question does
    expect(top("How did Melanie get into pottery?", 3)).toContain(
      "Melanie: A friend dragged me to the studio last spring and I was hooked right away.",
    );
  });

  test("a day the question names finds the turns of the days after it (yesterday, last week)", () => {
    // the concert was on 7 May, told on 8 May ("yesterday"); several forms of the date
    for (const q of [
      "What was emotional for Melanie on 7 May 2023?",
      "What was emotional for Melanie on May 7, 2023?",
      "What was emotional for Melanie on 2023-05-07?",
    ])
      expect([q, top(q, 1)[0]]).toEqual([q, FACTS[3]?.content]);
    // a day with nothing to match but the date: the turns told in the days after it
    const week = top("What did Melanie do on 14 May 2023?", 2);
    expect(
      week.every((t) => t.startsWith("Melanie:") && FACTS.findIndex((f) => f.content === t) >= 5),
    ).toBe(true);
  });

  test("the week after an event: the event's date, then the turns of the week after", () => {
    const week = top("What did Melanie do the week after the jazz concert?", 2);
    expect(week).toContain(
      "Melanie: Signed up for a pottery class with a few friends, the first session is next week.",
    );
    expect(week.every((t) => t.startsWith("Melanie:") && !t.includes("jazz"))).toBe(true);
  });

  test("relative to now: last month favours the facts of last month", () => {
    const nowInJuly = Date.UTC(2023, 6, 10);
    const hits = index.search("Caroline's news last month", { nowMs: nowInJuly, limit: 2 });
    expect(hits.map((h) => h.fact.content)).toEqual([
      expect.stringMatching(/^Caroline: (Got promoted|My team took me out)/),
      expect.stringMatching(/^Caroline: (Got promoted|My team took me out)/),
    ]);
  });

  test("a persisted index answers the same (lazily decoded terms, time order kept)", () => {
    const c = buildCorpus(FACTS);
    const loaded = decodeCache(encodeCache("k", c), "k");
    expect(loaded).toBeDefined();
    const again = new FactIndex(loaded as NonNullable<typeof loaded>);
    for (const q of ["What breed is Luna?", "What did Melanie do the week after the jazz concert?"])
      expect(again.search(q, { nowMs: NOW, limit: 5 }).map((h) => h.fact.id)).toEqual(
        index.search(q, { nowMs: NOW, limit: 5 }).map((h) => h.fact.id),
      );
    expect([...(loaded?.byTime ?? [])]).toEqual([...c.byTime]);
    expect(loaded?.vocab).toEqual(c.vocab);
  });
});

describe("query dates and store statistics", () => {
  test("parseQuery: days, spans relative to now, anchors; the date words are not searched", () => {
    const none = () => false;
    const day = parseQuery("What did Ana do on 7th of May, 2023?", none);
    expect(day.window).toEqual({
      from: Date.UTC(2023, 4, 6),
      to: Date.UTC(2023, 4, 16),
      found: false,
    });
    expect(day.terms).toEqual(["ana"]);
    const anchored = parseQuery("What did Ana do the day after the concert?", none);
    expect(anchored.anchor).toEqual({ text: "the concert", from: 0.5 * DAY, to: 2.5 * DAY });
    expect(anchored.terms).toEqual(["ana"]);
    const before = parseQuery("what happened the week before her wedding", none);
    expect(before.anchor).toEqual({ text: "her wedding", from: -10 * DAY, to: -1 * DAY });
    const now = Date.UTC(2026, 10, 29);
    const rel = parseQuery("what did we decide about redis last week", none, now);
    expect(rel.window).toEqual({ from: now - 14 * DAY, to: now, found: true, words: "last week" });
    expect(rel.terms).toEqual(["decid", "redis"]);
    const ago = parseQuery("the bug from 3 days ago", none, now);
    expect(ago.window?.found).toBe(true);
    expect(ago.terms).toEqual(["bug"]);
    // months keep working as before
    expect(parseQuery("what happened in May 2023", none)).toMatchObject({ month: 4, year: 2023 });
  });

  test("co-occurrence: the terms that appear with a rare term in the store's facts", () => {
    const c = buildCorpus(FACTS);
    const ceramics = termId(c, stem("ceramics"));
    expect(ceramics).toBeDefined();
    const pottery = termId(c, stem("pottery"));
    const list = cooccurring(c, ceramics as number, new Set(), 5).map(([t]) => t);
    expect(list).toContain(pottery as number);
  });
});
