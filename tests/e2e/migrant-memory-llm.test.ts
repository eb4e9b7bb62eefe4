import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli, TEST_NOW } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { changed, FOREIGN, GO_TIME, type Json, snapshot, writeGoHome } from "./migrant-home.ts";

beforeAll(() => {
  requireBinary();
});

describe("the memory of a Go ChatCLI user, with a model (spawned binary, mock LLM)", () => {
  test("agent: the memory tool's recall brings back Go facts and Go episodes; the Go home is left as it was", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const { chatcli, project } = await writeGoHome(home.path);
    const before = await snapshot(chatcli);
    llm.push(
      {
        tool_calls: [
          { name: "memory", arguments: { cmd: "recall", args: { query: "bazel build" } } },
        ],
      },
      { text: "You moved the build to Bazel in March." },
    );
    const env = baseEnv(home.path, { ...llm.env("openai"), TZ: "UTC" });
    const r = await runChatcli(
      ["agent", "--memory", "read", "--ephemeral", "what did we do about the build?"],
      { env, cwd: project },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("You moved the build to Bazel in March.\n");
    type Sent = { messages: Array<{ role: string; content: string }> } | undefined;
    const sent = (llm.requests[1]?.body as Sent)?.messages ?? [];
    // The index digest counts the episodes and says recall fetches them; recall does.
    expect(sent[0]?.content).toContain("Episodes: 2 dated work entries");
    const result = sent.find((m) => m.role === "tool")?.content ?? "";
    expect(result).toContain(
      "## Recent Episodes\n\n- [2026-03-14] (chatcli) migrated the build to Bazel",
    );
    expect(result).toContain("## User Profile\n\nName: Ana");
    // recall counts as an access of the facts it returned: only the index may change.
    expect(
      (await changed(before, chatcli)).filter((p) => p !== "memory/memory_index.json"),
    ).toEqual([]);
  });

  test("ask --memory write: Go's queued segment is extracted first, then the turn; Go's entries keep their nulls and keys", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const { chatcli, project } = await writeGoHome(home.path);
    const mem = join(chatcli, "memory");
    const before = await snapshot(chatcli);
    llm.push(
      { text: "Use lazy.nvim." },
      {
        text: "## LONGTERM\n- [preference] User switched from vim to neovim\n## TOPICS\nEditors: moved to neovim",
      },
      {
        text: "## DAILY\n- asked how to manage neovim plugins\n## PROJECTS\nproject_name=chatcli\nproject_technologies=Bun",
      },
    );
    const env = baseEnv(home.path, { ...llm.env("openai"), TZ: "UTC" });
    const today = new Date(TEST_NOW).toISOString().slice(0, 10).replaceAll("-", "");
    const r = await runChatcli(["ask", "--memory", "write", "how do I manage neovim plugins?"], {
      env,
      cwd: project,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Use lazy.nvim.\n");
    expect(JSON.stringify(llm.requests[1]?.body)).toContain("I switched from vim to neovim");
    expect(JSON.stringify(llm.requests[2]?.body)).toContain("how do I manage neovim plugins?");
    expect(await readdir(join(mem, "pending"))).toEqual([]);

    const topics = JSON.parse(await readFile(join(mem, "topics.json"), "utf8")) as Json[];
    expect(topics[0]).toEqual(JSON.parse(before.get("memory/topics.json") as string)[0]);
    expect(topics[1]).toMatchObject({ name: "Editors", mentions: 1, summary: "moved to neovim" });
    const projects = JSON.parse(await readFile(join(mem, "projects.json"), "utf8")) as Json[];
    expect(projects).toHaveLength(1);
    expect(projects[0]).toMatchObject({
      name: "chatcli",
      path: "/home/ana/src/chatcli",
      technologies: ["Go", "Bubble Tea", "Bun"],
      key_files: null,
      metadata: null,
      priority: 0,
    });
    expect(projects[0]?.["last_active"]).toMatch(GO_TIME);
    const note = await readFile(join(mem, today.slice(0, 6), `${today}.md`), "utf8");
    expect(note).toMatch(/^\n## \d{2}:\d{2}\n\n- asked how to manage neovim plugins\n$/);
    const facts = JSON.parse(await readFile(join(mem, "memory_index.json"), "utf8")) as Json[];
    expect(facts.map((f) => f["content"])).toContain("User switched from vim to neovim");
    for (const rel of Object.keys(FOREIGN)) {
      expect(await readFile(join(chatcli, rel), "utf8")).toBe(FOREIGN[rel] as string);
    }
  });

  test("memory compact (LLM) on Go's facts: dropped ones appended to Go's archive, kept ones keep their metadata", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const { chatcli, project } = await writeGoHome(home.path);
    const mem = join(chatcli, "memory");
    const id = (c: string) =>
      createHash("sha256").update(c.trim().toLowerCase()).digest("hex").slice(0, 24);
    const facts = Array.from({ length: 12 }, (_, i) => {
      const content = `Service ${i} deploys with helm chart v${i}`;
      return {
        id: id(content),
        content,
        category: "project",
        tags: null,
        created_at: "2026-07-30T10:12:44.518233101-03:00",
        last_accessed: "2026-11-01T09:03:10.004-03:00",
        access_count: i,
        score: 1.5,
        source_project: "/home/ana/src/infra",
        confidence: 0.7,
        provenance: "extraction",
        x_go_new: { i },
      };
    });
    await writeFile(join(mem, "memory_index.json"), JSON.stringify(facts, null, 2));
    const archivedBefore = JSON.parse(await readFile(join(mem, "memory_archive.json"), "utf8"));
    llm.push({
      text: facts
        .slice(0, 8)
        .map((f) => `- [project] ${f.content}`)
        .join("\n"),
    });
    const env = baseEnv(home.path, { ...llm.env("openai"), TZ: "UTC" });
    const r = await runChatcli(["memory", "compact"], { env, cwd: project });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Facts: 12 -> 8");
    const index = JSON.parse(await readFile(join(mem, "memory_index.json"), "utf8")) as Json[];
    expect(index).toHaveLength(8);
    for (const f of index) {
      const original = facts.find((o) => o.content === f["content"]);
      expect(f).toMatchObject({
        id: original?.id,
        created_at: original?.created_at,
        access_count: original?.access_count,
        source_project: "/home/ana/src/infra",
        confidence: 0.7,
        provenance: "extraction",
        x_go_new: original?.x_go_new,
      });
    }
    const archive = JSON.parse(await readFile(join(mem, "memory_archive.json"), "utf8")) as Json[];
    expect(archive.slice(0, archivedBefore.length)).toEqual(archivedBefore);
    expect(archive.slice(archivedBefore.length).map((f) => f["content"])).toEqual(
      expect.arrayContaining(facts.slice(8).map((f) => f.content)),
    );
    expect(archive).toHaveLength(archivedBefore.length + 4);
    const state = await readFile(join(mem, "compactor_state.json"), "utf8");
    expect(state).toMatch(/^\{"last_compaction":"[^"]+"\}$/);
    expect(JSON.parse(state).last_compaction).toMatch(GO_TIME);
    const tombstones = JSON.parse(await readFile(join(mem, "memory_tombstones.json"), "utf8"));
    for (const f of facts.slice(8)) expect(tombstones[f.id]).toMatch(GO_TIME);
  });
});
