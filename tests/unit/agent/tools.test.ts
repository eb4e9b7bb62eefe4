import { describe, expect, test } from "bun:test";
import { readdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { gitDiffTool, gitLogTool, gitStatusTool } from "../../../lib/agent/tools/git.ts";
import { listDirectoryTool } from "../../../lib/agent/tools/list-directory.ts";
import { memoryTool } from "../../../lib/agent/tools/memory.ts";
import { applyUnifiedDiff, patchFileTool } from "../../../lib/agent/tools/patch-file.ts";
import { readFileTool } from "../../../lib/agent/tools/read-file.ts";
import { toolsFor } from "../../../lib/agent/tools/registry.ts";
import { runCommandTool } from "../../../lib/agent/tools/run-command.ts";
import { detectTestCommand, runTestsTool } from "../../../lib/agent/tools/run-tests.ts";
import { searchFilesTool } from "../../../lib/agent/tools/search-files.ts";
import { htmlToText, webFetchTool } from "../../../lib/agent/tools/web-fetch.ts";
import { writeFileTool } from "../../../lib/agent/tools/write-file.ts";
import type { MemoryBackend } from "../../../lib/agent/types.ts";
import { tempDir } from "../../support/ctx.ts";
import { git, toolCtx, writeTree } from "./support.ts";

describe("file tools", () => {
  test("read_file: numbered lines, ranges, head/tail, errors", async () => {
    await using d = await tempDir();
    await writeTree(d.path, { "a.txt": "one\ntwo\nthree\nfour\n" });
    const ctx = toolCtx(d.path);
    const all = await readFileTool.execute({ file: "a.txt" }, ctx);
    expect(all.output).toBe("a.txt (lines 1-4 of 4)\n1 | one\n2 | two\n3 | three\n4 | four");
    expect((await readFileTool.execute({ file: "a.txt", start: 2, end: 3 }, ctx)).output).toContain(
      "2 | two\n3 | three",
    );
    expect((await readFileTool.execute({ file: "a.txt", tail: 1 }, ctx)).output).toEndWith(
      "4 | four",
    );
    expect(await readFileTool.execute({ file: "missing.txt" }, ctx)).toMatchObject({
      isError: true,
      output: "error: missing.txt does not exist",
    });
    expect((await readFileTool.execute({ file: "a.txt", start: 9 }, ctx)).isError).toBe(true);
  });

  test("write_file creates parents, reports created/modified, calls the checkpoint hook", async () => {
    await using d = await tempDir();
    const seen: string[] = [];
    const ctx = toolCtx(d.path, { beforeFileChange: (p) => void seen.push(p) });
    const first = await writeFileTool.execute({ file: "src/new.ts", content: "x" }, ctx);
    expect(first.filesChanged).toEqual([{ path: join(d.path, "src/new.ts"), change: "created" }]);
    const second = await writeFileTool.execute({ file: "src/new.ts", content: "yz" }, ctx);
    expect(second.output).toBe("wrote 2 bytes to src/new.ts (modified)");
    expect(await readFile(join(d.path, "src/new.ts"), "utf8")).toBe("yz");
    expect(seen).toHaveLength(2);
    expect((await writeFileTool.execute({ file: "src", content: "x" }, ctx)).isError).toBe(true);
  });

  test("patch_file: exactly one match; 0 and 2 matches are errors naming the count", async () => {
    await using d = await tempDir();
    await writeTree(d.path, { "f.ts": "let a = 1;\nlet b = 1;\n" });
    const ctx = toolCtx(d.path);
    const zero = await patchFileTool.execute({ file: "f.ts", search: "let c", replace: "x" }, ctx);
    expect(zero).toMatchObject({ isError: true });
    expect(zero.output).toContain("matched 0 times");
    const two = await patchFileTool.execute({ file: "f.ts", search: "= 1;", replace: "= 2;" }, ctx);
    expect(two.output).toContain("matched 2 times");
    expect(await readFile(join(d.path, "f.ts"), "utf8")).toBe("let a = 1;\nlet b = 1;\n");
    const one = await patchFileTool.execute(
      { file: "f.ts", search: "let b = 1;", replace: "let b = 2;" },
      ctx,
    );
    expect(one.filesChanged).toEqual([{ path: join(d.path, "f.ts"), change: "modified" }]);
    expect(await readFile(join(d.path, "f.ts"), "utf8")).toBe("let a = 1;\nlet b = 2;\n");
    expect(patchFileTool.validate?.({ file: "f.ts" })).toContain("required");
  });

  test("patch_file: unified diff form and CRLF files", async () => {
    const diff = "--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n";
    expect(applyUnifiedDiff("a\nb\nc\nd\n", diff)).toEqual({ text: "a\nb\nC\nd\n" });
    expect(applyUnifiedDiff("x\n", diff)).toMatchObject({
      error: expect.stringContaining("does not apply"),
    });
    await using d = await tempDir();
    await writeTree(d.path, { "w.txt": "a\r\nb\r\n" });
    await patchFileTool.execute(
      { file: "w.txt", search: "a\nb", replace: "a\nB" },
      toolCtx(d.path),
    );
    expect(await readFile(join(d.path, "w.txt"), "utf8")).toBe("a\r\nB\r\n");
  });

  test("list_directory: sorted tree, hidden and vendored dirs skipped", async () => {
    await using d = await tempDir();
    await writeTree(d.path, {
      "b.txt": "",
      "a/x.ts": "",
      ".hidden": "",
      "node_modules/m/i.js": "",
    });
    const out = (await listDirectoryTool.execute({}, toolCtx(d.path))).output;
    expect(out).toBe("./\na/\n  x.ts\nb.txt\nnode_modules/");
    expect((await listDirectoryTool.execute({ dir: "nope" }, toolCtx(d.path))).isError).toBe(true);
  });

  test("search_files (built-in): literal, regex, glob, context", async () => {
    await using d = await tempDir();
    await writeTree(d.path, {
      "src/a.ts": "const x = 1;\nfoo(x);\nbar();\n",
      "src/b.md": "foo here\n",
    });
    const ctx = toolCtx(d.path, { env: { CHATCLI_NO_RIPGREP: "1" } });
    expect((await searchFilesTool.execute({ term: "foo" }, ctx)).output).toBe(
      "src/a.ts:2:foo(x);\nsrc/b.md:1:foo here",
    );
    expect(
      (await searchFilesTool.execute({ term: "foo", glob: "*.ts", context: 1 }, ctx)).output,
    ).toBe("src/a.ts-1-const x = 1;\nsrc/a.ts:2:foo(x);\nsrc/a.ts-3-bar();");
    expect((await searchFilesTool.execute({ term: "^ba.\\(", regex: true }, ctx)).output).toBe(
      "src/a.ts:3:bar();",
    );
    expect((await searchFilesTool.execute({ term: "zzz" }, ctx)).output).toBe("no matches");
    expect((await searchFilesTool.execute({ term: "(", regex: true }, ctx)).isError).toBe(true);
  });

  test("tool definitions are sorted by name; coder has no web_fetch", () => {
    const names = toolsFor("agent").map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain("web_fetch");
    expect(toolsFor("coder").map((t) => t.name)).not.toContain("web_fetch");
  });
});

describe("process tools", () => {
  test("run_command: exit code, stderr, scrubbed environment", async () => {
    await using d = await tempDir();
    const ctx = toolCtx(d.path, {
      env: {
        PATH: process.env["PATH"] ?? "",
        OPENAI_API_KEY: "sk-secret",
        GH_TOKEN: "t",
        DB_PASSWORD: "p",
        KEEP: "yes",
      },
    });
    const r = await runCommandTool.execute(
      { cmd: "echo out; echo err >&2; env | sort; exit 3" },
      ctx,
    );
    expect(r.exitCode).toBe(3);
    expect(r.isError).toBe(true);
    expect(r.summary).toBe("exit 3");
    expect(r.output).toContain("exit code: 3\nout");
    expect(r.output).toContain("[stderr]\nerr");
    // KEEP is not in the core set: absent, and the failed command's result names it (no values)
    expect(r.output).not.toContain("KEEP=yes");
    expect(r.output).not.toMatch(/API_KEY=|GH_TOKEN=|PASSWORD=|sk-secret/);
    expect(r.output).toMatch(/not passed: .*KEEP.*--pass-env NAME/);
  });

  test("run_command: timeout kills the process group", async () => {
    await using d = await tempDir();
    const r = await runCommandTool.execute({ cmd: "sleep 30 | cat", timeout: 1 }, toolCtx(d.path));
    expect(r.summary).toBe("timed out");
    expect(r.output).toContain("[timed out after 1 s; process killed]");
  });

  test("run_command: abort mid-command kills it", async () => {
    await using d = await tempDir();
    const controller = new AbortController();
    const pending = runCommandTool.execute(
      { cmd: "echo started; sleep 30" },
      toolCtx(d.path, { signal: controller.signal }),
    );
    controller.abort();
    const r = await pending;
    expect(r.output).toContain("[cancelled; process killed]");
  });

  test("git tools in a temp repo", async () => {
    await using d = await tempDir();
    git(d.path, "init", "-q", "-b", "main");
    // A repository with no commits yet: git_log says so instead of failing.
    expect(await gitLogTool.execute({}, toolCtx(d.path))).toMatchObject({
      output: "(no commits yet)",
    });
    await writeTree(d.path, { "a.txt": "1\n" });
    git(d.path, "add", ".");
    git(d.path, "commit", "-qm", "first commit");
    await writeTree(d.path, { "a.txt": "2\n", "new.txt": "n" });
    const ctx = toolCtx(d.path);
    expect((await gitStatusTool.execute({}, ctx)).output).toBe("## main\n M a.txt\n?? new.txt");
    expect((await gitDiffTool.execute({}, ctx)).output).toContain("-1\n+2");
    expect((await gitDiffTool.execute({ name_only: true }, ctx)).output).toBe("a.txt");
    expect((await gitLogTool.execute({}, ctx)).output).toMatch(
      /^[0-9a-f]+ \d{4}-\d\d-\d\d first commit$/,
    );
    await using bare = await tempDir();
    expect((await gitStatusTool.execute({}, toolCtx(bare.path))).isError).toBe(true);
  });

  test("run_tests detects the runner and reports failure", async () => {
    await using d = await tempDir();
    expect(await detectTestCommand(d.path)).toBeUndefined();
    expect((await runTestsTool.execute({}, toolCtx(d.path))).isError).toBe(true);
    await writeTree(d.path, { "go.mod": "module x\n" });
    expect(await detectTestCommand(d.path)).toBe("go test ./...");
    await writeTree(d.path, { "package.json": '{"scripts":{"test":"exit 2"}}' });
    expect(await detectTestCommand(d.path)).toBe("npm test");
    const r = await runTestsTool.execute({ cmd: "echo 1 failed; exit 1" }, toolCtx(d.path));
    expect(r.output).toStartWith("$ echo 1 failed; exit 1\nexit code: 1\n1 failed");
  });
});

describe("web_fetch", () => {
  test("HTML to text", () => {
    expect(
      htmlToText(
        "<html><head><title>t</title><style>x{}</style></head><body><h1>Hi &amp; bye</h1><p>a<br>b</p><script>evil()</script></body></html>",
      ),
    ).toBe("Hi & bye\na\nb");
  });

  test("small pages inline; large pages auto-saved with preview and path; errors are results", async () => {
    const big = `<html><body>${"<p>line of text</p>".repeat(2000)}</body></html>`;
    await using server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        const path = new URL(req.url).pathname;
        if (path === "/small")
          return new Response("<html><body><p>Hello</p></body></html>", {
            headers: { "content-type": "text/html" },
          });
        if (path === "/png")
          return new Response(new Uint8Array([137, 80, 78, 71]), {
            headers: { "content-type": "image/png" },
          });
        if (path === "/big") return new Response(big, { headers: { "content-type": "text/html" } });
        return new Response("nope", { status: 404 });
      },
    });
    await using scratch = await tempDir();
    const ctx = toolCtx(scratch.path, { env: { CHATCLI_AGENT_TMPDIR: scratch.path } });
    const base = `http://127.0.0.1:${server.port}`;
    expect((await webFetchTool.execute({ url: `${base}/small` }, ctx)).output).toBe("Hello");
    const r = await webFetchTool.execute({ url: `${base}/big` }, ctx);
    expect(r.output).toStartWith(
      "[auto-saved: response was 25999 bytes — too large to inline. Full body is at ",
    );
    expect(r.output).toContain("...(auto-truncated — full body saved to disk)");
    const saved = (await readdir(scratch.path)).filter((f) => f.startsWith("webfetch_"));
    expect(saved).toHaveLength(1);
    expect((await readFile(join(scratch.path, saved[0] as string), "utf8")).length).toBe(25999);
    const filtered = await webFetchTool.execute({ url: `${base}/big`, to_line: 2 }, ctx);
    expect(filtered.output).toBe("line of text\nline of text");
    const low = await webFetchTool.execute(
      { url: `${base}/small` },
      { ...ctx, env: { CHATCLI_AGENT_TMPDIR: scratch.path, CHATCLI_WEBFETCH_AUTOSAVE_BYTES: "3" } },
    );
    expect(low.output).toStartWith("[auto-saved: response was 5 bytes");
    expect((await webFetchTool.execute({ url: `${base}/missing` }, ctx)).output).toStartWith(
      "error: HTTP 404",
    );
    expect((await webFetchTool.execute({ url: `${base}/png` }, ctx)).output).toContain(
      "is image/png, not text",
    );
    expect(webFetchTool.validate?.({ url: "file:///etc/passwd" })).toContain("http");
  });
});

