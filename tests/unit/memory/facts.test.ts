import { describe, expect, test } from "bun:test";
import {
  addFact,
  type Fact,
  type FactState,
  factId,
  legacyConfidence,
  listedFacts,
  liveScore,
  normalizeFact,
  normalizeParsedFact,
  renderMarkdown,
  scoredFacts,
} from "../../../lib/memory/facts.ts";
import { formatGoTime } from "../../../lib/memory/gotime.ts";
import { classifyFactContent, extractTags, splitCategoryPrefix } from "../../../lib/memory/text.ts";

const T0 = new Date("2026-08-01T12:00:00Z");
const days = (n: number) => new Date(T0.getTime() + n * 86400_000);
const empty = (): FactState => ({ facts: new Map(), tombstones: new Map() });

describe("fact id and score", () => {
  test("id = first 12 bytes of sha256(lower(trim(content))), case variants collapse", () => {
    expect(factId("  Hello World ")).toBe(factId("hello world"));
    expect(factId("hello world")).toBe("b94d27b9934d3e08a52e52d7");
  });

  test("decays with a 30-day half-life from last access (injected clock)", () => {
    const state = empty();
    addFact(state, { content: "User prefers dark mode in editors" }, T0, 500);
    const fact = [...state.facts.values()][0] as Fact;
    const fresh = liveScore(fact, T0.getTime());
    expect(fresh).toBeCloseTo((1 + Math.LN2) * 1.1, 6);
    expect(liveScore(fact, days(30).getTime())).toBeCloseTo(fresh / 2, 6);
    expect(liveScore(fact, days(60).getTime())).toBeCloseTo(fresh / 4, 6);
    expect(liveScore(fact, days(126).getTime())).toBeGreaterThan(0.1);
    expect(liveScore(fact, days(128).getTime())).toBeLessThan(0.1);
    // access in the future of the clock does not inflate the score
    expect(liveScore(fact, days(-5).getTime())).toBeCloseTo(fresh, 6);
  });
});

describe("normalizing a stored fact", () => {
  // normalizeFact before it changed a freshly parsed fact in place (issue 23), as the reference
  const str = (v: unknown): string => (typeof v === "string" ? v : "");
  const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  const reference = (raw: unknown): Fact | undefined => {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
    const r = raw as Record<string, unknown>;
    const content = str(r["content"]);
    if (content.trim() === "") return undefined;
    const fact: Fact = {
      ...r,
      id: str(r["id"]) || factId(content),
      content,
      category: str(r["category"]),
      created_at: str(r["created_at"]),
      last_accessed: str(r["last_accessed"]),
      access_count: num(r["access_count"]),
      score: num(r["score"]),
    };
    const tags = Array.isArray(r["tags"]) ? r["tags"].filter((t) => typeof t === "string") : [];
    if (tags.length > 0) fact.tags = tags;
    else delete fact.tags;
    if (num(r["confidence"]) <= 0) {
      fact.confidence = legacyConfidence(fact.access_count);
      if (!str(r["provenance"])) fact.provenance = "legacy";
    }
    return fact;
  };

  test("in place, the fact the copy gave: same values, same key order", () => {
    const values: Record<string, unknown[]> = {
      content: ["Uses Go 1.22", "", "  ", 7, null],
      id: ["aaaaaaaaaaaaaaaaaaaaaaaa", "", 3],
      category: ["project", "", null],
      tags: [["go"], [], null, ["a", 1, "b"], [2], "go"],
      created_at: ["2026-07-24T12:00:00Z", "0001-01-01T00:00:00Z", 5],
      last_accessed: ["2026-07-25T12:00:00.5-03:00", ""],
      access_count: [3, -1, "4", 2.5, null],
      score: [0.5, "x"],
      confidence: [0.9, 0, -0.5, "0.9"],
      provenance: ["user", "", 1],
      source: ["unverified:agent", ""],
      extra_key: [{ nested: [1, "two"] }, "kept"],
    };
    const keys = Object.keys(values);
    let seed = 11;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n); // the high bits: the low ones cycle
    };
    let usable = 0;
    for (let i = 0; i < 3000; i++) {
      // a random subset of the keys, in a random order
      const order = keys.filter(() => next(4) > 0).sort(() => next(3) - 1);
      const raw: Record<string, unknown> = {};
      for (const k of order)
        raw[k] = (values[k] as unknown[])[next((values[k] as unknown[]).length)];
      const text = JSON.stringify(raw);
      const want = reference(JSON.parse(text));
      const inPlace = normalizeParsedFact(JSON.parse(text));
      expect([text, JSON.stringify(inPlace)]).toEqual([text, JSON.stringify(want)]);
      expect(JSON.stringify(normalizeFact(JSON.parse(text)))).toBe(JSON.stringify(want));
      if (want) usable++;
    }
    expect(usable).toBeGreaterThan(400);
    for (const odd of [null, [], "fact", 3]) expect(normalizeParsedFact(odd)).toBeUndefined();
  });
});

