/**
 * Where the Go ChatCLI, built beside chatcli, disagreed (issue 25): each case with the exact input
 * and the bytes the Go code writes or reads, through the built binary.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

const memDir = (home: string) => join(home, ".chatcli", "memory");
type Json = Record<string, unknown>;
const readJson = async (path: string) => JSON.parse(await readFile(path, "utf8"));
/** Go: hex(sha256(strings.ToLower(strings.TrimSpace(content)))[:12]) — given the bytes Go hashes. */
const goId = (hashed: string) => createHash("sha256").update(hashed).digest("hex").slice(0, 24);

describe("the Go code agrees", () => {
  test("fact ids: Greek final sigma, İ, U+0085 trimmed, a leading U+FEFF kept", async () => {
    await using home = await tempDir();
    const env = baseEnv(home.path);
    const cases: Array<[string, string, string]> = [
      ["ΟΔΟΣ ΚΛΕΙΣΤΟΣ ΣΤΟ ΚΕΝΤΡΟ", "ΟΔΟΣ ΚΛΕΙΣΤΟΣ ΣΤΟ ΚΕΝΤΡΟ", "οδοσ κλειστοσ στο κεντρο"],
      ["İzmir office opens at nine", "İzmir office opens at nine", "izmir office opens at nine"],
      [
        "\u0085Staging lives in sa-east-1\u0085",
        "Staging lives in sa-east-1",
        "staging lives in sa-east-1",
      ],
      [
        "\uFEFFBuild with make release",
        "\uFEFFBuild with make release",
        "\uFEFFbuild with make release",
      ],
    ];
    for (const [typed] of cases) {
      const r = await runChatcli(["memory", "remember", "--category", "project", "--", typed], {
        env,
      });
      expect([typed, r.code, r.stdout]).toEqual([typed, 0, "Remembered.\n"]);
    }
    const index = (await readJson(join(memDir(home.path), "memory_index.json"))) as Json[];
    const byContent = new Map(index.map((f) => [f["content"], f["id"]]));
    for (const [typed, stored, hashed] of cases) {
      expect([typed, byContent.get(stored)]).toEqual([typed, goId(hashed)]);
    }
  });

  test('memory import takes created_at "2026-01-06 08:30:00" (a local time, as written)', async () => {
    await using home = await tempDir();
    const env = baseEnv(home.path, { TZ: "America/Sao_Paulo" });
    const doc = {
      format: "chatcli-memory-export",
      facts: [{ content: "Release freeze starts in January", created_at: "2026-01-06 08:30:00" }],
    };
    const r = await runChatcli(["memory", "import"], { env, stdin: JSON.stringify(doc) });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toContain("Imported: 1 fact(s) added, 0 merged, 0 rejected");
    const [fact] = (await readJson(join(memDir(home.path), "memory_index.json"))) as Json[];
    expect(fact?.["created_at"]).toBe("2026-01-06T08:30:00-03:00");
  });

  test("profile set org=Initech flags company sensitive (the raw key holds 'rg'); preferences_remove records field_meta.preferences", async () => {
    await using home = await tempDir();
    const env = baseEnv(home.path);
    const file = join(memDir(home.path), "user_profile.json");
    expect((await runChatcli(["memory", "profile", "set", "org=Initech"], { env })).code).toBe(0);
    let p = await readJson(file);
    expect(p.company).toBe("Initech");
    expect(p.field_meta.company).toMatchObject({ source: "user", sensitive: true });
    expect((await runChatcli(["memory", "profile", "set", "company=Acme"], { env })).code).toBe(0);
    expect((await readJson(file)).field_meta.company.sensitive).toBe(true);
    await runChatcli(["memory", "profile", "set", "pref:github=ana", "pref:team=sre"], { env });
    const rm = await runChatcli(["memory", "profile", "set", "preferences_remove=github"], { env });
    expect(rm.code).toBe(0);
    p = await readJson(file);
    expect(p.preferences).toEqual({ team: "sre" });
    expect(p.field_meta["pref:github"]).toBeUndefined();
    expect(p.field_meta.preferences).toMatchObject({
      source: "user",
      updated_at: expect.any(String),
      confirmed_at: expect.any(String),
    });
  });

  test(".env as godotenv 1.5.1: ${VAR} only from earlier keys; a rejected file loads nothing and warns dotenv_invalid with the line", async () => {
    await using home = await tempDir();
    const project = join(home.path, "proj");
    await mkdir(join(project, ".git"), { recursive: true });
    const env = baseEnv(home.path, { CHATCLI_DOTENV: join(project, ".env"), CAP: "99" });
    const stats = async () => {
      const r = await runChatcli(["memory", "stats", "--json"], { env, cwd: project });
      return { r, max: JSON.parse(r.stdout).max_facts as number };
    };
    // the process env's CAP is not used: godotenv 1.5.1 expands from the file only
    await writeFile(join(project, ".env"), "CHATCLI_MEMORY_MAX_FACTS=${CAP}7\n");
    expect((await stats()).max).toBe(7);
    await writeFile(join(project, ".env"), "CAP=3\nCHATCLI_MEMORY_MAX_FACTS=${CAP}1\n");
    expect((await stats()).max).toBe(31);
    for (const [bad, line] of [
      ["CHATCLI_MEMORY_MAX_FACTS=8\nMY-KEY=1\n", 2],
      ["CHATCLI_MEMORY_MAX_FACTS=8\n---\n", 2],
      ["CHATCLI_MEMORY_MAX_FACTS=8\nJUST_A_WORD\nX=1\n", 2],
      ['CHATCLI_MEMORY_MAX_FACTS=8\nA="open\n', 2],
      ["CHATCLI_MEMORY_MAX_FACTS=8\nB=1\nCLÉ=2\n", 3],
    ] as const) {
      await writeFile(join(project, ".env"), bad);
      const ask = await runChatcli(["ask", "-m", "mock:echo", "--json", "hi"], {
        env,
        cwd: project,
      });
      const out = JSON.parse(ask.stdout);
      const warning = (out.warnings as Json[]).find((w) => w["code"] === "dotenv_invalid");
      expect([bad, warning?.["message"]]).toEqual([
        bad,
        expect.stringContaining(`${join(project, ".env")}:${line}: `),
      ]);
      expect(ask.stderr).toContain(`.env:${line}: `);
      // nothing of the file applied: the cap is Go's default
      expect([bad, (await stats()).max]).toEqual([bad, 500]);
    }
  });

  test("bootstrap: AGENTS.md keeps its CRLF; a rule file without front matter keeps its body untrimmed", async () => {
    await using home = await tempDir();
    const project = join(home.path, "proj");
    await mkdir(join(project, ".git"), { recursive: true });
    await mkdir(join(project, ".chatcli", "rules"), { recursive: true });
    await writeFile(join(project, "AGENTS.md"), "Use make.\r\nNever push to main.\r\n");
    await writeFile(join(project, ".chatcli", "rules", "plain.md"), "\n  Indented rule.\r\n\n");
    const r = await runChatcli(["ask", "-m", "mock:echo", "--memory", "off", "fix src/a.go"], {
      env: baseEnv(home.path),
      cwd: project,
    });
    expect(r.code).toBe(0);
    const system = (JSON.parse(r.stdout).system as Array<{ id: string; text: string }>)
      .map((b) => b.text)
      .join("\n");
    expect(system).toContain("## AGENTS.md\n\nUse make.\r\nNever push to main.\r\n");
    expect(system).toContain("### Rule: plain\n\n\n  Indented rule.\r\n\n");
  });
});
