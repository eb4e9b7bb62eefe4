/**
 * Memory you can trust (issue 12), through the binary on a home the Go ChatCLI also writes: nothing
 * lost silently, updates that update, files the Go tool accepts. Dates are relative to TEST_NOW.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFile, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli, TEST_NOW } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { changed, GO_TIME, goJson, type Json, snapshot, writeGoHome } from "./migrant-home.ts";

beforeAll(() => {
  requireBinary();
});

const NOW = Date.parse(TEST_NOW);
const DAY = 86400_000;
/** Go's RFC3339Nano in a -03:00 zone, `days` before TEST_NOW. */
function goTime(days: number): string {
  const d = new Date(NOW - days * DAY - 3 * 3600_000);
  return `${d.toISOString().slice(0, 19)}.123456789-03:00`;
}
const idOf = (content: string) =>
  createHash("sha256").update(content.trim().toLowerCase()).digest("hex").slice(0, 24);

/** A Go-written fact (reference §2.3). */
function goFact(content: string, days: number, extra: Json = {}): Json {
  return {
    id: idOf(content),
    content,
    category: "project",
    created_at: goTime(days + 1),
    last_accessed: goTime(days),
    access_count: 1 + (days % 5),
    score: 1.2,
    source_project: "/home/ana/src/chatcli",
    confidence: 0.6,
    provenance: "extraction",
    ...extra,
  };
}

const bulk = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    goFact(`service${i} of team${i % 40} deploys to region${i % 17} via pipeline${i}`, i % 150),
  );

async function goHome(facts: Json[]) {
  const home = await tempDir();
  const { chatcli, project } = await writeGoHome(home.path);
  await writeFile(join(chatcli, "memory", "memory_index.json"), goJson(facts));
  return Object.assign(home, { chatcli, project, mem: join(chatcli, "memory") });
}

const readJson = async (path: string) => JSON.parse(await readFile(path, "utf8"));

