import { describe, expect, test } from "bun:test";
import { parseDotenv, parseDotenvFile } from "../../../lib/core/dotenv.ts";

/** Expected values are what godotenv v1.5.1 (the version the Go ChatCLI pins) reads. */
describe(".env as godotenv 1.5.1 reads it", () => {
  test("${VAR} and $VAR expand from earlier keys of the file only, never the process env", () => {
    const text = [
      "BASE=/opt/chatcli",
      "CHATCLI_BOOTSTRAP_DIR=${BASE}/x",
      "PLAIN=$BASE/y",
      'QUOTED="${HOME}/z"',
      "MISSING=${NOPE}-end",
      "LOWER=${base}",
      "LATER=${AFTER}",
      "AFTER=1",
      "PAREN=$(whoami)",
    ].join("\n");
    expect(parseDotenvFile(text, { HOME: "/home/ana", BASE: "/ignored", AFTER: "env" })).toEqual({
      BASE: "/opt/chatcli",
      CHATCLI_BOOTSTRAP_DIR: "/opt/chatcli/x",
      PLAIN: "/opt/chatcli/y",
      QUOTED: "/z",
      MISSING: "-end",
      LOWER: "${base}",
      LATER: "",
      AFTER: "1",
      PAREN: "(whoami)",
    });
  });

  test("export, KEY: value, comments, quotes, escapes in double quotes only", () => {
    const text = [
      "# a comment",
      "export A=1",
      "B: two words",
      "C=plain # trailing comment",
      "D=no#comment",
      "C2=a # b # c",
      "E='single $A \\n kept'",
      'F="line1\\nline2 \\"q\\" back\\\\slash \\$A \\t"',
      'G="multi',
      'line"',
      "H=",
      "  I  =  spaced  ",
      'J="x" # after a quote',
      'K="x" M=y',
      "export=word",
      "N.dot_ok=1",
      "ĪKEY=latin1-bytes",
    ].join("\r\n");
    expect(parseDotenv(text)).toEqual({
      ok: true,
      values: {
        A: "1",
        B: "two words",
        C: "plain",
        D: "no#comment",
        C2: "a # b",
        E: "single $A \\n kept",
        F: 'line1\nline2 "q" back\\slash $A t',
        G: "multi\nline",
        H: "",
        I: "spaced",
        J: "x",
        K: "x",
        M: "y",
        export: "word",
        "N.dot_ok": "1",
        ĪKEY: "latin1-bytes",
      },
    });
  });

  test.each([
    ["a line without =", "A=1\nbad line\nB=2", 2, 'unexpected character "\\n"'],
    ["a key with -", "A=1\nK-Y=1", 2, 'unexpected character "-"'],
    ["a --- line", "A=1\n---\nB=2", 2, 'unexpected character "-"'],
    ["a non-ASCII key", "A=1\nB=2\nÄPFEL=3", 3, "unexpected character"],
    ["an unterminated quote", 'A=1\nB="open\nC=3\n', 2, "unterminated quoted value"],
    ["a byte-order mark", "\uFEFFA=1", 1, "unexpected character"],
  ])("rejects the whole file on %s", (_what, text, line, message) => {
    const r = parseDotenv(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.line).toBe(line);
      expect(r.message).toContain(message);
    }
    expect(parseDotenvFile(text)).toEqual({});
  });

  test("a last line without = and without a newline sets nothing (godotenv's empty key)", () => {
    expect(parseDotenv("A=1\nFOO")).toEqual({ ok: true, values: { A: "1" } });
  });
});
