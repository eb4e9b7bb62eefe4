import { describe, expect, test } from "bun:test";
import { parseDotenvFile } from "../../../lib/core/dotenv.ts";

describe(".env as godotenv reads it", () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the text under test holds a literal ${…}
  test("${VAR} and $VAR expand from earlier keys, then the environment; unknown → empty", () => {
    const text = [
      "BASE=/opt/chatcli",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text under test holds a literal ${…}
      "CHATCLI_BOOTSTRAP_DIR=${BASE}/x",
      "PLAIN=$BASE/y",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text under test holds a literal ${…}
      'QUOTED="${HOME}/z"',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text under test holds a literal ${…}
      "MISSING=${NOPE}-end",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text under test holds a literal ${…}
      "LOWER=${base}",
    ].join("\n");
    expect(parseDotenvFile(text, { HOME: "/home/ana", BASE: "/ignored" })).toEqual({
      BASE: "/opt/chatcli",
      CHATCLI_BOOTSTRAP_DIR: "/opt/chatcli/x",
      PLAIN: "/opt/chatcli/y",
      QUOTED: "/home/ana/z",
      MISSING: "-end",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text under test holds a literal ${…}
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
