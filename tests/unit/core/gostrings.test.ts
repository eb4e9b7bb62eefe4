import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { goIsSpace, goToLower, goTrimSpace } from "../../../lib/core/gostrings.ts";
import { factId } from "../../../lib/memory/facts.ts";

/** Go's id of a fact: hex of the first 12 bytes of SHA-256 of the bytes Go hashes. */
const goId = (hashed: string) =>
  createHash("sha256").update(hashed, "utf8").digest("hex").slice(0, 24);

describe("Go's strings.TrimSpace / strings.ToLower (lib/core/gostrings.ts)", () => {
  test("TrimSpace trims U+0085 and keeps a leading U+FEFF (JS trim does the opposite)", () => {
    expect(goTrimSpace("\u0085note\u0085")).toBe("note");
    expect("\u0085note\u0085".trim()).toBe("\u0085note\u0085");
    expect(goTrimSpace("\uFEFFnote")).toBe("\uFEFFnote");
    expect("\uFEFFnote".trim()).toBe("note");
    expect(goTrimSpace("\u00a0\u2003\u3000 \t\r\n x \u2028\u2029\u202f\u205f\u1680")).toBe("x");
    // not White_Space: Go keeps them
    expect(goTrimSpace("\u200bx\u180e")).toBe("\u200bx\u180e");
    expect(goIsSpace("\u0085")).toBe(true);
    expect(goIsSpace("\uFEFF")).toBe(false);
  });

  test("ToLower maps rune by rune: Σ is always σ, İ is i", () => {
    expect(goToLower("ΟΔΟΣ")).toBe("οδοσ");
    expect("ΟΔΟΣ".toLowerCase()).toBe("οδος");
    expect(goToLower("İstanbul")).toBe("istanbul");
    expect("İstanbul".toLowerCase()).toBe("i\u0307stanbul");
    expect(goToLower("ÀÉÎ Straße KELVIN")).toBe("àéî straße kelvin");
    expect(goToLower("Σ ΣΑ ΑΣ")).toBe("σ σα ασ");
  });

  test("fact ids are Go's for those texts", () => {
    expect(factId("  User Prefers Go  ")).toBe(goId("user prefers go"));
    expect(factId("ΟΔΟΣ ΚΛΕΙΣΤΟΣ")).toBe(goId("οδοσ κλειστοσ"));
    expect(factId("İzmir office opens at 9")).toBe(goId("izmir office opens at 9"));
    expect(factId("\u0085Deploy on Fridays\u0085")).toBe(goId("deploy on fridays"));
    expect(factId("\uFEFFDeploy on Fridays")).toBe(goId("\uFEFFdeploy on fridays"));
    expect(factId("\uFEFFDeploy on Fridays")).not.toBe(factId("Deploy on Fridays"));
  });
});