test("scoredFacts: a list already in rank order is kept, any other is sorted, ties by id", () => {
  let seed = 5;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * n);
  };
  const now = T0.getTime();
  const reference = (facts: Fact[]) =>
    facts
      .map((fact) => ({ id: fact.id, live: liveScore(fact, now) }))
      .sort((a, b) => b.live - a.live || (a.id < b.id ? -1 : 1))
      .map((s) => s.id);
  for (let round = 0; round < 200; round++) {
    const facts: Fact[] = Array.from({ length: 1 + next(30) }, (_, i) => ({
      id: `f${next(1000)}_${i}`,
      content: `fact ${i}`,
      category: "general",
      // few distinct values: many ties
      created_at: formatGoTime(days(-next(3))),
      last_accessed: formatGoTime(days(next(4) - 2)),
      access_count: next(3),
      score: 0,
      confidence: [0.6, 0.8][next(2)] as number,
    }));
    const want = reference(facts);
    const ids = (list: Fact[]) => scoredFacts(list, now).map((s) => s.fact.id);
    expect(ids(facts)).toEqual(want);
    const inOrder = want.map((id) => facts.find((f) => f.id === id) as Fact);
    expect(ids(inOrder)).toEqual(want);
    expect(ids([...inOrder].reverse())).toEqual(want);
  }
});

test("listedFacts: the copies `{ ...fact, live_score }` were, category and limit as before", () => {
  const stored = [
    { id: "a1", content: "one", category: "project", live_score: 9, x: 1 },
    { id: "b2", content: "two", category: "", created_at: "2026-07-01T00:00:00Z" },
    { id: "c3", content: "three", category: "project", access_count: 4 },
    { id: "d4", content: "four", category: "general", confidence: 0.9 },
  ];
  const now = T0.getTime();
  const fresh = () => stored.map((f) => normalizeFact(JSON.parse(JSON.stringify(f))) as Fact);
  for (const [category, limit] of [
    [undefined, undefined],
    ["project", undefined],
    [" General ", undefined],
    [undefined, 2],
    ["project", 1],
    ["nosuch", undefined],
  ] as const) {
    const before = scoredFacts(fresh(), now)
      .filter((s) => !category || (s.fact.category || "general") === category.trim().toLowerCase())
      .slice(0, limit)
      .map((s) => ({ ...s.fact, live_score: s.live }));
    expect(JSON.stringify(listedFacts(scoredFacts(fresh(), now), category, limit))).toBe(
      JSON.stringify(before),
    );
  }
});

