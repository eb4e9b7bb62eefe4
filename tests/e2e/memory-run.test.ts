import { beforeAll, describe, expect, test } from "bun:test";
import { mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

const EXTRACTION = [
  "## DAILY",
  "- chose the package manager",
  "",
  "## LONGTERM",
  "- [preference] User prefers pnpm over npm",
  "- [project] The build uses Bun",
  "",
  "## TOPICS",
  "- build tooling",
].join("\n");

function env(llm: MockLlm, home: string, extra: Record<string, string> = {}) {
  return baseEnv(home, {
    ...llm.env("openai"),
    CHATCLI_RETRY_BASE_MS: "1",
    CHATCLI_MAX_RETRIES: "0",
    ...extra,
  });
}

async function project(home: string, name = "proj"): Promise<string> {
  const dir = join(home, name);
  await mkdir(join(dir, ".git"), { recursive: true });
  return dir;
}

const memDir = (home: string) => join(home, ".chatcli", "memory");
const pending = async (home: string) =>
  (await readdir(join(memDir(home), "pending")).catch(() => [] as string[])).sort();

/** The system prompt text of an OpenAI chat request (the first message). */
function systemOf(body: unknown): string {
  const messages = (body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const sys = messages.find((m) => m.role === "system");
  if (!sys) return "";
  return typeof sys.content === "string" ? sys.content : JSON.stringify(sys.content);
}

describe("memory through ask (spawned binary, mock LLM)", () => {
  test("ask --memory write extracts facts the conversation produced; `memory facts` lists them", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const cwd = await project(home.path);
    llm.push({ text: "Use pnpm." }, { text: EXTRACTION });
    // the preference is the user's own words (issue 20: only those are the user's facts)
    const r = await runChatcli(
      ["ask", "--memory", "write", "I prefer pnpm over npm: which package manager?"],
      {
        env: env(llm, home.path),
        cwd,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Use pnpm.\n");
    expect(r.stderr).toBe("memory: +2 fact(s), +1 topic(s)\n");
    expect(llm.requests.length).toBe(2);
    // The extraction request carried the conversation.
    expect(JSON.stringify(llm.requests[1]?.body)).toContain("which package manager?");
    const facts = await runChatcli(["memory", "facts", "--json"], {
      env: env(llm, home.path),
      cwd,
    });
    expect(facts.code).toBe(0);
    const doc = JSON.parse(facts.stdout);
    const list = (Array.isArray(doc) ? doc : doc.facts) as Array<Record<string, unknown>>;
    expect(list.map((f) => f["content"]).sort()).toEqual([
      "The build uses Bun",
      "User prefers pnpm over npm",
    ]);
    expect(list.find((f) => f["content"] === "The build uses Bun")?.["source_project"]).toBe(cwd);
  });

  test("provider down: segment queued in pending/, one stderr line after 2 failures, a later run drains oldest first", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const cwd = await project(home.path);
    const e = env(llm, home.path);
    const down = { error: { status: 500, message: "provider down" } };
    const ask = (prompt: string) =>
      runChatcli(["ask", "--memory", "write", prompt], { env: e, cwd });
    // Run 1: the answer works, extraction fails → queued, nothing said yet.
    llm.push({ text: "one" }, down);
    const r1 = await ask("first question alpha");
    expect([r1.code, r1.stdout, r1.stderr]).toEqual([0, "one\n", ""]);
    expect((await pending(home.path)).length).toBe(1);
    // Run 2: the oldest segment is retried first and fails; the new one is queued; said once.
    llm.push({ text: "two" }, down);
    const r2 = await ask("second question beta");
    expect([r2.code, r2.stdout]).toEqual([0, "two\n"]);
    expect(r2.stderr).toBe(
      "memory: extraction failing (2 in a row) — recent facts are queued on disk and will be retried automatically\n",
    );
    expect(JSON.stringify(llm.requests[3]?.body)).toContain("first question alpha");
    const queued = await pending(home.path);
    expect(queued.length).toBe(2);
    const oldest = await readFile(join(memDir(home.path), "pending", queued[0] as string), "utf8");
    expect(oldest).toContain("first question alpha");
    // Run 3: still failing, but the line is not repeated.
    llm.push({ text: "three" }, down);
    const r3 = await ask("third question gamma");
    expect([r3.code, r3.stderr]).toEqual([0, ""]);
    expect((await pending(home.path)).length).toBe(3);
    // Run 4: the provider is back: the three queued segments are drained oldest first, then this run.
    const before = llm.requests.length;
    llm.push(
      { text: "four" },
      { text: "## LONGTERM\n- [project] Alpha service runs on port 8080" },
      { text: "## LONGTERM\n- [project] Beta service runs on port 8081" },
      { text: "NOTHING_NEW" },
      { text: "## LONGTERM\n- [project] Delta service runs on port 8083" },
    );
    const r4 = await ask("fourth question delta");
    expect([r4.code, r4.stdout]).toEqual([0, "four\n"]);
    // Each extraction that wrote something says so, the drained ones included.
    expect(r4.stderr).toBe("memory: +1 fact(s)\n".repeat(3));
    const order = llm.requests
      .slice(before + 1)
      .map((r) => JSON.stringify(r.body))
      .map((b) => ["alpha", "beta", "gamma", "delta"].filter((w) => b.includes(`question ${w}`)));
    expect(order).toEqual([["alpha"], ["beta"], ["gamma"], ["delta"]]);
    expect(await pending(home.path)).toEqual([]);
    const facts = await runChatcli(["memory", "facts"], { env: e, cwd });
    for (const port of ["8080", "8081", "8083"]) expect(facts.stdout).toContain(port);
  });

  test("the active provider fails extraction: CHATCLI_MEMORY_FALLBACK_PROVIDERS serves it", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const cwd = await project(home.path);
    const e = baseEnv(home.path, {
      ...llm.env("anthropic"),
      ...llm.env("openai"),
      CHATCLI_MAX_RETRIES: "0",
      CHATCLI_MEMORY_FALLBACK_PROVIDERS: "CLAUDEAI",
    });
    llm.push(
      { text: "answer" },
      { error: { status: 500, message: "provider down" } },
      { text: "## LONGTERM\n- [project] The fallback provider served this fact" },
    );
    const r = await runChatcli(["ask", "--memory", "write", "question zeta"], { env: e, cwd });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "answer\n", "memory: +1 fact(s)\n"]);
    expect(llm.requests.map((q) => q.path)).toEqual([
      "/v1/chat/completions",
      "/v1/chat/completions",
      "/v1/messages",
    ]);
    expect(await pending(home.path)).toEqual([]);
    const facts = await runChatcli(["memory", "facts"], { env: e, cwd });
    expect(facts.stdout).toContain("The fallback provider served this fact [project]");
  });

  test("a segment queued in one project is extracted for that project when another project drains it", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const billing = await project(home.path, "billing");
    const web = await project(home.path, "web");
    const e = env(llm, home.path);
    llm.push({ text: "ok" }, { error: { status: 500, message: "provider down" } });
    const r1 = await runChatcli(["ask", "--memory", "write", "billing question"], {
      env: e,
      cwd: billing,
    });
    expect([r1.code, r1.stderr]).toEqual([0, ""]);
    expect((await pending(home.path)).length).toBe(1);
    llm.push(
      { text: "ok" },
      { text: "## LONGTERM\n- [project] Invoices are generated nightly by cron" },
      { text: "NOTHING_NEW" },
    );
    const r2 = await runChatcli(["ask", "--memory", "write", "web question"], { env: e, cwd: web });
    expect(r2.code).toBe(0);
    expect(JSON.stringify(llm.requests[3]?.body)).toContain(
      `CURRENT SESSION WORKSPACE: ${billing}`,
    );
    expect(JSON.stringify(llm.requests[4]?.body)).toContain(`CURRENT SESSION WORKSPACE: ${web}`);
    const facts = JSON.parse(
      (await runChatcli(["memory", "facts", "--json"], { env: e, cwd: web })).stdout,
    ) as Array<{ content: string; source_project: string }>;
    expect(facts.map((f) => [f.content, f.source_project])).toEqual([
      ["Invoices are generated nightly by cron", billing],
    ]);
  });

  test("a stalled extraction never holds the command past its bound; the segment is queued", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const cwd = await project(home.path);
    llm.push({ text: "answer" }, { stall: true });
    const started = performance.now();
    const r = await runChatcli(["ask", "--memory", "write", "question epsilon"], {
      env: env(llm, home.path, { CHATCLI_MEMORY_EXTRACT_TIMEOUT_MS: "500" }),
      cwd,
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "answer\n", ""]);
    // 500 ms for the model + the 1 s grace for file IO, with room for process start-up.
    expect(performance.now() - started).toBeLessThan(5000);
    const queued = await pending(home.path);
    expect(queued.length).toBe(1);
    const seg = await readFile(join(memDir(home.path), "pending", queued[0] as string), "utf8");
    expect(seg).toContain("question epsilon");
  });

  test("full-mode retrieval in ask's system prompt; other projects' facts say where they came from", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const here = await project(home.path, "here");
    const other = await project(home.path, "other");
    const e = env(llm, home.path);
    const remember = async (cwd: string, text: string) =>
      expect(
        (await runChatcli(["memory", "remember", "--category", "project", text], { env: e, cwd }))
          .code,
      ).toBe(0);
    await remember(here, "The deploy script uses kubectl rollout");
    await remember(other, "The deploy pipeline of billing uses helm");
    llm.push({ text: "ok" });
    const r = await runChatcli(["ask", "how do we deploy?"], { env: e, cwd: here });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "ok\n", ""]);
    const system = systemOf(llm.requests[0]?.body);
    expect(system).toContain("## Long-term Memory");
    expect(system).toContain("- [project] The deploy script uses kubectl rollout\n");
    expect(system).toContain(
      `- [project] The deploy pipeline of billing uses helm (from: ${other})`,
    );
    expect(system).not.toContain(`kubectl rollout (from:`);
    // Nothing was extracted: not a TTY, so --memory defaults to read.
    expect(llm.requests.length).toBe(1);
    // `bootstrap show` prints exactly what ask sent.
    const indexPath = join(memDir(home.path), "memory_index.json");
    const accessCounts = async () =>
      (JSON.parse(await readFile(indexPath, "utf8")) as Array<{ access_count: number }>).map(
        (f) => f.access_count,
      );
    const counted = await accessCounts();
    const shown = await runChatcli(["bootstrap", "show", "how do we deploy?", "--json"], {
      env: e,
      cwd: here,
    });
    expect(shown.code).toBe(0);
    const doc = JSON.parse(shown.stdout) as {
      memory_mode: string;
      blocks: Array<{ text: string }>;
    };
    expect(doc.memory_mode).toBe("full");
    const undated = (t: string) => t.replace(/Current date: .*\n/, "");
    // OpenAI gets the blocks as one system message joined by blank lines.
    expect(undated(doc.blocks.map((b) => b.text).join("\n\n"))).toBe(undated(system));
    // Showing the prompt is not an access: the scores that rank the next prompt did not move.
    expect(await accessCounts()).toEqual(counted);
  });

  test("index mode: the digest sits in the cached prefix of agent requests; the memory tool remembers and recalls through the store", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const cwd = await project(home.path);
    const e = baseEnv(home.path, { ...llm.env("anthropic"), CHATCLI_RETRY_BASE_MS: "1" });
    for (const text of ["Tests run with bun test", "CI runs on GitHub Actions"])
      expect((await runChatcli(["memory", "remember", text], { env: e, cwd })).code).toBe(0);
    llm.push(
      {
        tool_calls: [
          {
            name: "memory",
            arguments: {
              cmd: "remember",
              args: { content: "The linter is biome", category: "pattern" },
            },
          },
        ],
      },
      { tool_calls: [{ name: "memory", arguments: { cmd: "recall", args: { query: "linter" } } }] },
      { text: "done" },
      { text: "NOTHING_NEW" },
    );
    const r = await runChatcli(
      ["agent", "set up linting: the linter is biome", "--json", "--memory", "write"],
      {
        env: e,
        cwd,
      },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe("done");
    const bodies = llm.requests.map(
      (q) => q.body as { system: Array<{ text: string; cache_control?: unknown }> },
    );
    // Three turns, then the extraction at the end of the run (its own request, no system prompt).
    expect(bodies.length).toBe(4);
    bodies.pop();
    for (const body of bodies) {
      const cachedUpTo = body.system.findLastIndex((b) => b.cache_control !== undefined);
      const cached = body.system
        .slice(0, cachedUpTo + 1)
        .map((b) => b.text)
        .join("\n");
      expect(cached).toContain("# Memory Index\n");
      expect(cached).toContain("Facts: 2 stored (general 2)");
      expect(cached).toContain("@memory");
    }
    // The cached prefix is byte-identical across the turns, though the store grew.
    expect(JSON.stringify(bodies[2]?.system.slice(0, 1))).toBe(
      JSON.stringify(bodies[0]?.system.slice(0, 1)),
    );
    // The recall's tool result reached the model with the fact remembered one turn before.
    const results = (
      bodies[2] as unknown as { messages: Array<{ content: unknown }> }
    ).messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const recalled = results.filter((b) => b.type === "tool_result").map((b) => JSON.stringify(b));
    expect(recalled.length).toBe(2);
    expect(recalled[1]).toContain("[pattern] The linter is biome");
    const facts = await runChatcli(["memory", "facts", "--category", "pattern"], { env: e, cwd });
    expect(facts.stdout).toContain("The linter is biome");
  });
});
