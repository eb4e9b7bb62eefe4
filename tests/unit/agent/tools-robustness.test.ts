import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gitDiffTool, gitStatusTool } from "../../../lib/agent/tools/git.ts";
import { memoryTool } from "../../../lib/agent/tools/memory.ts";
import { applyUnifiedDiff, patchFileTool } from "../../../lib/agent/tools/patch-file.ts";
import { readFileTool } from "../../../lib/agent/tools/read-file.ts";
import { runCommandTool } from "../../../lib/agent/tools/run-command.ts";
import { searchFilesTool } from "../../../lib/agent/tools/search-files.ts";
import { webFetchTool } from "../../../lib/agent/tools/web-fetch.ts";
import { tempDir } from "../../support/ctx.ts";
import { toolCtx } from "./support.ts";

describe("read_file on big and binary files", () => {
  test("tail and ranges reach the real end of a file bigger than one output", async () => {
    await using d = await tempDir();
    const lines = Array.from({ length: 30_000 }, (_, i) => `line ${i + 1} ${"x".repeat(20)}`);
    await writeFile(join(d.path, "big.log"), `${lines.join("\n")}\n`);
    const ctx = toolCtx(d.path);
    const tail = await readFileTool.execute({ file: "big.log", tail: 2 }, ctx);
    expect(tail.output).toStartWith("big.log (lines 29999-30000 of 30000)");
    expect(tail.output).toContain("30000 | line 30000 ");
    const mid = await readFileTool.execute({ file: "big.log", start: 25_000, end: 25_001 }, ctx);
    expect(mid.output).toContain("25000 | line 25000 ");
    expect(mid.isError).toBeUndefined();
    // a whole read stops at the output cap and says where to continue
    const whole = await readFileTool.execute({ file: "big.log" }, ctx);
    expect(whole.output.length).toBeLessThan(210_000);
    expect(whole.output).toMatch(/continue with start=\d+/);
  });

  test("binary files are an error result, not bytes", async () => {
    await using d = await tempDir();
    await writeFile(join(d.path, "a.bin"), new Uint8Array([1, 2, 0, 3]));
    const r = await readFileTool.execute({ file: "a.bin" }, toolCtx(d.path));
    expect(r).toMatchObject({ isError: true });
    expect(r.output).toContain("looks binary");
  });
});

describe("patch_file unified diffs", () => {
  const file = "a\nb\nc\nd\ne\nf\ng\nh\n";
  test("several hunks apply together, by their own lines", () => {
    const diff =
      "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -6,3 +6,3 @@\n f\n-g\n+G\n h\n";
    expect(applyUnifiedDiff(file, diff)).toEqual({ text: "a\nB\nc\nd\ne\nf\nG\nh\n" });
  });

  test("CRLF files keep CRLF; a diff written with LF applies", () => {
    const crlf = file.replace(/\n/g, "\r\n");
    const diff = "@@ -2,1 +2,1 @@\n-b\n+B\n";
    expect(applyUnifiedDiff(crlf, diff)).toEqual({ text: crlf.replace("b\r\n", "B\r\n") });
  });

  test("overlapping hunks are an error, not a corrupted file", async () => {
    const diff = "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n";
    expect(applyUnifiedDiff(file, diff)).toEqual({
      error: "two hunks apply to overlapping lines; merge them into one hunk",
    });
    await using d = await tempDir();
    await writeFile(join(d.path, "f.txt"), file);
    const r = await patchFileTool.execute({ file: "f.txt", diff }, toolCtx(d.path));
    expect(r.isError).toBe(true);
    expect(await readFile(join(d.path, "f.txt"), "utf8")).toBe(file);
  });
});

describe("web_fetch redirects", () => {
  test("every hop is checked: a redirect to a metadata address is refused before any request", async () => {
    await using server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        const path = new URL(req.url).pathname;
        if (path === "/hop") return Response.redirect("/page", 302);
        if (path === "/meta")
          return Response.redirect("http://169.254.169.254/latest/meta-data/", 302);
        if (path === "/loop") return Response.redirect("/loop", 302);
        return new Response("<p>final</p>", { headers: { "content-type": "text/html" } });
      },
    });
    const base = `http://127.0.0.1:${server.port}`;
    const seen: string[] = [];
    const recording = ((input: string | URL | Request, init?: RequestInit) => {
      seen.push(String(input));
      return fetch(input, init);
    }) as typeof fetch;
    const ctx = toolCtx("/tmp", { fetch: recording });
    const ok = await webFetchTool.execute({ url: `${base}/hop` }, ctx);
    expect(ok.output).toBe(`[redirected to ${base}/page]\nfinal`);
    const meta = await webFetchTool.execute({ url: `${base}/meta` }, ctx);
    expect(meta.isError).toBe(true);
    expect(meta.output).toContain("169.254.169.254 is a link-local or cloud metadata address");
    const direct = await webFetchTool.execute({ url: "http://[::ffff:169.254.169.254]/" }, ctx);
    expect(direct.isError).toBe(true);
    const loop = await webFetchTool.execute({ url: `${base}/loop` }, ctx);
    expect(loop.output).toContain("too many redirects");
    expect(seen.filter((u) => !u.startsWith(base))).toEqual([]);
  });
});

