import { beforeAll, describe, expect, test } from "bun:test";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { changed, FOREIGN, GO_TIME, type Json, snapshot, writeGoHome } from "./migrant-home.ts";

beforeAll(() => {
  requireBinary();
});

describe("the memory of a Go ChatCLI user (spawned binary)", () => {
  test("every read-only memory command and `bootstrap show` leave the Go home byte-identical", async () => {
    await using home = await tempDir();
    const { chatcli, project } = await writeGoHome(home.path);
    const before = await snapshot(chatcli);
    const env = baseEnv(home.path, { TZ: "UTC" });
    const runs: string[][] = [
      ["memory", "today"],
      ["memory", "week"],
      ["memory", "2026-07-30"],
      ["memory", "longterm"],
      ["memory", "list"],
      ["memory", "facts"],
      ["memory", "facts", "--json"],
      ["memory", "profile"],
      ["memory", "topics"],
      ["memory", "projects"],
      ["memory", "stats"],
      ["memory", "stats", "--json"],
      ["memory", "export"],
      ["memory", "compact", "--if-due", "--no-llm"],
      ["memory", "forget", "Staging", "--dry-run"],
      ["bootstrap", "show"],
      ["bootstrap", "show", "how did the bazel migration go?"],
      ["bootstrap", "show", "--mode", "agent", "--json"],
      ["sessions", "list"],
    ];
    const outputs: Record<string, string> = {};
    for (const args of runs) {
      const r = await runChatcli(args, { env, cwd: project });
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      outputs[args.join(" ")] = r.stdout;
    }
    expect(await changed(before, chatcli)).toEqual([]);
    // …and the user sees their old data.
    expect(outputs["memory 2026-07-30"]).toContain("- Modified cli/x.go");
    expect(outputs["memory facts"]).toContain("Staging database lives in sa-east-1 [general]");
    expect(outputs["memory profile"]).toContain("Name: Ana");
    expect(outputs["memory profile"]).toContain("  Last updated: 2026-08-01 12:03\n");
    expect(outputs["memory topics"]).toContain("Go  (3 mentions, last: 2026-11-20)");
    expect(outputs["memory projects"]).toContain("chatcli  [active]");
    expect(outputs["memory stats"]).toBe(
      [
        "Memory System Stats",
        "─────────────────────────────────────────",
        "  Facts: 2 (general 1, preference 1)",
        "  Archived: 1 (memory_archive.json)",
        "  Topics: 1",
        "  Projects: 1",
        "  Sessions: 12",
        "  Total messages: 40",
        "  Avg session: 22 min",
        "  Peak hours: 15:00, 10:00, 14:00",
        "  Features: chat(30), agent(6), coder(4)",
        "  Common errors:",
        "    go: module not found (4x) → go mod tidy",
        "  Last session: 2026-11-29",
        "",
      ].join("\n"),
    );
    // Go's episodic timeline: what the digest advertises, recall (and full mode) can show.
    expect(outputs["bootstrap show how did the bazel migration go?"]).toContain(
      "## Recent Episodes\n\n- [2026-03-14] (chatcli) migrated the build to Bazel → CI 40% faster [BUILD.bazel]\n",
    );
    expect(outputs["bootstrap show"]).toContain(
      "- [preference] User prefers Go for CLI tools (from: /home/ana/src/chatcli)",
    );
  });

  test("recall is a look-up: no file Go reads changes, only chatcli's own recall index appears", async () => {
    await using home = await tempDir();
    const { chatcli, project } = await writeGoHome(home.path);
    // Go writes memory_tombstones.json on a deletion only; a user who never forgot a fact has none.
    await rm(join(chatcli, "memory", "memory_tombstones.json"));
    const before = await snapshot(chatcli);
    const env = baseEnv(home.path, { TZ: "UTC" });
    const r = await runChatcli(["memory", "recall", "go cli tools"], { env, cwd: project });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("User prefers Go for CLI tools");
    expect(await changed(before, chatcli)).toEqual(["memory/.chatcli-recall-index"]);
  });

  test("remember, profile set and forget: files Go can read back, unknown keys and zero times kept", async () => {
    await using home = await tempDir();
    const { chatcli, project } = await writeGoHome(home.path);
    const before = await snapshot(chatcli);
    const env = baseEnv(home.path, { TZ: "UTC" });
    for (const args of [
      ["memory", "remember", "--category", "gotcha", "bun build needs --compile"],
      ["memory", "profile", "set", "env_editor=neovim"],
      ["memory", "forget", "Staging"],
    ]) {
      const r = await runChatcli(args, { env, cwd: project });
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: "" });
    }
    expect(await changed(before, chatcli)).toEqual([
      "memory/MEMORY.md",
      "memory/memory_index.json",
      "memory/memory_tombstones.json",
      "memory/user_profile.json",
    ]);
    const mem = join(chatcli, "memory");
    const read = async (name: string) => {
      const text = await readFile(join(mem, name), "utf8");
      const value = JSON.parse(text);
      expect(text.trimEnd()).toBe(JSON.stringify(value, null, 2));
      return value;
    };

    const index = (await read("memory_index.json")) as Json[];
    expect(index.map((f) => f["content"])).toEqual([
      "bun build needs --compile",
      "User prefers Go for CLI tools",
    ]);
    for (const f of index) {
      expect(f["id"]).toMatch(/^[0-9a-f]{24}$/);
      expect(f["created_at"]).toMatch(GO_TIME);
      expect(f["last_accessed"]).toMatch(GO_TIME);
      expect(Number.isInteger(f["access_count"])).toBe(true);
      expect(typeof f["score"]).toBe("number");
    }
    const go = index[1] as Json;
    expect(go["created_at"]).toBe("2026-07-30T10:12:44.518233101-03:00");
    expect(go["embedding_ref"]).toEqual({ model: "voyage-3" });
    expect(go["tags"]).toEqual(["go", "cli"]);

    const tombstones = (await read("memory_tombstones.json")) as Record<string, string>;
    expect(Object.keys(tombstones)).toEqual([
      "0a1b2c3d4e5f60718293a4b5",
      "222222222222222222222222",
    ]);
    expect(tombstones["222222222222222222222222"]).toBe("2026-11-01T08:00:00.123456789+01:00");
    expect(tombstones["0a1b2c3d4e5f60718293a4b5"]).toMatch(GO_TIME);

    const profile = (await read("user_profile.json")) as Json;
    expect(profile["environment"]).toEqual({ os: "macOS", shell: "zsh", editor: "neovim" });
    expect(profile["future_field"]).toEqual({ kept: true });
    expect(profile["top_commands"]).toEqual([{ command: "git", count: 3 }]);
    expect(profile["stances"]).toEqual([
      {
        position: "prefer table-driven tests",
        reason: "cheap",
        updated_at: "0001-01-01T00:00:00Z",
      },
    ]);
    const meta = profile["field_meta"] as Record<string, Json>;
    expect(meta["name"]?.["confirmed_at"]).toBe("0001-01-01T00:00:00Z");
    expect(meta["environment"]?.["updated_at"]).toMatch(GO_TIME);
    expect(profile["last_updated"]).toMatch(GO_TIME);

    expect(await readFile(join(mem, "MEMORY.md"), "utf8")).toBe(
      "# Long-term Memory\n\n## Gotcha\n\n- bun build needs --compile\n\n## Preference\n\n- User prefers Go for CLI tools\n\n",
    );
    // Other subsystems' files untouched; no lock or temp file left anywhere.
    for (const rel of Object.keys(FOREIGN)) {
      expect(await readFile(join(chatcli, rel), "utf8")).toBe(FOREIGN[rel] as string);
    }
    const leftovers = [...(await snapshot(chatcli)).keys()].filter((p) =>
      /\.(tmp|lock)|\.claim-/.test(p),
    );
    expect(leftovers).toEqual([]);
    expect((await readdir(mem)).sort()).toContain("memory_archive.json");
  });
});
