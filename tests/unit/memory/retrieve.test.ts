import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { addFact, type FactState, factId } from "../../../lib/memory/facts.ts";
import { recall, remember } from "../../../lib/memory/ops.ts";
import { FactIndex } from "../../../lib/memory/retrieve.ts";
import { stem } from "../../../lib/memory/stem.ts";
import { extractKeywords } from "../../../lib/memory/text.ts";
import { memFile, memoryHome, testMemory } from "./support.ts";

const T0 = new Date("2026-08-01T12:00:00Z");
const day = (n: number) => new Date(T0.getTime() + n * 86400_000);

function store(entries: Array<[string, string?, string?, Date?]>): FactState {
  const state: FactState = { facts: new Map(), tombstones: new Map() };
  for (const [content, category, project, at] of entries) {
    addFact(state, { content, category, sourceProject: project }, at ?? T0, 10_000);
  }
  return state;
}

const search = (state: FactState, q: string, workspace = "") =>
  new FactIndex(state.facts.values()).search(q, { nowMs: T0.getTime(), workspace, limit: 10 });

describe("retriever", () => {
  test("stems plurals and -ing, ignores EN/PT stop words", () => {
    expect(stem("deployments")).toBe("deploy");
    expect(["painting", "painted", "paints", "paint"].map(stem)).toEqual(Array(4).fill("paint"));
    expect(["hiking", "hiked", "hike"].map(stem)).toEqual(["hik", "hik", "hik"]);
    expect(["running", "runs"].map(stem)).toEqual(["run", "run"]);
    expect(["viajando", "viajavam"].map(stem)).toEqual(["viaj", "viaj"]);
    expect(stem("caching")).toBe("cach");
    expect(stem("configurações")).toBe("configuracao");
    const s = store([
      ["Deployments go through the staging cluster"],
      ["Caching uses Redis with a 5 minute TTL"],
      ["As configurações ficam em config.yaml"],
    ]);
    expect(search(s, "how is the deployment done?")[0]?.fact.content).toContain("Deployments");
    expect(search(s, "onde estão as configuração")[0]?.fact.content).toContain("configurações");
    expect(search(s, "the and of with")).toEqual([]);
  });

  test("'go' does not match inside 'django'; ≥4-char prefixes do match", () => {
    const s = store([
      ["The admin panel is built with Django"],
      ["Kubernetes manifests live in deploy/k8s"],
    ]);
    expect(search(s, "go")).toEqual([]);
    expect(search(s, "kube")[0]?.fact.content).toContain("Kubernetes");
  });

  test("BM25: rare terms outweigh common ones; more matched terms rank higher", () => {
    const s = store([
      ["The service uses Postgres for storage"],
      ["The service uses Redis for sessions"],
      ["The service uses Kafka for events"],
      ["Postgres migrations run with sqitch before the service starts"],
    ]);
    const hits = search(s, "postgres migrations");
    expect(hits[0]?.fact.content).toContain("sqitch");
    expect(hits).toHaveLength(2);
  });

  test("current workspace ranks higher; other projects are flagged for (from: …)", () => {
    const s = store([
      ["Vitest runs the tests in watch mode", "pattern", "/home/ana/other"],
      ["Bun runs the tests in watch mode too", "pattern", "/home/ana/chatcli"],
    ]);
    const hits = search(s, "tests in watch mode", "/home/ana/chatcli");
    expect(hits[0]?.fact.source_project).toBe("/home/ana/chatcli");
    expect(hits[0]?.fromOther).toBe(false);
    expect(hits[1]?.fromOther).toBe(true);
  });

  test("on conflicting same-subject facts the newer wins", () => {
    const state: FactState = { facts: new Map(), tombstones: new Map() };
    // two facts on one subject that coexist (the older one was stronger, so nothing was superseded)
    addFact(
      state,
      {
        content: "Frontend uses React with Redux for state",
        category: "architecture",
        confidence: 1,
      },
      day(-10),
      100,
    );
    addFact(
      state,
      {
        content: "Frontend uses React with Zustand for state",
        category: "architecture",
        confidence: 0.6,
      },
      day(-1),
      100,
    );
    expect(state.facts.size).toBe(2);
    const hits = search(state, "frontend state management react");
    expect(hits.map((h) => h.fact.content)).toEqual(["Frontend uses React with Zustand for state"]);
  });

  test("keyword hints: frequency then alphabetical, stop words dropped, top 20", () => {
    expect(
      extractKeywords([
        "Fix the failing tests, the tests in src/date.ts!",
        "para o deploy do projeto",
      ]),
    ).toEqual(["tests", "deploy", "failing", "fix", "projeto", "src/date.ts"]);
  });

  test("recall counts each returned fact as an access", async () => {
    await using home = await memoryHome();
    const mem = testMemory(home.env, T0);
    await remember(mem, "The release checklist lives in docs/RELEASE.md");
    await remember(mem, "Unrelated fact about coffee beans");
    const hits = await recall(mem, "release checklist", 5);
    expect(hits.map((h) => h.fact.content)).toEqual([
      "The release checklist lives in docs/RELEASE.md",
    ]);
    const index = JSON.parse(await readFile(memFile(home, "memory_index.json"), "utf8"));
    const hit = index.find(
      (f: { id: string }) => f.id === factId("The release checklist lives in docs/RELEASE.md"),
    );
    expect(hit.access_count).toBe(2);
    const other = index.find(
      (f: { id: string }) => f.id === factId("Unrelated fact about coffee beans"),
    );
    expect(other.access_count).toBe(1);
  });
});
