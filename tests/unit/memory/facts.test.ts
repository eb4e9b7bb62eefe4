import { describe, expect, test } from "bun:test";
import {
  addFact,
  type Fact,
  type FactState,
  factId,
  liveScore,
  renderMarkdown,
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
