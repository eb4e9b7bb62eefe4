import { expect, test } from "bun:test";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { searchFilesTool } from "../../../lib/agent/tools/search-files.ts";
import { tempDir } from "../../support/ctx.ts";
import { toolCtx, writeTree } from "./support.ts";

const EVIL = `${"a".repeat(40)}!\n`.repeat(50);

test("built-in search: a catastrophic regex costs one per-file budget per file, the rest is still searched", async () => {
  await using d = await tempDir();
  await writeTree(d.path, { "a-evil.txt": EVIL, "b-good.txt": "aaa\n" });
  const ctx = toolCtx(d.path, {
    env: { PATH: "", HOME: d.path, CHATCLI_NO_RIPGREP: "1", CHATCLI_SEARCH_FILE_BUDGET_MS: "200" },
  });
  const started = performance.now();
  const r = await searchFilesTool.execute({ term: "(a+)+$", regex: true }, ctx);
  expect(performance.now() - started).toBeLessThan(5000);
  expect(r.output).toContain("b-good.txt:1:aaa");
  expect(r.output).toContain("skipped 1 file(s)");
  expect(r.output).toContain("a-evil.txt");
});

test("built-in search: an abort (--timeout, SIGTERM) ends a search stuck in a regex at once", async () => {
  await using d = await tempDir();
  await writeTree(d.path, { "evil.txt": EVIL });
  const controller = new AbortController();
  const ctx = toolCtx(d.path, {
    env: {
      PATH: "",
      HOME: d.path,
      CHATCLI_NO_RIPGREP: "1",
      CHATCLI_SEARCH_FILE_BUDGET_MS: "600000",
    },
    signal: controller.signal,
  });
  const started = performance.now();
  setTimeout(() => controller.abort(), 300);
  const r = await searchFilesTool.execute({ term: "(a+)+$", regex: true }, ctx);
  expect(performance.now() - started).toBeLessThan(3000);
  expect(r.output).toContain("search cancelled");
});

test("search skips credential stores, chatcli's home and the user's sandbox.deny_read under the searched dir", async () => {
  await using d = await tempDir();
  await writeTree(d.path, {
    ".ssh/id_rsa": "PRIVATE KEY canary\n",
    ".chatcli/memory/facts.json": "PRIVATE canary\n",
    "notes.txt": "PRIVATE notes\n",
    "secrets/prod.env": "PRIVATE canary\n",
    ".chatcli/config.json": JSON.stringify({ sandbox: { deny_read: ["~/secrets"] } }),
  });
  await symlink(join(d.path, ".ssh", "id_rsa"), join(d.path, "key.txt"));
  const { Sandbox } = await import("../../../lib/sandbox/sandbox.ts");
  const env = { PATH: "", HOME: d.path, CHATCLI_SANDBOX_BWRAP: "/nonexistent" };
  const sandbox = await Sandbox.create({
    env,
    setting: "off",
    permissionMode: "read-only",
    workspaceRoot: d.path,
  });
  const ctx = toolCtx(d.path, { env: { ...env, PATH: process.env["PATH"] ?? "" }, sandbox });
  const r = await searchFilesTool.execute({ term: "PRIVATE", dir: "." }, ctx);
  expect(r.output).toContain("notes.txt");
  expect(r.output).not.toContain("canary");
  expect(r.output).not.toContain("key.txt");
  const hidden = await searchFilesTool.execute({ term: "PRIVATE", dir: ".ssh" }, ctx);
  expect(hidden.output).toContain("protected");
});
