import { beforeAll, describe, expect, test } from "bun:test";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli, spawnChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

const memDir = (home: string) => join(home, ".chatcli", "memory");

async function seed(home: string, files: Record<string, string>): Promise<void> {
  await mkdir(memDir(home), { recursive: true });
  for (const [name, body] of Object.entries(files)) await writeFile(join(memDir(home), name), body);
}

/** Hand-written the way the Go ChatCLI writes them, quirks included (reference §2.3, §2.10). */
const GO_INDEX = `[
  {
    "id": "9d1e6a0b3c2f4e5d6a7b8c9d",
    "content": "User prefers Go for CLI tools",
    "category": "preference",
    "tags": null,
    "created_at": "2026-07-30T10:12:44.518233101-03:00",
    "last_accessed": "2026-08-01T09:03:10.004-03:00",
    "access_count": 4,
    "score": 2.48,
    "source_project": "/home/ana/src/chatcli",
    "confidence": 0.75,
    "provenance": "extraction",
    "embedding_ref": {"model": "voyage-3", "dim": 1024}
  },
  {
    "id": "0a1b2c3d4e5f60718293a4b5",
    "content": "Staging database lives in sa-east-1",
    "category": "",
    "created_at": "2026-06-01T12:00:00Z",
    "last_accessed": "0001-01-01T00:00:00Z",
    "access_count": 0,
    "score": 0
  }
]
`;
const GO_PROFILE = `{
  "name": "Ana",
  "role": "SRE",
  "skills": ["Go", "Kubernetes"],
  "goals": null,
  "certifications": null,
  "stances": [{"position": "prefer table-driven tests", "reason": "cheap", "updated_at": "0001-01-01T00:00:00Z"}],
  "field_meta": {"name": {"source": "user", "updated_at": "2026-05-02T10:00:00.123456789+05:30", "confirmed_at": "0001-01-01T00:00:00Z"}},
  "future_field": {"kept": true},
  "last_updated": "2026-08-01T09:03:10-03:00"
}
`;

