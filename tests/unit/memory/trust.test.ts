import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { addFact, type FactState, factId } from "../../../lib/memory/facts.ts";
import { forget, listFacts, remember } from "../../../lib/memory/ops.ts";
import { factTokens, reconcile } from "../../../lib/memory/reconcile.ts";
import { mutateFacts } from "../../../lib/memory/store.ts";
import { loadProjects, upsertProject } from "../../../lib/memory/tracking.ts";
import { checkFact, checkProfile, checkRow, PROJECT_SHAPE } from "../../../lib/memory/validate.ts";
import { memFile, memoryHome, testMemory } from "./support.ts";

const T0 = new Date("2026-08-01T12:00:00Z");
const later = (h: number) => new Date(T0.getTime() + h * 3600_000);
const empty = (): FactState => ({ facts: new Map(), tombstones: new Map() });
const contents = (s: FactState) => [...s.facts.values()].map((f) => f.content).sort();

describe("updates that update: numbers carry meaning", () => {
  test('"node 20" then "node 22" supersedes, never reinforces', () => {
    const s = empty();
    addFact(s, { content: "we use node 20 in CI" }, T0, 500);
    const r = addFact(s, { content: "we use node 22 in CI" }, later(1), 500);
    expect(r).toMatchObject({ kind: "added", superseded: factId("we use node 20 in CI") });
    expect(contents(s)).toEqual(["we use node 22 in CI"]);
    expect(s.tombstones.has(factId("we use node 20 in CI"))).toBe(true);
    const fact = s.facts.get(factId("we use node 22 in CI"));
    expect(fact?.provenance).toBe(`extraction (supersedes ${factId("we use node 20 in CI")})`);
  });

  test('"service 17 on port 9017" and "service 31 on port 9031" both stay', () => {
    const s = empty();
    addFact(s, { content: "service 17 on port 9017" }, T0, 500);
    expect(addFact(s, { content: "service 31 on port 9031" }, later(1), 500)).toMatchObject({
      kind: "added",
    });
    expect(contents(s)).toEqual(["service 17 on port 9017", "service 31 on port 9031"]);
    expect(s.tombstones.size).toBe(0);
    // One value of the same identifier changed: an update.
    const r = addFact(s, { content: "service 17 on port 9018" }, later(2), 500);
    expect(r).toMatchObject({ superseded: factId("service 17 on port 9017") });
  });

  test("versions, ports and identifiers: never a reinforcement when the numbers differ", () => {
    const pairs: Array<[string, string, "update" | "distinct"]> = [
      ["The API listens on port 8080", "The API listens on port 8081", "update"],
      [
        "Deploys run terraform v1.5.7 in staging",
        "Deploys run terraform v1.6.0 in staging",
        "update",
      ],
      ["service0 listens on port 8000", "worker0 listens on port 8000", "distinct"],
      ["ticket 1234 tracks the login bug", "ticket 5678 tracks the login bug", "update"],
    ];
    for (const [a, b, want] of pairs) {
      expect([a, b, reconcile(factTokens(b), factTokens(a)).kind]).toEqual([a, b, want]);
    }
    // Equal numbers: Go's thresholds apply unchanged.
    expect(
      reconcile(
        factTokens("The build uses esbuild with minify and sourcemaps on port 3000"),
        factTokens("the build uses esbuild with minify and sourcemaps on port 3000!"),
      ).kind,
    ).toBe("same");
  });

  test('facts with no significant words skip the similarity check: "Go 1.22" and "Go 1.23" both stay', () => {
    const s = empty();
    addFact(s, { content: "Go 1.22" }, T0, 500);
    expect(addFact(s, { content: "Go 1.23" }, later(1), 500).kind).toBe("added");
    expect(contents(s)).toEqual(["Go 1.22", "Go 1.23"]);
  });

  test("the duplicate check measures sets (as Go): repeated words do not hide a duplicate", () => {
    const s = empty();
    const a = "cache cache cache cache cache cache invalidation happens nightly via cron job";
    addFact(s, { content: a, category: "pattern" }, T0, 500);
    // Same set of significant tokens, very different token counts (the old shortcut skipped it).
    const r = addFact(
      s,
      { content: "cache invalidation happens nightly via cron job", category: "pattern" },
      later(1),
      500,
    );
    expect(r).toEqual({ kind: "reinforced", id: factId(a) });
  });
});

