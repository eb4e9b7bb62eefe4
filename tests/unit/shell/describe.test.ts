import { expect, test } from "bun:test";
import { shortDescription } from "../../../lib/shell/spec.ts";

test("a description that fits is kept whole, whitespace folded", () => {
  expect(shortDescription("list  saved\nsessions")).toBe("list saved sessions");
});

test("a long description is cut at a word, never mid-word, and says so with …", () => {
  const long =
    'read-only (reads and read-only shell), edit (+ file edits in the workspace), auto (+ other shell), bypass (everything) (default read-only, or "permissions"."mode" of config.json)';
  const short = shortDescription(long);
  expect(short.length).toBeLessThanOrEqual(80);
  expect(short.endsWith("…")).toBe(true);
  // a prefix of the text that ends where a word ends
  const kept = short.slice(0, -1);
  expect(long.startsWith(kept)).toBe(true);
  expect(long[kept.length]).toMatch(/[\s,;)]/);
  // no dangling opening bracket or separator before the ellipsis
  expect(short).not.toMatch(/[(,;:—-]\s*…$/);
});
