import { describe, expect, test } from "bun:test";
import { findThreat, normalizeForScan } from "../../../lib/memory/threatscan.ts";
import { LEGIT, POISON } from "./poison-cases.ts";

describe("memory threat scan: by shape, after normalisation", () => {
  for (const [text, kind] of POISON)
    test(`refused: ${JSON.stringify(text)}`, () =>
      expect(findThreat(text)?.kind).toBe(kind as never));
  for (const text of LEGIT)
    test(`kept: ${JSON.stringify(text)}`, () => expect(findThreat(text)).toBeUndefined());

  test("no catastrophic backtracking: adversarial 100 KB inputs scan in bounded time", () => {
    for (const text of [
      "curl ".repeat(20_000),
      `curl x | sudo ${"-a ".repeat(2_000)}ls`,
      `run ${"a".repeat(100_000)} without`,
      "a".repeat(100_000),
      "| ".repeat(50_000),
    ]) {
      const started = performance.now();
      findThreat(text);
      expect(performance.now() - started).toBeLessThan(3_000);
    }
  });

  test("normalisation: NFKC, invisible and bidi characters, whitespace", () => {
    expect(normalizeForScan("ｃｕｒｌ\u200b \u2066x\u2069\n\n  y")).toBe("curl x y");
  });
});
