import { describe, expect, test } from "bun:test";
import {
  compileUntrustedPattern,
  isPatternError,
  wildcardMatch,
} from "../../../lib/policy/patterns.ts";
import { decide, type PermissionPolicy } from "../../../lib/policy/permissions.ts";

// Each of these takes a backtracking engine exponential (or n^12) time on the inputs below; the
// test would hit its timeout instead of finishing. No wall-clock number is asserted.
const CATASTROPHIC = ["(a+)+$", "(a|aa)+$", "^(a|a?)+$", "(.*a){12}$", "^(\\w+\\s?)*$"];

describe("compileUntrustedPattern (RE2)", () => {
  test("catastrophic patterns finish on adversarial input, with the right answers", () => {
    const input = `${"a".repeat(100_000)}!`;
    for (const source of CATASTROPHIC) {
      const re = compileUntrustedPattern(source);
      if (isPatternError(re)) throw new Error(`${source}: ${re.error}`);
      expect(re.test(input)).toBe(false);
      expect(re.test("a".repeat(12))).toBe(true);
    }
  });
  test("the usual JavaScript spellings work: classes, \\b, named groups, flags", () => {
    const t = (src: string, text: string, ignoreCase = false) => {
      const re = compileUntrustedPattern(src, { ignoreCase });
      if (isPatternError(re)) throw new Error(re.error);
      return re.test(text);
    };
    expect(t("\\d{3}-\\d{4}", "call 555-1234")).toBe(true);
    expect(t("\\bERROR\\b", "an error here", true)).toBe(true);
    expect(t("\\bERROR\\b", "an error here")).toBe(false);
    expect(t("(?<word>fo+)bar", "xfooobar")).toBe(true);
    expect(t("a\\/b", "a/b")).toBe(true);
  });
  test("what needs backtracking is an error to report, never run another way", () => {
    for (const source of ["(a)\\1", "(?=x)y", "(?<!x)y", "(", "a{1001}"]) {
      const re = compileUntrustedPattern(source);
      expect(isPatternError(re)).toBe(true);
    }
  });
});

describe("wildcardMatch (rule patterns)", () => {
  test("* is any run of characters, everything else literal", () => {
    expect(wildcardMatch("npm test*", "npm test -- --watch")).toBe(true);
    expect(wildcardMatch("npm test*", "npm tes")).toBe(false);
    expect(wildcardMatch("*.ts", "src/a.ts")).toBe(true);
    expect(wildcardMatch("a.c", "abc")).toBe(false);
    expect(wildcardMatch("(x)[y]", "(x)[y]")).toBe(true);
    expect(wildcardMatch("*", "")).toBe(true);
    expect(wildcardMatch("a*b*c", "a\nb\nc")).toBe(true);
  });
  test("a rule with many stars against a long command finishes (it was a backtracking RegExp)", () => {
    const glob = `${"*a".repeat(30)}*b`;
    expect(wildcardMatch(glob, "a".repeat(20_000))).toBe(false);
    const policy: PermissionPolicy = {
      mode: "auto",
      allow: [],
      deny: [`run_command(${glob})`],
      onAsk: "deny",
      workspaceRoot: "/ws",
      cwd: "/ws",
    };
    const d = decide(policy, {
      tool: "run_command",
      kind: "shell",
      subject: "x",
      cmd: `echo ${"a".repeat(5000)}`,
    });
    expect(d.verdict).toBe("allow");
  });
});