describe("the memory store through the binary", () => {
  test("Go-format files survive a round trip: null lists, zero times, nanosecond offsets, unknown keys", async () => {
    await using home = await tempDir();
    await seed(home.path, {
      "memory_index.json": GO_INDEX,
      "user_profile.json": GO_PROFILE,
      "episodes.json": '[{"id":"e1","text":"kept as is"}]\n',
    });
    const env = baseEnv(home.path);
    const facts = await runChatcli(["memory", "facts"], { env, cwd: home.path });
    expect(facts.code).toBe(0);
    expect(facts.stderr).toBe("");
    expect(facts.stdout).toContain("User prefers Go for CLI tools [preference]");
    expect(facts.stdout).toContain("Staging database lives in sa-east-1 [general]");
    // A write through the binary: remember + profile set.
    expect(
      (await runChatcli(["memory", "remember", "Deploys go through ArgoCD"], { env })).code,
    ).toBe(0);
    const set = await runChatcli(["memory", "profile", "set", "skills=Terraform"], { env });
    expect(set.code).toBe(0);
    const index = JSON.parse(await readFile(join(memDir(home.path), "memory_index.json"), "utf8"));
    expect(index.length).toBe(3);
    const go = index.find((f: { id: string }) => f.id === "9d1e6a0b3c2f4e5d6a7b8c9d");
    expect(go.embedding_ref).toEqual({ model: "voyage-3", dim: 1024 });
    expect(go.created_at).toBe("2026-07-30T10:12:44.518233101-03:00");
    expect(go.last_accessed).toBe("2026-08-01T09:03:10.004-03:00");
    expect(go.access_count).toBe(4);
    const zero = index.find((f: { id: string }) => f.id === "0a1b2c3d4e5f60718293a4b5");
    expect(zero.last_accessed).toBe("0001-01-01T00:00:00Z");
    expect(zero.created_at).toBe("2026-06-01T12:00:00Z");
    for (const f of index) expect(f.tags === undefined || Array.isArray(f.tags)).toBe(true);
    const profile = JSON.parse(
      await readFile(join(memDir(home.path), "user_profile.json"), "utf8"),
    );
    expect(profile.future_field).toEqual({ kept: true });
    expect(profile.skills).toEqual(["Go", "Kubernetes", "Terraform"]);
    expect(profile.stances[0].updated_at).toBe("0001-01-01T00:00:00Z");
    expect(profile.field_meta.name.updated_at).toBe("2026-05-02T10:00:00.123456789+05:30");
    expect(profile.goals === undefined || Array.isArray(profile.goals)).toBe(true);
    expect(await readFile(join(memDir(home.path), "episodes.json"), "utf8")).toBe(
      '[{"id":"e1","text":"kept as is"}]\n',
    );
  });

  test("50 concurrent `memory remember` processes → 50 facts, valid JSON", async () => {
    await using home = await tempDir();
    const env = baseEnv(home.path);
    const runs = Array.from(
      { length: 50 },
      (_, i) =>
        spawnChatcli(["memory", "remember", `Service unit${i} listens on port ${8000 + i}`], {
          env,
          cwd: home.path,
        }).done,
    );
    const results = await Promise.all(runs);
    for (const r of results) expect([r.code, r.stdout, r.stderr]).toEqual([0, "Remembered.\n", ""]);
    const index = JSON.parse(await readFile(join(memDir(home.path), "memory_index.json"), "utf8"));
    expect(index.length).toBe(50);
    const listed = await runChatcli(["memory", "facts", "--json"], { env });
    expect(JSON.parse(listed.stdout).length).toBe(50);
  });

  test("a corrupt index is quarantined with a one-line warning, never overwritten", async () => {
    await using home = await tempDir();
    await seed(home.path, { "memory_index.json": '[{"id": "broken' });
    const env = baseEnv(home.path);
    const r = await runChatcli(["memory", "remember", "Builds run on Buildkite"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Remembered.\n");
    const lines = r.stderr.split("\n").filter(Boolean);
    expect(lines.length).toBe(1);
    expect(lines[0]).toMatch(
      /^memory: memory_index\.json did not parse .*; moved to .*memory_index\.json\.corrupt$/,
    );
    expect(await readFile(join(memDir(home.path), "memory_index.json.corrupt"), "utf8")).toBe(
      '[{"id": "broken',
    );
    const index = JSON.parse(await readFile(join(memDir(home.path), "memory_index.json"), "utf8"));
    expect(index.map((f: { content: string }) => f.content)).toEqual(["Builds run on Buildkite"]);
  });

  test("secrets never reach the memory files", async () => {
    await using home = await tempDir();
    const key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
    const env = baseEnv(home.path);
    const r = await runChatcli(["memory", "remember", `The CI token is ${key}`], { env });
    expect(r.code).toBe(0);
    for (const name of await readdir(memDir(home.path))) {
      const text = await readFile(join(memDir(home.path), name), "utf8").catch(() => "");
      expect(text).not.toContain(key);
    }
    const facts = await runChatcli(["memory", "facts"], { env });
    expect(facts.stdout).toContain("[REDACTED:");
    expect(facts.stdout).not.toContain(key);
  });

  test("`memory compact --if-due` from a crontab-like environment: does it once, then says nothing was due", async () => {
    await using home = await tempDir();
    // cron: no TTY, no CI, no CHATCLI_HOME, a bare PATH, cwd = $HOME, no provider configured.
    const env = { HOME: home.path, PATH: "/usr/bin:/bin", SHELL: "/bin/sh", LOGNAME: "ci" };
    for (const text of ["Logs are shipped to Loki", "Alerts page the on-call via Opsgenie"])
      expect((await runChatcli(["memory", "remember", text], { env })).code).toBe(0);
    const first = await runChatcli(["memory", "compact", "--if-due"], { env, cwd: home.path });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("Compaction complete\n");
    expect(first.stdout).toContain("Facts: 2 -> 2\n");
    const state = JSON.parse(
      await readFile(join(memDir(home.path), "compactor_state.json"), "utf8"),
    );
    expect(typeof state.last_compaction).toBe("string");
    const second = await runChatcli(["memory", "compact", "--if-due"], { env, cwd: home.path });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^Memory compaction not due \(last: .*\); nothing to do\.\n$/);
    expect(second.stderr).toBe("");
    const facts = await runChatcli(["memory", "facts"], { env });
    expect(facts.stdout).toContain("Total: 2 facts");
  });
});
