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

  test("colour mode: fenced code is not parsed for inline markup", () => {
    const out = render(["```ts\nconst a = 2 ** 3; // `x`\n```\nafter\n"], true);
    expect(out).toBe(
      "\u001b[2m```ts\u001b[0m\n\u001b[33mconst a = 2 ** 3; // `x`\u001b[0m\n\u001b[2m```\u001b[0m\nafter\n",
    );
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
    expect(out).toBe("Hello wor");
  });
});