describe("nothing lost silently", () => {
  test("ask --memory read in CI on a 5,000-fact Go store writes nothing (no prune, no access counts)", async () => {
    await using home = await goHome(bulk(5000));
    await using llm = await startMockLlm();
    llm.push({ text: "ok" });
    const before = await snapshot(home.mem);
    const env = baseEnv(home.path, { ...llm.env("openai"), CI: "1", CHATCLI_MEMORY_MODE: "full" });
    const r = await runChatcli(["ask", "which pipeline deploys service12?"], {
      env,
      cwd: home.project,
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "ok\n", ""]);
    // The facts were read and sent…
    expect(JSON.stringify(llm.requests[0]?.body)).toContain("service12 of team12");
    // …and no byte of the store changed.
    expect(await changed(before, home.mem)).toEqual([]);
  });

  test("a write over the cap archives the lowest-scored facts (Go's format) with warning memory_pruned", async () => {
    await using home = await goHome(bulk(600));
    await using llm = await startMockLlm();
    llm.push({ text: "ok" }, { text: "NOTHING_NEW" });
    const env = baseEnv(home.path, { ...llm.env("openai"), CHATCLI_MEMORY_MODE: "full" });
    const r = await runChatcli(
      ["ask", "--memory", "write", "--output-format", "json", "which pipeline for service3?"],
      { env, cwd: home.project },
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    const pruned = out.warnings.filter((w: Json) => w["code"] === "memory_pruned");
    expect(pruned).toHaveLength(1);
    expect(pruned[0].message).toContain("100 fact(s) over the cap of 500");
    const index = (await readJson(join(home.mem, "memory_index.json"))) as Json[];
    const archive = (await readJson(join(home.mem, "memory_archive.json"))) as Json[];
    expect(index).toHaveLength(500);
    // Go's own archived fact first (append-only), then the 100 pruned ones, whole.
    expect(archive).toHaveLength(101);
    expect(archive[0]?.["id"]).toBe("444444444444444444444444");
    const ids = new Set([...index, ...archive].map((f) => f["id"]));
    for (const f of bulk(600)) expect(ids.has(f["id"])).toBe(true);
    for (const f of archive.slice(1)) {
      expect(f["created_at"]).toMatch(GO_TIME);
      expect(f["provenance"]).toBe("extraction");
      expect(Number.isInteger(f["access_count"])).toBe(true);
    }
    // The pruned facts are tombstoned, so a Go process writing back its copy cannot resurrect them.
    const tomb = await readJson(join(home.mem, "memory_tombstones.json"));
    expect(archive.slice(1).every((f) => typeof tomb[f["id"] as string] === "string")).toBe(true);
    const stats = await runChatcli(["memory", "stats"], { env, cwd: home.project });
    expect(stats.stdout).toContain(
      "  Facts: 500 (project 500)\n  Archived: 101 (memory_archive.json)\n",
    );
    const statsJson = JSON.parse(
      (await runChatcli(["memory", "stats", "--json"], { env, cwd: home.project })).stdout,
    );
    expect([statsJson.archived, statsJson.max_facts]).toEqual([101, 500]);
  });

  test("memory import of 700 facts says what it kept and what the cap archived", async () => {
    await using home = await goHome([]);
    const env = baseEnv(home.path);
    const doc = { format: "chatcli-memory-export", version: 1, facts: bulk(700) };
    await writeFile(join(home.path, "export.json"), JSON.stringify(doc));
    const r = await runChatcli(["memory", "import", "export.json"], { env, cwd: home.path });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Imported: 700 fact(s) added, 0 merged, 0 rejected;");
    expect(r.stdout).toContain(
      "Kept 500 of the 700 added fact(s): the cap of 500 facts (CHATCLI_MEMORY_MAX_FACTS) moved 200 lowest-scored fact(s) to memory_archive.json.",
    );
    expect(r.stderr).toContain("200 fact(s) over the cap of 500");
    expect(await readJson(join(home.mem, "memory_index.json"))).toHaveLength(500);
    expect(await readJson(join(home.mem, "memory_archive.json"))).toHaveLength(201);
  });

  test("forget: several matches exit 2 listing them; --dry-run; --all; an id; JSON lists removed ids", async () => {
    await using home = await goHome([
      goFact("Staging deploys need the VPN", 3),
      goFact("Production uses the VPN gateway in sa-east-1", 4),
      goFact("Tabs over spaces in Go files", 5, { category: "preference" }),
    ]);
    const env = baseEnv(home.path);
    const before = await snapshot(home.mem);
    const many = await runChatcli(["memory", "forget", "vpn"], { env, cwd: home.path });
    expect(many.code).toBe(2);
    expect(many.stdout).toBe("");
    expect(many.stderr).toContain('2 facts match "vpn":\n');
    expect(many.stderr).toContain(`(id ${idOf("Staging deploys need the VPN")})`);
    expect(many.stderr).toContain("chatcli: forget: 2 facts match; nothing removed\n");
    // A single letter matches everything: refused the same way.
    expect((await runChatcli(["memory", "forget", "e"], { env })).code).toBe(2);
    const dry = await runChatcli(["memory", "forget", "vpn", "--all", "--dry-run", "--json"], {
      env,
    });
    const preview = (JSON.parse(dry.stdout) as Json[]).map((f) => f["id"]);
    expect(preview.sort()).toEqual(
      [
        idOf("Staging deploys need the VPN"),
        idOf("Production uses the VPN gateway in sa-east-1"),
      ].sort(),
    );
    expect(await changed(before, home.mem)).toEqual([]);
    const byId = await runChatcli(
      ["memory", "forget", idOf("Tabs over spaces in Go files"), "--json"],
      { env },
    );
    expect((JSON.parse(byId.stdout) as Json[]).map((f) => f["id"])).toEqual([
      idOf("Tabs over spaces in Go files"),
    ]);
    const all = await runChatcli(["memory", "forget", "vpn", "--all"], { env });
    expect(all.code).toBe(0);
    expect(all.stdout).toStartWith("Removed 2 fact(s):\n");
    expect(await readJson(join(home.mem, "memory_index.json"))).toEqual([]);
    const tomb = await readJson(join(home.mem, "memory_tombstones.json"));
    expect(Object.keys(tomb)).toContain(idOf("Staging deploys need the VPN"));
    expect(tomb["222222222222222222222222"]).toBe("2026-11-01T08:00:00.123456789+01:00");
  });
});

describe("updates that update, on Go-written facts", () => {
  test('"node 22" supersedes Go\'s "node 20"; "service 31" leaves "service 17"; "Go 1.23" leaves "Go 1.22"', async () => {
    const general = { category: "general" };
    await using home = await goHome([
      goFact("we use node 20 in CI", 10, general),
      goFact("service 17 on port 9017", 10, general),
      goFact("Go 1.22", 10, general),
    ]);
    const env = baseEnv(home.path);
    for (const text of ["we use node 22 in CI", "service 31 on port 9031", "Go 1.23"]) {
      const r = await runChatcli(["memory", "remember", text], { env, cwd: home.project });
      expect([text, r.code, r.stdout]).toEqual([text, 0, "Remembered.\n"]);
    }
    const index = (await readJson(join(home.mem, "memory_index.json"))) as Json[];
    expect(index.map((f) => f["content"]).sort()).toEqual([
      "Go 1.22",
      "Go 1.23",
      "service 17 on port 9017",
      "service 31 on port 9031",
      "we use node 22 in CI",
    ]);
    const node = index.find((f) => f["content"] === "we use node 22 in CI");
    expect(node?.["provenance"]).toBe(`user (supersedes ${idOf("we use node 20 in CI")})`);
    const tomb = await readJson(join(home.mem, "memory_tombstones.json"));
    expect(Object.keys(tomb).sort()).toEqual(
      ["222222222222222222222222", idOf("we use node 20 in CI")].sort(),
    );
    // The other way: saying the old version again is an update back, never "Already in memory".
    const back = await runChatcli(["memory", "remember", "we use node 20 in CI"], { env });
    expect(back.stdout).toBe("Remembered.\n");
    const after = (await readJson(join(home.mem, "memory_index.json"))) as Json[];
    expect(
      after.filter((f) => String(f["content"]).includes("node")).map((f) => f["content"]),
    ).toEqual(["we use node 20 in CI"]);
  });
});

describe("files the Go tool accepts", () => {
  test("memory import normalises every field to Go's types and rejects (and names) what cannot be", async () => {
    await using home = await goHome([]);
    const env = baseEnv(home.path);
    const doc = {
      facts: [
        { content: "Uses pnpm workspaces", created_at: "", access_count: 2.5, score: "1.25" },
        { content: "Deploys on fridays are frozen", created_at: "2026-10-01", access_count: "7" },
        { content: "Bad time", created_at: "yesterday" },
        { content: "Counts are numbers", access_count: "many" },
        { content: "Epoch seconds work", created_at: 1780000000, category: "GOTCHA" },
      ],
      topics: [{ name: "pnpm", mentions: "3", first_seen: "2026-10-01", last_seen: "" }],
      projects: [{ name: "billing", path: "/src/billing", priority: 2.2 }],
      profile: { company: "Acme", milestones: [{ date: "2026-10-01", text: "Shipped v2" }] },
    };
    await writeFile(join(home.path, "in.json"), JSON.stringify(doc));
    const r = await runChatcli(["memory", "import", "in.json"], { env, cwd: home.path });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Imported: 3 fact(s) added, 0 merged, 2 rejected;");
    expect(r.stdout).toContain('Rejected facts[2]: created_at is not a time: "yesterday"\n');
    expect(r.stdout).toContain('Rejected facts[3]: access_count is not a number: "many"\n');
    expect(r.stdout).toContain("Normalised to the Go types: ");
    const index = (await readJson(join(home.mem, "memory_index.json"))) as Json[];
    expect(index).toHaveLength(3);
    for (const f of index) {
      expect(f["created_at"]).toMatch(GO_TIME);
      expect(f["last_accessed"]).toMatch(GO_TIME);
      expect(Number.isInteger(f["access_count"])).toBe(true);
      expect(typeof f["score"]).toBe("number");
      expect(f["id"]).toBe(idOf(f["content"] as string));
    }
    const epoch = index.find((f) => f["content"] === "Epoch seconds work");
    expect([epoch?.["category"], epoch?.["created_at"]]).toEqual([
      "gotcha",
      "2026-05-28T20:26:40Z",
    ]);
    const topics = (await readJson(join(home.mem, "topics.json"))) as Json[];
    expect(topics.find((t) => t["name"] === "pnpm")).toMatchObject({
      mentions: 3,
      first_seen: "2026-10-01T00:00:00Z",
      last_seen: "0001-01-01T00:00:00Z",
    });
    const projects = (await readJson(join(home.mem, "projects.json"))) as Json[];
    // A project without a status would be in neither tool's active list: imported as active.
    expect(projects.find((p) => p["name"] === "billing")).toMatchObject({
      status: "active",
      priority: 2,
    });
    const profile = await readJson(join(home.mem, "user_profile.json"));
    expect(profile.milestones).toEqual([
      { date: "2026-05-02T10:00:00-03:00", text: "Earned the CKA certification" },
    ]);
    expect(profile.company).toBe("Acme");
    // A profile value that cannot be Go's type is refused as a whole, and said so.
    await writeFile(join(home.path, "bad.json"), JSON.stringify({ profile: { skills: "Go" } }));
    const bad = await runChatcli(["memory", "import", "bad.json"], { env, cwd: home.path });
    expect(bad.stdout).toContain("Rejected profile: profile.skills is not a list of strings\n");
  });
});

test("a 0-byte lock left by kill -9 (before its pid was written) delays the next writer ~2 s, not 30 s", async () => {
  await using home = await goHome([]);
  const lock = join(home.mem, "memory_index.json.lock");
  await writeFile(lock, "");
  // 3 s old on the filesystem's clock (the test's own clock may be shifted).
  const at = new Date((await stat(lock)).mtimeMs - 3_000);
  await utimes(lock, at, at);
  const t = performance.now();
  const r = await runChatcli(["memory", "remember", "Deploys go through ArgoCD"], {
    env: baseEnv(home.path),
  });
  expect([r.code, r.stdout, r.stderr]).toEqual([0, "Remembered.\n", ""]);
  expect(performance.now() - t).toBeLessThan(10_000);
});

// biome-ignore lint/suspicious/noTemplateCurlyInString: the text under test holds a literal ${…}
test(".env is read as godotenv reads it: ${VAR} from earlier keys, export, KEY: value", async () => {
  await using home = await goHome([]);
  await writeFile(
    join(home.path, "chatcli.env"),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text under test holds a literal ${…}
    '# settings\nBASE_CAP=7 # the cap\nexport CHATCLI_MEMORY_MAX_FACTS=${BASE_CAP}\nCHATCLI_MEMORY_RETENTION_DAYS: "9"\n',
  );
  const env = baseEnv(home.path, { CHATCLI_DOTENV: join(home.path, "chatcli.env") });
  const r = await runChatcli(["memory", "stats", "--json"], { env, cwd: home.path });
  expect([r.code, r.stderr]).toEqual([0, ""]);
  expect(JSON.parse(r.stdout).max_facts).toBe(7);
});

describe("recall that finds", () => {
  test("speaker names, word forms and months; a persisted index that follows every change of the store", async () => {
    const turn = (content: string, days: number) =>
      goFact(content, days, { category: "personal", source_project: "" });
    await using home = await goHome([
      turn("Caroline: I've been painting a lot lately, my canvas is coming along.", 200),
      turn("Melanie: I tried painting once years ago, but my canvas was a mess.", 190),
      turn("Melanie: Yesterday I went to a jazz concert, it was a really emotional day.", 120),
      turn("Caroline: Work at the hospital has been intense, being a nurse is tiring.", 60),
    ]);
    const env = baseEnv(home.path);
    const recall = async (q: string) => {
      const r = await runChatcli(["memory", "recall", q, "--json"], { env, cwd: home.path });
      expect([q, r.code, r.stderr]).toEqual([q, 0, ""]);
      return (JSON.parse(r.stdout) as Json[]).map((h) => h["content"] as string);
    };
    const cache = join(home.mem, ".chatcli-recall-index");
    // Another word form, and the speaker the question names first.
    const paint = await recall("What does Caroline paint?");
    expect(paint[0]).toStartWith("Caroline: I've been painting");
    expect(await Bun.file(cache).exists()).toBe(true);
    // The same answer from the persisted index; a look-up counts no access.
    const before = await snapshot(home.mem);
    expect(await recall("What does Caroline paint?")).toEqual(paint);
    expect(await changed(before, home.mem)).toEqual([]);
    // The month a fact was stated in is a field.
    const month = new Date(NOW - 120 * DAY - 3 * 3600_000).toLocaleString("en", {
      month: "long",
      year: "numeric",
      timeZone: "UTC",
    });
    expect((await recall(`What did Melanie do in ${month}?`))[0]).toContain("jazz concert");
    // The Go tool rewrites the index: the persisted one is stale and rebuilt.
    const index = (await readJson(join(home.mem, "memory_index.json"))) as Json[];
    index.push(turn("Melanie: Started sculpting this month, the vase took me hours.", 5));
    await writeFile(join(home.mem, "memory_index.json"), goJson(index));
    expect((await recall("who sculpts vases?"))[0]).toContain("sculpting");
    // A forget (tombstones change): the fact is gone from recall at once.
    const gone = await runChatcli(["memory", "forget", "jazz concert"], { env });
    expect(gone.code).toBe(0);
    expect((await recall("jazz concert")).some((c) => c.includes("jazz"))).toBe(false);
    // The Go tool never sees the file: it is not part of the memory index or the archive.
    expect(
      ((await readJson(join(home.mem, "memory_index.json"))) as Json[]).every((f) => f["id"]),
    ).toBe(true);
  });
});
