import { describe, expect, test } from "bun:test";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { factId, liveScore } from "../../../lib/memory/facts.ts";
import { formatGoTime, parseGoTime } from "../../../lib/memory/gotime.ts";
import { forget, listFacts, remember } from "../../../lib/memory/ops.ts";
import { loadFacts, migrateLegacy } from "../../../lib/memory/store.ts";
import { memFile, memoryHome, testMemory } from "./support.ts";

describe("Go timestamps", () => {
  test("0–9 fractional digits, any offset, zero time is unset", () => {
    expect(parseGoTime("2026-07-30T10:12:44.518233101-03:00")).toBe(
      Date.UTC(2026, 6, 30, 13, 12, 44, 518),
    );
    expect(parseGoTime("2026-07-30T10:12:44Z")).toBe(Date.UTC(2026, 6, 30, 10, 12, 44));
    expect(parseGoTime("2026-07-15T12:30:00.5+05:30")).toBe(Date.UTC(2026, 6, 15, 7, 0, 0, 500));
    expect(parseGoTime("0001-01-01T00:00:00Z")).toBeUndefined();
    expect(parseGoTime("garbage")).toBeUndefined();
    expect(parseGoTime(null)).toBeUndefined();
  });
  test("the common forms, read by the engine's parser, give the regex's result; near misses too", () => {
    // the parser before the fast path (issue 23), as the reference
    const RE =
      /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(Z|z|[+-]\d{2}:?\d{2})$/;
    const reference = (value: string): number | undefined => {
      const m = RE.exec(value.trim());
      if (!m || Number(m[1]) <= 1) return undefined;
      const frac = (m[7] ?? "").padEnd(3, "0").slice(0, 3);
      const base = Date.UTC(
        Number(m[1]),
        Number(m[2]) - 1,
        Number(m[3]),
        Number(m[4]),
        Number(m[5]),
        Number(m[6]),
        Number(frac),
      );
      const zone = m[8] as string;
      if (zone === "Z" || zone === "z") return base;
      const digits = zone.slice(1).replace(":", "");
      const offset = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4));
      return base - (zone.startsWith("-") ? -1 : 1) * offset * 60_000;
    };
    const seeds = [
      "2026-07-24T12:00:00Z",
      "2026-07-24T12:00:00.5Z",
      "2026-12-31T23:59:59.999999999Z",
      "0099-02-30T25:61:61.01Z",
      "0001-01-01T00:00:00Z",
      "0002-01-01T00:00:00Z",
      "9999-99-99T99:99:99.1234567890Z",
    ];
    const swaps = ["", "Z", "z", "T", "t", " ", ".", ",", ":", "-", "+", "0", "9", "a", "/", "١"];
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let checked = 0;
    for (const base of seeds) {
      const cases = [base, ` ${base}`, `${base} `, base.replace("Z", "+00:00")];
      for (let i = 0; i < 400; i++) {
        const at = next(base.length + 1);
        const swap = swaps[next(swaps.length)] as string;
        const cut = next(3); // replace one character, insert one, or drop one
        cases.push(base.slice(0, at) + swap + base.slice(at + (cut === 1 ? 0 : 1)));
      }
      for (const text of cases) {
        expect([text, parseGoTime(text)]).toEqual([text, reference(text)]);
        checked++;
      }
    }
    // every field at and past its range (Date.UTC rolls over; the engine's parser may refuse),
    // fractions past milliseconds (truncated, never rounded), years that Date.UTC maps to 19xx
    const fields = [
      ["0000", "0001", "0099", "0100", "1969", "1970", "2024", "2026", "9999"],
      ["00", "01", "02", "12", "13", "99"],
      ["00", "01", "28", "29", "30", "31", "32", "99"],
      ["00", "23", "24", "25", "99"],
      ["00", "59", "60", "99"],
      ["00", "59", "60", "61", "99"],
      ["", ".5", ".12", ".123", ".1234", ".9995", ".999999999", ".0000000001"],
      ["Z", "z", "+00:00", "-03:00", "+05:30", "+14:00", "-12:59", "+24:00", "+23:60", "-0300"],
    ];
    for (let i = 0; i < 6000; i++) {
      const [y, mo, d, h, mi, sec, frac, zone] = fields.map((f) => f[next(f.length)] as string);
      const text = `${y}-${mo}-${d}T${h}:${mi}:${sec}${frac}${zone}`;
      expect([text, parseGoTime(text)]).toEqual([text, reference(text)]);
      checked++;
    }
    expect(checked).toBeGreaterThan(8800);
  });
  test("formats like RFC3339Nano with trailing zeros trimmed", () => {
    const t = formatGoTime(new Date(Date.UTC(2026, 7, 1, 14, 3, 5, 120)));
    expect(parseGoTime(t)).toBe(Date.UTC(2026, 7, 1, 14, 3, 5, 120));
    expect(t).toMatch(/^2026-08-0[12]T\d\d:\d\d:05\.12(Z|[+-]\d\d:\d\d)$/);
  });
});