describe("nothing lost silently", () => {
  test("the cap archives the lowest-scored facts (Go's archive format) and warns memory_pruned", async () => {
    await using home = await memoryHome();
    const warned: Array<[string, string | undefined]> = [];
    const mem = testMemory({ ...home.env, CHATCLI_MEMORY_MAX_FACTS: "3" }, T0);
    mem.warn = (line, code) => warned.push([line, code]);
    for (let i = 0; i < 5; i++) await remember(mem, `fact number ${i} about topic${i} alpha${i}`);
    expect((await listFacts(mem)).length).toBe(3);
    const archive = JSON.parse(await readFile(memFile(home, "memory_archive.json"), "utf8"));
    expect(archive).toHaveLength(2);
    expect(Object.keys(archive[0])).toEqual([
      "id",
      "content",
      "category",
      "created_at",
      "last_accessed",
      "access_count",
      "score",
      "source_project",
      "confidence",
      "provenance",
    ]);
    expect(warned.map(([, c]) => c)).toEqual(["memory_pruned", "memory_pruned"]);
    expect(warned[0]?.[0]).toContain("1 fact(s) over the cap of 3");
  });

  test("a read-only memory never writes: no access counts, mutations refused", async () => {
    await using home = await memoryHome();
    const rw = testMemory(home.env, T0);
    await remember(rw, "The release checklist lives in docs/RELEASE.md");
    const before = await readFile(memFile(home, "memory_index.json"), "utf8");
    const ro = Object.assign(testMemory(home.env, later(5)), { readOnly: true });
    const { recall } = await import("../../../lib/memory/ops.ts");
    expect((await recall(ro, "release checklist")).length).toBe(1);
    expect(await readFile(memFile(home, "memory_index.json"), "utf8")).toBe(before);
    await expect(mutateFacts(ro, () => undefined)).rejects.toThrow("read-only");
  });

  test("forget: an id, an exact text, or a text matching one fact; several need all", async () => {
    await using home = await memoryHome();
    const mem = testMemory(home.env, T0);
    for (const t of ["deploys need the vpn", "staging vpn runs wireguard", "tabs over spaces"])
      await remember(mem, t);
    const several = await forget(mem, "vpn");
    expect([several.ambiguous, several.matched.length, several.removed.length]).toEqual([
      true,
      2,
      0,
    ]);
    const exact = await forget(mem, "Deploys need the VPN", { dryRun: true });
    expect(exact.matched.map((f) => f.content)).toEqual(["deploys need the vpn"]);
    expect(exact.removed).toEqual([]);
    const byId = await forget(mem, factId("tabs over spaces"), { byId: true });
    expect(byId.removed.map((f) => f.content)).toEqual(["tabs over spaces"]);
    expect((await forget(mem, "deploys need", { byId: true })).removed).toEqual([]);
    expect((await forget(mem, "vpn", { all: true })).removed).toHaveLength(2);
    expect(await listFacts(mem)).toEqual([]);
  });

  test("new projects are created active, as Go creates them", async () => {
    await using home = await memoryHome();
    const mem = testMemory(home.env, T0);
    await upsertProject(mem, { project_name: "Billing", project_path: "/src/billing" });
    expect((await loadProjects(mem))[0]).toMatchObject({ name: "billing", status: "active" });
  });
});

describe("imported values in Go's types", () => {
  const now = new Date("2026-08-01T12:00:00Z");
  test("times, integers, floats, enums normalised; what cannot be is rejected with a reason", () => {
    const ok = checkFact(
      {
        content: "Uses pnpm",
        category: "Preference",
        created_at: "2026-07-01",
        last_accessed: "",
        access_count: "4.6",
        score: "1.5",
        confidence: 0.8,
        provenance: "whatever",
        tags: ["a", 3],
        Content: "shadow",
      },
      now,
    );
    expect(ok.ok).toBe(true);
    if (!ok.ok) return;
    expect(ok.value).toMatchObject({
      id: factId("Uses pnpm"),
      category: "preference",
      created_at: "2026-07-01T00:00:00Z",
      last_accessed: "0001-01-01T00:00:00Z",
      access_count: 5,
      score: 1.5,
      confidence: 0.8,
      tags: ["a"],
    });
    expect(ok.value).not.toHaveProperty("provenance");
    expect(ok.value).not.toHaveProperty("Content");
    expect(checkFact({ content: "x", created_at: "yesterday" }, now)).toEqual({
      ok: false,
      reason: 'created_at is not a time: "yesterday"',
    });
    expect(checkFact({ content: "x", access_count: "many" }, now)).toMatchObject({ ok: false });
    expect(checkFact({ content: 42 }, now)).toEqual({
      ok: false,
      reason: "content is not a string",
    });
    const missing = checkFact({ content: "no times" }, now);
    expect(missing.ok && missing.value.created_at).toBe("2026-08-01T12:00:00Z");
  });

  test("projects, topics and profile: nested times and ints, zero times where Go writes them", () => {
    const p = checkRow({ name: "x", priority: 1.4, last_active: 1780000000 }, PROJECT_SHAPE, "p");
    expect(p.ok && p.value).toMatchObject({ priority: 1, last_active: "2026-05-28T20:26:40Z" });
    expect(checkRow({ name: "x", technologies: "Go" }, PROJECT_SHAPE, "p").ok).toBe(false);
    const prof = checkProfile({
      name: "Ana",
      field_meta: { name: { source: "user", updated_at: "2026-05-02T10:00:00+05:30" } },
      milestones: [{ date: "2026-05-02", text: "CKA" }],
    });
    expect(prof.ok && prof.value).toMatchObject({
      field_meta: {
        name: {
          source: "user",
          updated_at: "2026-05-02T10:00:00+05:30",
          confirmed_at: "0001-01-01T00:00:00Z",
        },
      },
      milestones: [{ date: "2026-05-02T00:00:00Z", text: "CKA" }],
    });
    expect(checkProfile({ skills: [1, 2], last_updated: "soon" })).toMatchObject({ ok: false });
  });
});