describe("memory tool", () => {
  const backend = (): MemoryBackend & { log: string[] } => {
    const log: string[] = [];
    return {
      log,
      remember: async (c, cat) => {
        log.push(`remember ${c} ${cat}`);
        return `Remembered: ${c}`;
      },
      profile: async (f) => {
        log.push(`profile ${JSON.stringify(f)}`);
        return `Profile updated: ${Object.keys(f).join(", ")}`;
      },
      forget: async (m) => {
        log.push(`forget ${m}`);
        return "Removed 1 matching fact(s).";
      },
      recall: async (q) => {
        log.push(`recall ${q}`);
        return "No memory stored yet.";
      },
    };
  };

  test("commands reach the backend; read mode refuses writes; no backend is an error result", async () => {
    await using d = await tempDir();
    const mem = backend();
    const ctx = toolCtx(d.path, { memory: mem, memoryMode: "write" });
    expect(
      (await memoryTool.execute({ cmd: "remember", content: "uses bun", category: "tooling" }, ctx))
        .output,
    ).toBe("Remembered: uses bun");
    expect(
      (
        await memoryTool.execute(
          { cmd: "profile", fields: { name: "Ana", langs: ["ts", "go"] } },
          ctx,
        )
      ).output,
    ).toBe("Profile updated: name, langs");
    expect((await memoryTool.execute({ cmd: "forget", match: "bun" }, ctx)).output).toBe(
      "Removed 1 matching fact(s).",
    );
    expect((await memoryTool.execute({ cmd: "recall", query: "bun" }, ctx)).output).toBe(
      "No memory stored yet.",
    );
    expect(mem.log).toEqual([
      "remember uses bun tooling",
      'profile {"name":"Ana","langs":"ts, go"}',
      "forget bun",
      "recall bun",
    ]);
    expect((await memoryTool.execute({ cmd: "remember" }, ctx)).output).toContain(
      '"content" is required',
    );
    expect(
      (await memoryTool.execute({ cmd: "remember", content: "x" }, { ...ctx, memoryMode: "read" }))
        .isError,
    ).toBe(true);
    expect((await memoryTool.execute({ cmd: "recall" }, toolCtx(d.path))).output).toBe(
      "error: memory is not enabled in this session",
    );
  });
});

test("read_file refuses credentials even through a symlink", async () => {
  await using d = await tempDir();
  await symlink("/proc/self/environ", join(d.path, "env-link"));
  expect((await readFileTool.execute({ file: "env-link" }, toolCtx(d.path))).output).toContain(
    "protected",
  );
});
