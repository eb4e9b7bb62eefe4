import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { extractAfterRun } from "../../../lib/memory/extract.ts";
import { parseExtraction } from "../../../lib/memory/extract-parse.ts";
import { memoryForPrompt } from "../../../lib/memory/prompt.ts";
import { memFile, memoryHome } from "./support.ts";

const NOW = new Date("2026-08-02T12:00:00Z");
const convo = [
  { role: "user" as const, content: "The OAuth refresh loop is back, fix it." },
  { role: "assistant" as const, content: "Fixed it in llm/anthropic/auth.go; PR 1047." },
];
const sink = () => {
  const parts: string[] = [];
  return { write: (t: string) => parts.push(t), text: () => parts.join("") };
};
/** Go's episodeID: "ep_" + hex(sha256(YYYY-MM-DD|project|lower(collapsed summary))[:12]). */
const goEpisodeId = (day: string, project: string, summary: string) =>
  `ep_${createHash("sha256").update(`${day}|${project}|${summary}`).digest("hex").slice(0, 24)}`;

describe("extraction writes the episodes the model returned, in Go's format", () => {
  test("## EPISODES lines become episodes.json entries; a repeat only enriches", async () => {
    await using home = await memoryHome();
    await mkdir(join(home.path, "memory"), { recursive: true });
    await writeFile(
      memFile(home, "episodes.json"),
      '[\n  {"id": "ep_go", "date": "2026-07-01T09:00:00-03:00", "summary": "Older Go entry", "source": "user", "created_at": "2026-07-01T09:00:00-03:00", "future": 1}\n]\n',
    );
    const reply =
      "## DAILY\n- fixed the refresh loop\n\n## EPISODES\n- Fixed the   OAuth refresh loop :: shipped as PR 1047 :: llm/anthropic/auth.go, go test\n- Migrated the schema\n";
    const err = sink();
    const run = (answer: string) =>
      extractAfterRun({
        env: home.env,
        now: NOW,
        workspace: "/home/u/chatcli",
        messages: convo,
        llm: [async () => answer],
        timeoutMs: 5000,
        stderr: err,
      });
    await run(reply);
    expect(err.text()).toBe("memory: +2 episode(s)\n");
    const eps = JSON.parse(await readFile(memFile(home, "episodes.json"), "utf8"));
    expect(eps).toEqual([
      {
        id: "ep_go",
        date: "2026-07-01T09:00:00-03:00",
        summary: "Older Go entry",
        source: "user",
        created_at: "2026-07-01T09:00:00-03:00",
        future: 1,
      },
      {
        id: goEpisodeId("2026-08-02", "/home/u/chatcli", "fixed the oauth refresh loop"),
        date: "2026-08-02T12:00:00Z",
        project: "/home/u/chatcli",
        summary: "Fixed the   OAuth refresh loop",
        outcome: "shipped as PR 1047",
        refs: ["llm/anthropic/auth.go", "go test"],
        source: "extraction",
        created_at: "2026-08-02T12:00:00Z",
      },
      {
        id: goEpisodeId("2026-08-02", "/home/u/chatcli", "migrated the schema"),
        date: "2026-08-02T12:00:00Z",
        project: "/home/u/chatcli",
        summary: "Migrated the schema",
        source: "extraction",
        created_at: "2026-08-02T12:00:00Z",
      },
    ]);
    // the same work seen again the same day: no duplicate, the outcome is filled in
    await run("## EPISODES\n- migrated the schema :: done :: db/schema.sql\n");
    const again = JSON.parse(await readFile(memFile(home, "episodes.json"), "utf8"));
    expect(again).toHaveLength(3);
    expect(again[2]).toMatchObject({
      summary: "Migrated the schema",
      outcome: "done",
      refs: ["db/schema.sql"],
    });
    // the index digest counts them with Go's wording
    const r = await memoryForPrompt({ env: home.env, now: NOW, mode: "index", query: "x" });
    expect(r.stable).toContain("Episodes: 3 dated work entries (query with @memory timeline)");
  });

  test("a reply that is not an extraction result is dropped: no note, no fact", async () => {
    await using home = await memoryHome();
    // what mock:echo answers: the request it received, as one JSON line
    const echo = JSON.stringify({
      messages: [
        {
          role: "user",
          content:
            "You are a memory annotation system. Read the conversation…\n\n## DAILY\nA short bullet log\n\n## LONGTERM\n- [category] fact\n\nCONVERSATION SEGMENT TO ANALYZE:\n\n[user]: hi",
        },
      ],
    });
    for (const answer of [
      echo,
      "Sure! Here is what I remember about you.",
      "You are a memory annotation system.\n## DAILY\n- echoed\n## LONGTERM\n- [general] echoed fact",
    ]) {
      const err = sink();
      const r = await extractAfterRun({
        env: home.env,
        now: NOW,
        workspace: "/w",
        messages: convo,
        llm: [async () => answer],
        timeoutMs: 5000,
        stderr: err,
      });
      expect(r).toMatchObject({ factsWritten: 0, queued: false, drained: 0 });
      expect(r.dropped).toBeString();
      expect(err.text()).toStartWith("memory: extraction reply dropped, nothing stored (");
    }
    const files = await readdir(join(home.path, "memory"), { recursive: true });
    expect(files.filter((f) => /\d{8}\.md$|memory_index|episodes/.test(f))).toEqual([]);
    expect(parseExtraction(echo).rejected).toBe("the reply repeats the extraction prompt");
  });
});
