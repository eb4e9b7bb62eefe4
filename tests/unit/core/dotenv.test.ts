import { describe, expect, test } from "bun:test";
import { parseDotenvFile } from "../../../lib/core/dotenv.ts";

describe(".env as godotenv reads it", () => {
  test("${VAR} and $VAR expand from earlier keys, then the environment; unknown → empty", () => {
    const text = [
      "BASE=/opt/chatcli",
      "CHATCLI_BOOTSTRAP_DIR=${BASE}/x",
      "PLAIN=$BASE/y",
      'QUOTED="${HOME}/z"',
      "MISSING=${NOPE}-end",
      "LOWER=${base}",
    ].join("\n");
    expect(parseDotenvFile(text, { HOME: "/home/ana", BASE: "/ignored" })).toEqual({
      BASE: "/opt/chatcli",
      CHATCLI_BOOTSTRAP_DIR: "/opt/chatcli/x",
      PLAIN: "/opt/chatcli/y",
      QUOTED: "/home/ana/z",
      MISSING: "-end",
      LOWER: "${base}",
    });
  });

  test("export, KEY: value, comments, quotes, escapes in double quotes only", () => {
    const text = [
      "# a comment",
      "export A=1",
      "B: two words",
      "C=plain # trailing comment",
      "D=no#comment",
      "E='single $A \\n kept'",
      'F="line1\\nline2 \\"q\\" back\\\\slash \\$A \\t"',
      'G="multi',
      'line"',
      "H=",
      "  I  =  spaced  ",
      "---",
      'J="x" # after a quote',
      "bad line",
      "K-Y=1",
      "L=after",
    ].join("\r\n");
    expect(parseDotenvFile(text)).toEqual({
      A: "1",
      B: "two words",
      C: "plain",
      D: "no#comment",
      E: "single $A \\n kept",
      F: 'line1\nline2 "q" back\\slash $A t',
      G: "multi\nline",
      H: "",
      I: "spaced",
      J: "x",
      L: "after",
    });
  });
});
