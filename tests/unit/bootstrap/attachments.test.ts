import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  attachmentSummary,
  estimateTokens,
  LARGE_ATTACHMENT_TOKENS,
  loadAttachments,
  renderAttachments,
} from "../../../lib/bootstrap/attachments.ts";
import { ChatcliError } from "../../../lib/core/errors.ts";
import { tempDir } from "../../support/ctx.ts";
import { dirs, put } from "./helpers.ts";

function failure(fn: () => unknown): ChatcliError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ChatcliError) return error;
    throw error;
  }
  throw new Error("expected a ChatcliError");
}

test("estimateTokens is chars/4 rounded up", () => {
  expect(estimateTokens("")).toBe(0);
  expect(estimateTokens("abcd")).toBe(1);
  expect(estimateTokens("abcde")).toBe(2);
});

test("paths and globs, in pattern order, glob matches sorted, duplicates dropped", async () => {
  await using dir = await tempDir();
  put(dir.path, "docs/b.md", "B\n");
  put(dir.path, "docs/a.md", "A\n");
  put(dir.path, "docs/deep/c.md", "C\n");
  put(dir.path, "main.go", "package main\n");
  const { files, warnings } = loadAttachments(
    ["main.go", "docs/*.md", "docs/**/*.md", "./main.go"],
    dir.path,
  );
  expect(files.map((f) => f.name)).toEqual(["main.go", "docs/a.md", "docs/b.md", "docs/deep/c.md"]);
  expect(files[0]).toEqual({
    name: "main.go",
    path: join(dir.path, "main.go"),
    bytes: 13,
    tokens_estimate: 4,
    content: "package main\n",
  });
  expect(warnings).toEqual([]);
});

test("absolute paths and files outside cwd keep their absolute name", async () => {
  await using dir = await tempDir();
  const path = put(dir.path, "outside/x.txt", "x");
  const cwd = dirs(dir.path, "cwd");
  const { files } = loadAttachments([path, join(dir.path, "outside/*.txt")], cwd);
  expect(files.map((f) => f.name)).toEqual([path]);
});

test("binary files are refused with a clear usage error", async () => {
  await using dir = await tempDir();
  writeFileSync(join(dir.path, "logo.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
  writeFileSync(join(dir.path, "latin1.txt"), new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
  const e = failure(() => loadAttachments(["logo.png"], dir.path));
  expect(e.exitCode).toBe(2);
  expect(e.message).toBe(
    "cannot attach logo.png: it is a binary file; only text files can be attached",
  );
  expect(failure(() => loadAttachments(["latin1.txt"], dir.path)).message).toContain("binary");
});

test("missing file, empty glob and directories are usage errors", async () => {
  await using dir = await tempDir();
  dirs(dir.path, "src");
  expect(failure(() => loadAttachments(["nope.txt"], dir.path)).message).toBe(
    "cannot attach nope.txt: no such file",
  );
  expect(failure(() => loadAttachments(["*.none"], dir.path)).message).toBe(
    "no file matches *.none",
  );
  const e = failure(() => loadAttachments(["src"], dir.path));
  expect(e.message).toBe("cannot attach src: it is a directory");
  expect(e.hint).toContain("src/**");
});

test("a large attachment draws a warning", async () => {
  await using dir = await tempDir();
  put(dir.path, "big.log", "x".repeat(LARGE_ATTACHMENT_TOKENS * 4 + 4));
  const { warnings } = loadAttachments(["big.log"], dir.path);
  expect(warnings).toEqual([
    {
      code: "large_attachment",
      message: `big.log is ~${LARGE_ATTACHMENT_TOKENS + 1} tokens; it is sent with every request (cached where the provider allows)`,
    },
  ]);
});

test("rendering: one fenced section per file; the fence outgrows backticks in the content", () => {
  expect(renderAttachments([])).toBe("");
  expect(
    renderAttachments([
      { name: "a.ts", content: "const a = 1;" },
      { name: "README", content: "```sh\nls\n```\n" },
    ]),
  ).toBe(
    "# Attached Context\n\n## File: a.ts\n\n```ts\nconst a = 1;\n```\n\n## File: README\n\n````\n```sh\nls\n```\n````",
  );
});

test("summary: one line per file, the per-turn total, large files flagged", () => {
  expect(attachmentSummary([])).toBe("no attached context");
  expect(
    attachmentSummary([
      { name: "a.md", tokens_estimate: 10 },
      { name: "big.log", tokens_estimate: LARGE_ATTACHMENT_TOKENS + 1 },
    ]),
  ).toBe(
    `a.md  ~10 tokens\nbig.log  ~${LARGE_ATTACHMENT_TOKENS + 1} tokens  (large)\ntotal ~${LARGE_ATTACHMENT_TOKENS + 11} tokens per turn, in the cached part of the system prompt`,
  );
});
