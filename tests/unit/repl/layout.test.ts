import { describe, expect, test } from "bun:test";
import { layoutPrompt, visibleWidth } from "../../../lib/repl/layout.ts";

describe("layoutPrompt", () => {
  test("single line: cursor moved back from the end", () => {
    expect(layoutPrompt("> ", "  ", "hello", 2, 80)).toEqual({
      output: "> hello\u001b[J\r\u001b[4C",
      cursorRow: 0,
    });
  });

  test("multi-line input gets continuation prompts and the cursor row", () => {
    const { output, cursorRow } = layoutPrompt("> ", ". ", "ab\ncd", 1, 80);
    expect(output).toBe("> ab\u001b[K\r\n. cd\u001b[J\u001b[1A\r\u001b[3C");
    expect(cursorRow).toBe(0);
  });

  test("wrapping at the terminal width, pending wrap made explicit", () => {
    const { output, cursorRow } = layoutPrompt("> ", "", "12345678", 8, 10);
    expect(output).toBe("> 12345678\r\n\u001b[J\r");
    expect(cursorRow).toBe(1);
  });

  test("tabs are drawn as spaces to the next tab stop", () => {
    expect(layoutPrompt("> ", "", "a\tb", 3, 80)).toEqual({
      output: "> a     b\u001b[J\r\u001b[9C",
      cursorRow: 0,
    });
  });

  test("wide characters take two columns", () => {
    expect(visibleWidth("\u001b[1m❯\u001b[0m 日本")).toBe(6);
    const { cursorRow } = layoutPrompt("> ", "", "日本語日本", 5, 10);
    expect(cursorRow).toBe(1);
  });
});
