import { describe, expect, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

const A = "export const a = 1;\nexport const b = 2;\n";
const B = "line one\nline two\n";

/** A workspace (git root) with a.ts and b.txt, and a mock:script file of `replies`. */
async function workspace(dir: string, replies: unknown[]): Promise<string> {
  Bun.spawnSync(["git", "init", "-q"], { cwd: dir });
  await writeFile(join(dir, "a.ts"), A);
  await writeFile(join(dir, "b.txt"), B);
  const script = join(dir, ".git", "replies.jsonl");
  await writeFile(script, `${replies.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return script;
}

const multipatch = (edits: Array<{ file: string; search: string; replace: string }>) => ({
  tool_calls: [{ id: "mp1", name: "multipatch", arguments: { edits } }],
});

function events(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

async function run(dir: string, script: string, mode: string, format = "stream-json") {
  const env = baseEnv(dir, { CHATCLI_MEMORY_ENABLED: "false" });
  const args = ["coder", "edit", "-m", "mock:script", "--fake-responses", script, "--ephemeral"];
  return runChatcli([...args, "--permission-mode", mode, "--output-format", format], {
    env,
    cwd: dir,
  });
}

describe("multipatch (spawned binary, mock:script)", () => {
  test("applies every edit over several files: one file.changed per file, files_changed lists both", async () => {
    requireBinary();
    await using dir = await tempDir();
    const script = await workspace(dir.path, [
      multipatch([
        { file: "a.ts", search: "a = 1", replace: "a = 10" },
        { file: "b.txt", search: "line two", replace: "line 2" },
        // a second edit of a.ts sees the text the first one left
        {
          file: "a.ts",
          search: "a = 10;\nexport const b = 2",
          replace: "a = 10;\nexport const b = 20",
        },
      ]),
      { text: "Both files edited." },
    ]);
    const r = await run(dir.path, script, "edit");
    expect(r.code).toBe(0);
    expect(await readFile(join(dir.path, "a.ts"), "utf8")).toBe(
      "export const a = 10;\nexport const b = 20;\n",
    );
    expect(await readFile(join(dir.path, "b.txt"), "utf8")).toBe("line one\nline 2\n");
    const evs = events(r.stdout);
    const changed = evs.filter((e) => e["type"] === "file.changed");
    expect(changed.map((e) => e["path"]).sort()).toEqual(["a.ts", "b.txt"]);
    const done = evs.find((e) => e["type"] === "tool.completed");
    expect(done).toMatchObject({ name: "multipatch", status: "ok" });
    expect(String(done?.["output"])).toContain("applied 3 edits to 2 files");
    const json = await run(
      dir.path,
      await workspace(dir.path, [
        multipatch([
          { file: "a.ts", search: "a = 1;", replace: "a = 3;" },
          { file: "b.txt", search: "one", replace: "1" },
        ]),
        { text: "ok" },
      ]),
      "edit",
      "json",
    );
    expect(json.code).toBe(0);
    const envelope = JSON.parse(json.stdout);
    expect(envelope.files_changed).toEqual([
      { path: "a.ts", change: "modified" },
      { path: "b.txt", change: "modified" },
    ]);
    expect(envelope.tools.by_name).toEqual({ multipatch: 1 });
  }, 30_000);

  test("all or nothing: one edit that does not match (or matches twice) leaves every file untouched", async () => {
    requireBinary();
    await using dir = await tempDir();
    const script = await workspace(dir.path, [
      multipatch([
        { file: "a.ts", search: "a = 1", replace: "a = 10" },
        { file: "b.txt", search: "line three", replace: "line 3" },
      ]),
      multipatch([
        { file: "b.txt", search: "line one", replace: "line 1" },
        { file: "a.ts", search: "export const", replace: "const" },
      ]),
      multipatch([
        { file: "a.ts", search: "a = 1", replace: "a = 10" },
        { file: "missing.ts", search: "x", replace: "y" },
      ]),
      { text: "Could not apply." },
    ]);
    const r = await run(dir.path, script, "edit");
    expect(r.code).toBe(0);
    expect(await readFile(join(dir.path, "a.ts"), "utf8")).toBe(A);
    expect(await readFile(join(dir.path, "b.txt"), "utf8")).toBe(B);
    const evs = events(r.stdout);
    expect(evs.filter((e) => e["type"] === "file.changed")).toEqual([]);
    const results = evs.filter((e) => e["type"] === "tool.completed");
    expect(results.map((e) => e["status"])).toEqual(["error", "error", "error"]);
    expect(String(results[0]?.["output"])).toContain("edit 2 (b.txt): search text matched 0 times");
    expect(String(results[1]?.["output"])).toContain("edit 2 (a.ts): search text matched 2 times");
    expect(String(results[2]?.["output"])).toContain("missing.ts does not exist");
    for (const res of results) expect(String(res["output"])).toContain("o file was changed");
    const final = evs.at(-1) as Record<string, unknown>;
    expect(final["files_changed"]).toEqual([]);
  }, 30_000);

  test("judged like patch_file on every file: denied in read-only, and outside the workspace in edit mode", async () => {
    requireBinary();
    await using dir = await tempDir();
    await using outside = await tempDir();
    const canary = join(outside.path, "canary.txt");
    await writeFile(canary, "canary\n");
    const script = await workspace(dir.path, [
      multipatch([{ file: "a.ts", search: "a = 1", replace: "a = 10" }]),
      { text: "Denied." },
    ]);
    const ro = await run(dir.path, script, "read-only", "json");
    expect(ro.code).toBe(6); // blocked: its one edit was denied
    const envelope = JSON.parse(ro.stdout);
    expect(envelope.permission_denials).toMatchObject([{ tool: "multipatch", input: "a.ts" }]);
    expect(envelope.files_changed).toEqual([]);
    expect(await readFile(join(dir.path, "a.ts"), "utf8")).toBe(A);

    const script2 = await workspace(dir.path, [
      multipatch([
        { file: "a.ts", search: "a = 1", replace: "a = 10" },
        { file: canary, search: "canary", replace: "pwned" },
      ]),
      { text: "Denied." },
    ]);
    const edit = await run(dir.path, script2, "edit", "json");
    expect(edit.code).toBe(6); // blocked
    const env2 = JSON.parse(edit.stdout);
    expect(env2.permission_denials).toHaveLength(1);
    expect(env2.permission_denials[0].reason).toContain("outside the workspace");
    expect(await readFile(canary, "utf8")).toBe("canary\n");
    expect(await readFile(join(dir.path, "a.ts"), "utf8")).toBe(A);
  }, 30_000);
});
