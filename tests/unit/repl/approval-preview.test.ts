import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  alwaysScope,
  approvalDetail,
  lineDiff,
  replReason,
} from "../../../lib/repl/approval-preview.ts";
import { tempDir } from "../../support/ctx.ts";

describe("approval preview", () => {
  test("a write_file over an existing file shows the changed lines with context", async () => {
    await using dir = await tempDir();
    writeFileSync(join(dir.path, "a.txt"), "1\n2\n3\n4\n5\n");
    const detail = approvalDetail({
      tool: "write_file",
      args: { file: "a.txt", content: "1\n2\nthree\n4\n5\n" },
      cwd: dir.path,
      reason: "edits need --permission-mode edit (read-only mode)",
    });
    expect(detail).toBe(" 1\n 2\n-3\n+three\n 4\n 5\n(edits need approval in read-only mode)");
  });

  test("a new file is all additions, trimmed after 40 lines; escapes never reach the terminal", () => {
    const content = `${Array.from({ length: 50 }, (_, i) => `l${i}\u001b[31m`).join("\n")}\n`;
    const detail = approvalDetail({
      tool: "write_file",
      args: { file: "/nonexistent/dir/new.txt", content },
      cwd: "/",
      reason: "",
    });
    const lines = detail.split("\n");
    expect(lines).toHaveLength(41);
    expect(lines[0]).toBe("+l0");
    expect(lines.at(-1)).toBe("… 10 more lines");
    expect(detail).not.toContain("\u001b");
  });

  test("a command shows its full text and where it runs", () => {
    expect(
      approvalDetail({
        tool: "run_command",
        args: { cmd: "npm test", dir: "pkg" },
        cwd: "/w",
        reason: "",
      }),
    ).toBe("$ npm test\nin /w/pkg");
  });

  test("patch_file search/replace is shown as a diff", () => {
    expect(lineDiff("a\nb\n", "a\nc\n")).toEqual([" a", "-b", "+c"]);
  });

  test("reasons speak the REPL's words; always covers a tool or a simple command's name", () => {
    expect(
      replReason("commands other than read-only ones need --permission-mode auto (edit mode)"),
    ).toBe("commands other than read-only ones need approval in edit mode");
    expect(alwaysScope("write_file", {})).toBe("write_file");
    expect(alwaysScope("run_command", { cmd: "npm test -- --watch" })).toBe("run_command npm …");
    expect(alwaysScope("run_command", { cmd: "npm test && curl x" })).toBeUndefined();
  });
});

describe("approval preview of edits: the file's own lines, with context", () => {
  const FILE = "1\n2\n3\nconst a = 1;\n5\n6\n7\n";

  test("patch_file search/replace shows the file's lines around the change (as write_file)", async () => {
    await using dir = await tempDir();
    writeFileSync(join(dir.path, "a.ts"), FILE);
    const detail = approvalDetail({
      tool: "patch_file",
      args: { file: "a.ts", search: "a = 1", replace: "a = 2" },
      cwd: dir.path,
      reason: "",
    });
    expect(detail).toBe(" 2\n 3\n-const a = 1;\n+const a = 2;\n 5\n 6");
  });

  test("patch_file whose search is not in the file: the fragments, said so", async () => {
    await using dir = await tempDir();
    writeFileSync(join(dir.path, "a.ts"), FILE);
    const detail = approvalDetail({
      tool: "patch_file",
      args: { file: "a.ts", search: "nope", replace: "yes" },
      cwd: dir.path,
      reason: "",
    });
    expect(detail).toBe("(the search text is not in a.ts)\n-nope\n+yes");
  });

  test("multipatch shows one diff per file, edits of a file applied in order", async () => {
    await using dir = await tempDir();
    writeFileSync(join(dir.path, "a.ts"), FILE);
    writeFileSync(join(dir.path, "b.ts"), "x\ny\n");
    const detail = approvalDetail({
      tool: "multipatch",
      args: {
        edits: [
          { file: "a.ts", search: "a = 1", replace: "a = 10" },
          { file: "b.ts", search: "y", replace: "z" },
          { file: "a.ts", search: "a = 10", replace: "a = 11" },
        ],
      },
      cwd: dir.path,
      reason: "edits need --permission-mode edit (read-only mode)",
    });
    expect(detail).toBe(
      [
        "a.ts",
        " 2",
        " 3",
        "-const a = 1;",
        "+const a = 11;",
        " 5",
        " 6",
        "b.ts",
        " x",
        "-y",
        "+z",
        "(edits need approval in read-only mode)",
      ].join("\n"),
    );
  });
});
