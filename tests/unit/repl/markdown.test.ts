import { describe, expect, test } from "bun:test";
import { createMarkdownStream } from "../../../lib/repl/markdown.ts";

function render(chunks: string[], color: boolean): string {
  let out = "";
  const md = createMarkdownStream((t) => {
    out += t;
  }, color);
  for (const c of chunks) md.push(c);
  md.end();
  return out;
}

/** Every split of the text into two chunks renders the same as the whole. */
function splitInvariant(text: string, color: boolean): void {
  const whole = render([text], color);
  for (let i = 1; i < text.length; i++) {
    expect(render([text.slice(0, i), text.slice(i)], color)).toBe(whole);
  }
}

describe("markdown stream", () => {
  test("plain mode passes markdown through, minus escape sequences", () => {
    expect(render(["# Title\n**bold** \u001b[31mred\u001b[0m\n"], false)).toBe(
      "# Title\n**bold** red\n",
    );
  });

  test("plain mode strips an escape split across deltas", () => {
    expect(render(["a\u001b[3", "1mb"], false)).toBe("ab");
  });

  test("colour mode: header, bold, inline code, bullets, numbers, quote", () => {
    const out = render(["# Title\nsome **bold** and `code`\n- item\n1. first\n> quoted\n"], true);
    expect(out).toBe(
      "\u001b[1;36mTitle\u001b[0m\n" +
        "some \u001b[0m\u001b[1mbold\u001b[0m and \u001b[0m\u001b[36mcode\u001b[0m\n" +
        "• item\n" +
        "\u001b[1m1.\u001b[0m first\n" +
        "\u001b[2m│ \u001b[0mquoted\n",
    );
  });

  test("colour mode: fenced code is not parsed for inline markup; fences show as a language label", () => {
    const out = render(["```ts\nconst a = 2 ** 3; // `x`\n```\nafter\n"], true);
    expect(out).toBe(
      "\u001b[2m  ts\u001b[0m\n\u001b[33m  const a = 2 ** 3; // `x`\u001b[0m\nafter\n",
    );
    expect(render(["```\ncode\n```\n"], true)).toBe("\u001b[33m  code\u001b[0m\n");
  });

  test("colour mode: *italic* and _italic_ at word boundaries; 2*3, snake_case and a lone * stay", () => {
    const I = "\u001b[0m\u001b[3m";
    const R = "\u001b[0m";
    expect(render(["an *important* and _subtle_ point\n"], true)).toBe(
      `an ${I}important${R} and ${I}subtle${R} point\n`,
    );
    expect(render(["2*3 and snake_case_name and a * b\n"], true)).toBe(
      "2*3 and snake_case_name and a * b\n",
    );
    splitInvariant("an *important* and _subtle_ point, 2*3 snake_case\n", true);
  });

  test("colour mode: a table is drawn with box-drawing characters, aligned, cells wrapped to fit", () => {
    const table = "| name | role |\n|:--|--:|\n| Ana | lead engineer |\n| Bo | dev |\nafter\n";
    expect(render([table], true)).toBe(
      [
        "┌──────┬───────────────┐",
        "│ name │          role │",
        "├──────┼───────────────┤",
        "│ Ana  │ lead engineer │",
        "│ Bo   │           dev │",
        "└──────┴───────────────┘",
        "after",
        "",
      ].join("\n"),
    );
    splitInvariant(table, true);
    let narrow = "";
    const md = createMarkdownStream(
      (t) => (narrow += t),
      true,
      () => 20,
    );
    md.push("| a | a rather long cell text |\n|---|---|\n| 1 | 2 |\n");
    md.end();
    const lines = narrow.trimEnd().split("\n");
    expect(Math.max(...lines.map((l) => Array.from(l).length))).toBeLessThanOrEqual(20);
    expect(narrow).toContain("│ a │ a rather     │");
  });

  test("a single star is kept as is", () => {
    expect(render(["2 * 3 = 6\n"], true)).toBe("2 * 3 = 6\n");
  });

  test("rendering does not depend on how the stream is chunked", () => {
    const text = "## Head\nplain **b** `c`\n* x\n```\ncode *\n```\n> q\nend";
    splitInvariant(text, true);
    splitInvariant(text, false);
  });

  test("no escape sequence from the model survives colour mode", () => {
    const out = render(["hi \u001b]0;title\u0007there\u001b[2J\n"], true);
    expect(out).toBe("hi there\n");
  });

  test("text is written as it arrives, not held to the end of the line", () => {
    let out = "";
    const md = createMarkdownStream((t) => {
      out += t;
    }, true);
    md.push("Hello wor");
    // only the word being written waits (it may have to start the next line)
    expect(out).toBe("Hello");
    md.push("ld and more");
    expect(out).toBe("Hello world and");
  });

  test("colour mode: long lines wrap at word boundaries, list items keep their indent; code does not", () => {
    let out = "";
    const md = createMarkdownStream(
      (t) => (out += t),
      true,
      () => 20,
    );
    md.push(
      "one two three four five six seven\n- alpha beta gamma delta epsilon\n```\nconst averyveryverylongname = 1;\n```\n",
    );
    md.end();
    const plain = out.replace(/\u001b\[[0-9;]*m/g, "");
    expect(plain).toBe(
      "one two three four\nfive six seven\n• alpha beta gamma\n  delta epsilon\n  const averyveryverylongname = 1;\n",
    );
  });
});
