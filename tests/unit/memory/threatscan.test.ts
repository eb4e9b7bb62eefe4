import { describe, expect, test } from "bun:test";
import { findThreat, normalizeForScan } from "../../../lib/memory/threatscan.ts";
import { LEGIT, POISON } from "./poison-cases.ts";

describe("memory threat scan: by shape, after normalisation", () => {
  for (const [text, kind] of POISON)
    test(`refused: ${JSON.stringify(text)}`, () =>
      expect(findThreat(text)?.kind).toBe(kind as never));
  for (const text of LEGIT)
    test(`kept: ${JSON.stringify(text)}`, () => expect(findThreat(text)).toBeUndefined());

  test("normalisation: NFKC, invisible and bidi characters, whitespace", () => {
    expect(normalizeForScan("ｃｕｒｌ\u200b \u2066x\u2069\n\n  y")).toBe("curl x y");
  });
});
