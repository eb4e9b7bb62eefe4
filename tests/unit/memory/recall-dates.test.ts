import { describe, expect, test } from "bun:test";
import type { Fact } from "../../../lib/memory/facts.ts";
import { factId } from "../../../lib/memory/facts.ts";
import { formatGoTime } from "../../../lib/memory/gotime.ts";
import { decodeCache, encodeCache } from "../../../lib/memory/recall-cache.ts";
import { buildCorpus } from "../../../lib/memory/recall-corpus.ts";
import { NO_MENTION, timeMention } from "../../../lib/memory/recall-mentions.ts";
import { parseQuery } from "../../../lib/memory/recall-query.ts";
import { FactIndex, TUNING } from "../../../lib/memory/retrieve.ts";

const DAY = 86_400_000;
// Tuesday 9 May 2023, Monday 22 May 2023
const S1 = Date.UTC(2023, 4, 9, 18, 0);
const S2 = Date.UTC(2023, 4, 22, 19, 30);

function talk(sessions: Array<[number, string[]]>): Fact[] {
  const out: Fact[] = [];
  for (const [at, turns] of sessions)
    for (const [k, content] of turns.entries()) {
      const when = formatGoTime(at + k * 40_000);
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
      "Nora: Knitting is my favorite way to unwind after a long shift.",
      "Omar: I ran a half marathon last Friday, my legs are still sore.",
      "Nora: Look what I made, a striped scarf! [shares a photo: a striped scarf on a chair]",
      "Omar: The kids are with their grandma this weekend.",
      "Nora: The weather has been lovely, we spent the day outside.",
      "Omar: Work has been a lot but I'm hanging in there.",
    ],
  ],
  [
    S2,
    [
      "Nora: Yesterday I went to a pottery class for the first time.",
      "Omar: My sister had her baby two weeks ago, a little girl!",
      "Nora: We're moving house next week, boxes everywhere.",
      "Omar: That's so exciting, good luck with the move.",
      "Nora: Haha thanks, I'll need it.",
      "Omar: Our neighbor painted his fence bright orange.",
    ],
  ],
]);
const index = new FactIndex(FACTS);
const said = (i: number) => (FACTS[i] as Fact).content;
const NOW = S2 + 20 * DAY;
const top = (q: string, k = 3) =>
  index.search(q, { nowMs: NOW, limit: k }).map((h) => h.fact.content);

describe("a question whose words are nowhere in the store", () => {
  test("names a person: that person's most telling turns, not small talk, not the other's", () => {
    const hits = top("What hobbies does Nora have?", 3);
    expect(hits.length).toBe(3);
    expect(hits.every((t) => t.startsWith("Nora:"))).toBe(true);
    expect(hits).not.toContain(said(10)); // "Haha thanks, I'll need it."
    expect(hits).toContain(said(0)); // knitting
  });

  test("a person's telling turns outrank their small talk that shares a common word", () => {
    // "thanks" is in Nora's small talk only: her news and her hobby say more about her
    const q = "Thanks Nora, what is new?";
    const hits = top(q, 4);
    expect(hits[0]).toBe(said(10)); // "Haha thanks, I'll need it." still matches best
    expect(hits.slice(1).sort()).toEqual([said(0), said(2), said(8)].sort());
    const saved = TUNING.salience;
    TUNING.salience = 0;
    try {
      expect(top(q, 4).filter((t) => t.startsWith("Omar:")).length).toBeGreaterThan(0);
    } finally {
      TUNING.salience = saved;
    }
  });

  test("names nobody: nothing (a look-up, not a listing)", () => {
    expect(top("What about kubernetes?", 3)).toEqual([]);
  });
});

describe("the day a turn talks about", () => {
  test("relative dates resolve against the day the turn was said (EN and PT)", () => {
    const tuesday = Date.UTC(2023, 4, 9, 18);
    expect(timeMention("Yesterday I went to a pottery class", tuesday)).toEqual([1, 0]);
    expect(timeMention("I ran a half marathon last Friday", tuesday)).toEqual([4, 0]);
    expect(timeMention("on Saturday we went hiking", tuesday)).toEqual([3, 0]);
    expect(timeMention("she had her baby two weeks ago", tuesday)).toEqual([14, 4]);
    expect(timeMention("a couple of days ago", tuesday)).toEqual([2, 0]);
    expect(timeMention("over the weekend I slept", tuesday)).toEqual([2, 1]);
    expect(timeMention("we're moving next week", tuesday)).toEqual([-7, 3]);
    expect(timeMention("ontem fui ao cinema", tuesday)).toEqual([1, 0]);
    expect(timeMention("há 3 dias choveu", tuesday)).toEqual([3, 1]);
    expect(timeMention("the deploy cache uses redis", tuesday)).toBeUndefined();
  });

  test("the corpus keeps it (and the persisted index too)", () => {
    const c = buildCorpus(FACTS);
    expect(c.mentionBack[1]).toBe(4); // last Friday, said on a Tuesday
    expect(c.mentionBack[6]).toBe(1); // yesterday
    expect(c.mentionBack[4]).toBe(NO_MENTION);
    const loaded = decodeCache(encodeCache("k", c), "k");
    expect([...(loaded?.mentionBack ?? [])]).toEqual([...c.mentionBack]);
    expect([...(loaded?.mentionSpread ?? [])]).toEqual([...c.mentionSpread]);
  });

  test("a day the question names finds the turn about that day, not only those said near it", () => {
    // the half marathon was on Friday 5 May, told on Tuesday 9 May; the pottery class on 21 May
    expect(top("What did Omar do on 5 May 2023?", 1)).toEqual([said(1)]);
    expect(top("What did Nora do on May 21, 2023?", 1)).toEqual([said(6)]);
    // the sister's baby: two weeks before 22 May
    expect(top("What happened in Omar's family on 8 May 2023?", 1)).toEqual([said(7)]);
  });

  test("'yesterday' in a question with nothing said yesterday quotes the talk: searched as a word", () => {
    // now is weeks after the last session: no fact was created "yesterday"
    expect(top("What did Nora do yesterday?", 1)).toEqual([said(6)]);
    expect(top("Whose baby was born two weeks ago?", 1)).toEqual([said(7)]);
    // a store that has facts from yesterday keeps reading it as a date
    const late = index.search("What did Nora do yesterday?", { nowMs: S2 + DAY, limit: 1 });
    expect(late[0]?.fact.content.startsWith("Nora:")).toBe(true);
    expect(parseQuery("What did Nora do yesterday?", () => false, NOW).terms).toEqual(["nora"]);
  });

  test("a when-question favours the turns that say when", () => {
    expect(parseQuery("When did Nora take a class?", () => false).when).toBe(true);
    expect(parseQuery("What year did she move?", () => false).when).toBe(true);
    expect(parseQuery("Quando a Nora se mudou?", () => false).when).toBe(true);
    expect(parseQuery("What did Nora do when it rained?", () => false).when).toBeUndefined();
    // "moving house next week" says when; "good luck with the move" does not
    expect(top("When is Nora moving?", 1)).toEqual([said(8)]);
  });
});