describe("store: files written by the Go ChatCLI", () => {
  test("reads null lists, zero times, nanoseconds; honours tombstones", async () => {
    await using home = await memoryHome(true);
    const mem = testMemory(home.env);
    const { facts } = await loadFacts(mem);
    expect([...facts.keys()].sort()).toEqual([
      "9d1e6a0b3c2f4e5d6a7b8c9d",
      "aaaaaaaaaaaaaaaaaaaaaaaa",
      "bbbbbbbbbbbbbbbbbbbbbbbb",
    ]);
    const gotcha = facts.get("aaaaaaaaaaaaaaaaaaaaaaaa");
    expect(gotcha?.tags).toBeUndefined();
    // zero last_accessed falls back to created_at; legacy confidence backfilled
    expect(gotcha?.confidence).toBe(0.5);
    expect(gotcha?.provenance).toBe("legacy");
    expect(liveScore(gotcha!, mem.now().getTime())).toBeGreaterThan(0);
  });

  test("a rewrite keeps unknown keys and leaves files we do not use intact", async () => {
    await using home = await memoryHome(true);
    const mem = testMemory(home.env);
    const episodesBefore = await readFile(memFile(home, "episodes.json"), "utf8");
    const vectorsBefore = await readFile(memFile(home, "vector_index.json"), "utf8");
    const r = await remember(mem, "The CI runs on GitHub Actions with a matrix of three OSes");
    expect(r.status).toBe("added");
    const written = JSON.parse(await readFile(memFile(home, "memory_index.json"), "utf8"));
    const pref = written.find((f: { id: string }) => f.id === "9d1e6a0b3c2f4e5d6a7b8c9d");
    expect(pref.future_field).toEqual({ kept: true });
    expect(pref.created_at).toBe("2026-07-30T10:12:44.518233101-03:00");
    expect(pref.tags).toEqual(["go", "cli"]);
    expect(written.some((f: { id: string }) => f.id === "cccccccccccccccccccccccc")).toBe(false);
    // sorted by score, descending
    const scores = written.map((f: { score: number }) => f.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(await readFile(memFile(home, "episodes.json"), "utf8")).toBe(episodesBefore);
    expect(await readFile(memFile(home, "vector_index.json"), "utf8")).toBe(vectorsBefore);
    // the Go field order, two-space indent, no trailing newline
    const text = await readFile(memFile(home, "memory_index.json"), "utf8");
    expect(text.startsWith('[\n  {\n    "id": ')).toBe(true);
    expect(text.endsWith("]")).toBe(true);
    const md = await readFile(memFile(home, "MEMORY.md"), "utf8");
    expect(md).toContain(
      "## General\n\n- The CI runs on GitHub Actions with a matrix of three OSes\n- Deploys go through the staging cluster first\n\n## Gotcha\n\n- embed.FS requires '/' separators\n",
    );
  });

  test("CHATCLI_MEMORY_MAX_FACTS is enforced on every write, lowest live score first", async () => {
    await using home = await memoryHome(true);
    const mem = testMemory({ ...home.env, CHATCLI_MEMORY_MAX_FACTS: "2" });
    await remember(mem, "A brand new fact about zeppelins");
    const ids = (await listFacts(mem)).map((f) => f.id).sort();
    expect(ids).toEqual(
      [factId("A brand new fact about zeppelins"), "9d1e6a0b3c2f4e5d6a7b8c9d"].sort(),
    );
  });

  test("a corrupt index is quarantined with a one-line warning, never overwritten", async () => {
    await using home = await memoryHome(true);
    await writeFile(memFile(home, "memory_index.json"), '[{"id": "broken"');
    const mem = testMemory(home.env);
    expect((await loadFacts(mem)).facts.size).toBe(0);
    expect(mem.warnings).toHaveLength(1);
    expect(mem.warnings[0]).toMatch(/^memory: memory_index\.json did not parse .*corrupt/);
    const files = await readdir(`${home.path}/memory`);
    expect(files).toContain("memory_index.json.corrupt");
    expect(await readFile(memFile(home, "memory_index.json.corrupt"), "utf8")).toBe(
      '[{"id": "broken"',
    );
  });

  test("an index of the wrong shape is set aside too, and the next write starts clean", async () => {
    await using home = await memoryHome();
    const { mkdir } = await import("node:fs/promises");
    await mkdir(`${home.path}/memory`, { recursive: true });
    await writeFile(memFile(home, "memory_index.json"), '{"facts": "not an array"}');
    const mem = testMemory(home.env);
    expect((await remember(mem, "Fresh start fact for the index")).status).toBe("added");
    expect(mem.warnings[0]).toMatch(
      /^memory: memory_index\.json is not a JSON array; moved to .*\.corrupt$/,
    );
    expect(await readFile(memFile(home, "memory_index.json.corrupt"), "utf8")).toBe(
      '{"facts": "not an array"}',
    );
    expect(JSON.parse(await readFile(memFile(home, "memory_index.json"), "utf8"))).toHaveLength(1);
  });

  test("secrets are redacted before they reach the files", async () => {
    await using home = await memoryHome();
    const env = { ...home.env, OPENAI_API_KEY: "sk-live-configured-value-123456" };
    const mem = testMemory(env);
    await remember(
      mem,
      "deploy token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 and key sk-live-configured-value-123456",
    );
    const text = await readFile(memFile(home, "memory_index.json"), "utf8");
    expect(text).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    expect(text).not.toContain("sk-live-configured-value-123456");
    expect(text).toContain("[REDACTED:github_token]");
  });

  test("forget tombstones, and another process cannot resurrect the fact", async () => {
    await using home = await memoryHome(true);
    const mem = testMemory(home.env);
    const stale = await readFile(memFile(home, "memory_index.json"), "utf8");
    const removed = await forget(mem, "EMBED.fs");
    expect(removed.removed.map((f) => f.id)).toEqual(["aaaaaaaaaaaaaaaaaaaaaaaa"]);
    // a Go process writes back its stale copy of the index
    await writeFile(memFile(home, "memory_index.json"), stale);
    const facts = await listFacts(mem);
    expect(facts.some((f) => f.id === "aaaaaaaaaaaaaaaaaaaaaaaa")).toBe(false);
    const tomb = JSON.parse(await readFile(memFile(home, "memory_tombstones.json"), "utf8"));
    expect(Object.keys(tomb)).toContain("aaaaaaaaaaaaaaaaaaaaaaaa");
  });
});

describe("legacy MEMORY.md migration", () => {
  test("bullets become facts, headers categories; original kept as .bak", async () => {
    await using home = await memoryHome();
    const legacy =
      "# Key Facts\n\n- User prefers tabs over spaces\n- ok\n\n## Architecture\n\n1. The API is split into three services\n* Uses Postgres for storage\n---\n### Sub heading becomes a fact\n";
    const { mkdir } = await import("node:fs/promises");
    await mkdir(`${home.path}/memory`, { recursive: true });
    await writeFile(memFile(home, "MEMORY.md"), legacy);
    const mem = testMemory(home.env);
    expect(await migrateLegacy(mem)).toBe(4);
    expect(await readFile(memFile(home, "MEMORY.md.bak"), "utf8")).toBe(legacy);
    const facts = await listFacts(mem);
    const byContent = Object.fromEntries(facts.map((f) => [f.content, f.category]));
    expect(byContent["The API is split into three services"]).toBe("architecture");
    expect(byContent["Uses Postgres for storage"]).toBe("architecture");
    expect(byContent["User prefers tabs over spaces"]).toBe("general");
    expect(facts.find((f) => f.content === "User prefers tabs over spaces")?.id).toBe(
      factId("user prefers tabs over spaces"),
    );
    const md = await readFile(memFile(home, "MEMORY.md"), "utf8");
    expect(md.startsWith("# Long-term Memory\n\n## Architecture\n")).toBe(true);
    expect(await migrateLegacy(mem)).toBe(0);
  });
});
