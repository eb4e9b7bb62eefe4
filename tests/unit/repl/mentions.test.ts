import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { completeMention, expandMentions } from "../../../lib/repl/mentions.ts";
import { tempDir } from "../../support/ctx.ts";

describe("@path mentions", () => {
  test("an existing file's text follows the message; other @words stay as they are", async () => {
    await using dir = await tempDir();
    writeFileSync(join(dir.path, "notes.txt"), "remember the milk\n");
    const r = expandMentions("read @notes.txt, then ask @dba", dir.path);
    expect(r.text).toBe(
      'read @notes.txt, then ask @dba\n\n<file path="notes.txt">\nremember the milk\n</file>',
    );
    expect(r.attached).toEqual(["notes.txt"]);
  });

  test("binary and oversized files are named, not attached", async () => {
    await using dir = await tempDir();
    writeFileSync(join(dir.path, "a.bin"), Buffer.from([1, 0, 2]));
    writeFileSync(join(dir.path, "big.log"), "x".repeat(300 * 1024));
    const r = expandMentions("@a.bin @big.log", dir.path);
    expect(r.text).toBe("@a.bin @big.log");
    expect(r.skipped.map((s) => s.path)).toEqual(["a.bin", "big.log"]);
  });

  test("Tab completes paths: unique, common prefix, candidates with their full inputs", async () => {
    await using dir = await tempDir();
    mkdirSync(join(dir.path, "src"));
    writeFileSync(join(dir.path, "src", "app.ts"), "");
    writeFileSync(join(dir.path, "src", "api.ts"), "");
    writeFileSync(join(dir.path, "README.md"), "");
    expect(completeMention("look at @RE", dir.path).text).toBe("look at @README.md ");
    expect(completeMention("look at @sr", dir.path).text).toBe("look at @src/");
    expect(completeMention("look at @src/a", dir.path).text).toBe("look at @src/ap");
    expect(completeMention("look at @src/ap", dir.path)).toEqual({
      text: "look at @src/ap",
      candidates: ["api.ts", "app.ts"],
      full: ["look at @src/api.ts ", "look at @src/app.ts "],
    });
    expect(completeMention("no mention", dir.path).candidates).toEqual([]);
  });
});