describe("addFact: dedupe, reinforce, supersede, cap", () => {
  test("exact duplicate (any case) reinforces instead of adding", () => {
    const state = empty();
    expect(addFact(state, { content: "Uses pnpm for installs" }, T0, 500).kind).toBe("added");
    const r = addFact(state, { content: "  uses PNPM for installs " }, days(1), 500);
    expect(r.kind).toBe("reinforced");
    const f = [...state.facts.values()][0] as Fact;
    expect(state.facts.size).toBe(1);
    expect(f.access_count).toBe(2);
    expect(f.last_accessed).toBe(formatGoTime(days(1)));
    expect(f.confidence).toBeCloseTo(0.65, 6);
  });

  test("near duplicate (Jaccard ≥ 0.85, same category) reinforces", () => {
    const state = empty();
    addFact(
      state,
      { content: "the build uses esbuild with minify and sourcemaps enabled", category: "pattern" },
      T0,
      500,
    );
    const r = addFact(
      state,
      { content: "build uses esbuild with minify and sourcemaps enabled", category: "pattern" },
      T0,
      500,
    );
    expect(r.kind).toBe("reinforced");
    expect(state.facts.size).toBe(1);
  });

  test("same-subject update supersedes and tombstones the old fact", () => {
    const state = empty();
    addFact(
      state,
      { content: "Frontend framework is React with Redux", category: "architecture" },
      T0,
      500,
    );
    const oldId = factId("Frontend framework is React with Redux");
    const r = addFact(
      state,
      {
        content: "Frontend framework is React with Zustand",
        category: "architecture",
        confidence: 0.9,
        provenance: "user",
      },
      days(7),
      500,
    );
    expect(r).toMatchObject({ kind: "added", superseded: oldId });
    expect(state.facts.has(oldId)).toBe(false);
    expect(state.tombstones.has(oldId)).toBe(true);
    const now = [...state.facts.values()][0] as Fact;
    expect(now.provenance).toBe(`user (supersedes ${oldId})`);
  });

  test("a different subject or a weaker guess does not supersede", () => {
    const state = empty();
    addFact(
      state,
      {
        content: "Frontend framework is React with Redux",
        category: "architecture",
        confidence: 0.9,
      },
      T0,
      500,
    );
    addFact(
      state,
      { content: "Backend framework is React with Redux", category: "architecture" },
      T0,
      500,
    );
    expect(state.facts.size).toBe(2);
    const weak = addFact(
      state,
      {
        content: "Frontend framework is React with MobX",
        category: "architecture",
        confidence: 0.6,
      },
      T0,
      500,
    );
    expect(weak.kind).toBe("added");
    expect(state.facts.has(factId("Frontend framework is React with Redux"))).toBe(true);
  });

  test("cap drops the lowest live-score facts, tombstoned", () => {
    const state = empty();
    addFact(state, { content: "old fact number one about alpha" }, days(-200), 3);
    addFact(state, { content: "fresh fact about beta services" }, T0, 3);
    addFact(state, { content: "fresh fact about gamma pipelines" }, T0, 3);
    const r = addFact(state, { content: "fresh fact about delta clusters" }, T0, 3);
    expect(r.kind === "added" && r.pruned).toEqual([factId("old fact number one about alpha")]);
    expect(state.facts.size).toBe(3);
    expect(state.tombstones.has(factId("old fact number one about alpha"))).toBe(true);
  });
});

describe("deterministic helpers", () => {
  test("category prefix, classification, tags", () => {
    expect(splitCategoryPrefix("[Gotcha] x breaks")).toEqual({
      category: "gotcha",
      content: "x breaks",
    });
    expect(splitCategoryPrefix("[todo] keep me")).toEqual({ content: "[todo] keep me" });
    expect(classifyFactContent("I prefer short answers")).toBe("preference");
    expect(classifyFactContent("Meu nome é Ana")).toBe("personal");
    expect(classifyFactContent("workaround for the flaky test")).toBe("gotcha");
    expect(classifyFactContent("the sky is blue")).toBe("general");
    expect(extractTags("Golang CLI with Docker and k8s tests")).toEqual([
      "go",
      "docker",
      "kubernetes",
      "testing",
      "cli",
    ]);
  });

  test("MEMORY.md truncates at maxSize bytes", () => {
    const state = empty();
    for (let i = 0; i < 20; i++)
      addFact(state, { content: `distinct fact ${i} zeta${i} omega${i}` }, T0, 500);
    const md = renderMarkdown(state.facts.values(), T0.getTime(), 200);
    expect(md.endsWith("- ...(truncated)\n")).toBe(true);
    expect(Buffer.byteLength(md)).toBeLessThan(260);
    expect(renderMarkdown([], T0.getTime(), 200)).toBe("");
  });
});