describe("run_command output", () => {
  test("a huge output keeps its head and its real end (where test summaries are)", async () => {
    await using d = await tempDir();
    const r = await runCommandTool.execute(
      { cmd: "seq 1 400000; echo 'SUMMARY: 3 failed' >&2; exit 1" },
      toolCtx(d.path),
    );
    expect(r.exitCode).toBe(1);
    expect(r.output).toStartWith("exit code: 1\n1\n2\n3\n");
    expect(r.output).toMatch(/\[\.\.\. \d+ bytes dropped \.\.\.\]/);
    expect(r.output).toContain("399999\n400000\n[stderr]\nSUMMARY: 3 failed");
  });
});

describe("memory tool", () => {
  test("forget needs a real match: one or two letters would wipe every fact", async () => {
    const forgotten: string[] = [];
    const memory = {
      remember: async () => "",
      profile: async () => "",
      recall: async () => "",
      forget: async (m: string) => {
        forgotten.push(m);
        return `forgot facts containing ${m}`;
      },
    };
    const ctx = toolCtx("/tmp", { memory, memoryMode: "write" });
    const short = await memoryTool.execute({ cmd: "forget", match: " e " }, ctx);
    expect(short).toMatchObject({ isError: true });
    expect(short.output).toContain("must be a fact id");
    const ok = await memoryTool.execute({ cmd: "forget", match: "old email" }, ctx);
    expect(ok.output).toBe("forgot facts containing old email");
    expect(forgotten).toEqual(["old email"]);
  });
});

describe("search_files without ripgrep", () => {
  test("the built-in search reports CRLF lines without the carriage return", async () => {
    await using d = await tempDir();
    await writeFile(join(d.path, "a.txt"), "hello world\r\nfoo\r\n");
    const ctx = toolCtx(d.path, {
      env: { PATH: process.env["PATH"] ?? "", CHATCLI_NO_RIPGREP: "1" },
    });
    const r = await searchFilesTool.execute({ term: "HELLO", context: 1 }, ctx);
    expect(r.output).toBe("a.txt:1:hello world\na.txt-2-foo");
  });
});

describe("git tools are read-only even in a hostile repository", () => {
  test("core.fsmonitor and diff.external from the repo's config do not run", async () => {
    await using d = await tempDir();
    const sh = (cmd: string) => Bun.spawnSync(["sh", "-c", cmd], { cwd: d.path });
    sh(
      "git init -q && echo a > f && git add f && git -c user.email=t@t -c user.name=t commit -qm i",
    );
    sh(`git config core.fsmonitor 'touch pwned-fsmonitor; false'`);
    sh(`git config diff.external 'touch pwned-ext'`);
    sh("echo b > f");
    const ctx = toolCtx(d.path);
    expect((await gitStatusTool.execute({}, ctx)).output).toContain("M f");
    expect((await gitDiffTool.execute({}, ctx)).output).toContain("+b");
    expect(existsSync(join(d.path, "pwned-fsmonitor"))).toBe(false);
    expect(existsSync(join(d.path, "pwned-ext"))).toBe(false);
  });
});

describe("run_command environment", () => {
  test("only the core set reaches the command (PWD, PATH, HOME); secret-looking and unlisted names do not", async () => {
    await using d = await tempDir();
    const env = {
      PATH: process.env["PATH"] ?? "",
      HOME: d.path,
      PWD: d.path,
      GITHUB_TOKEN: "t",
      DB_PASS: "p",
      MYSQL_PWD: "p",
      AWS_SECRET_ACCESS_KEY: "s",
      GOOGLE_CREDENTIALS: "c",
      KEEP_ME: "yes",
    };
    const r = await runCommandTool.execute({ cmd: "env | sort" }, toolCtx(d.path, { env }));
    for (const gone of ["GITHUB_TOKEN", "DB_PASS", "MYSQL_PWD", "AWS_SECRET", "GOOGLE_CRED"])
      expect(r.output).not.toContain(gone);
    expect(r.output).not.toContain("KEEP_ME=yes");
    expect(r.output).toContain(`HOME=${d.path}`);
    expect(r.output).toContain(`PWD=${d.path}`);
  });
});
