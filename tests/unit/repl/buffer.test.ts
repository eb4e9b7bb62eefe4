import { describe, expect, test } from "bun:test";
import { InputHistory, LineBuffer } from "../../../lib/repl/buffer.ts";

function buf(text: string, cursor?: number): LineBuffer {
  const b = new LineBuffer();
  b.set(text);
  if (cursor !== undefined) for (let i = Array.from(text).length; i > cursor; i--) b.left();
  return b;
}

describe("LineBuffer", () => {
  test("insert at the cursor, backspace and delete", () => {
    const b = buf("helo", 3);
    b.insert("l");
    expect([b.text, b.cursor]).toEqual(["hello", 4]);
    b.backspace();
    b.deleteForward();
    expect([b.text, b.cursor]).toEqual(["hel", 3]);
  });

  test("Ctrl+U / Ctrl+K / Ctrl+W", () => {
    const b = buf("git commit -m fix", 10);
    b.killToEnd();
    expect(b.text).toBe("git commit");
    b.deleteWordBack();
    expect(b.text).toBe("git ");
    b.killToStart();
    expect([b.text, b.cursor]).toEqual(["", 0]);
  });

  test("Ctrl+K at the end of a line joins the next one", () => {
    const b = buf("ab\ncd", 2);
    b.killToEnd();
    expect([b.text, b.cursor]).toEqual(["abcd", 2]);
    b.end();
    b.killToEnd();
    expect(b.text).toBe("abcd");
  });

  test("Home/End stay on the current line of multi-line input", () => {
    const b = buf("first\nsecond", 8);
    b.home();
    expect(b.cursor).toBe(6);
    b.end();
    expect(b.cursor).toBe(12);
  });

  test("up/down move between lines, keeping the column", () => {
    const b = buf("abcdef\nxy", 9);
    expect(b.lineUp()).toBe(true);
    expect(b.cursor).toBe(2);
    expect(b.lineUp()).toBe(false);
    expect(b.lineDown()).toBe(true);
    expect(b.cursor).toBe(9);
    expect(b.lineDown()).toBe(false);
  });

  test("emoji count as one code point", () => {
    const b = buf("a🎉b", 2);
    b.backspace();
    expect(b.text).toBe("ab");
  });
});

describe("InputHistory", () => {
  test("prev/next browse entries and give the draft back", () => {
    const h = new InputHistory(["one", "two"]);
    expect(h.prev("draft")).toBe("two");
    expect(h.prev("two")).toBe("one");
    expect(h.prev("one")).toBeUndefined();
    expect(h.next()).toBe("two");
    expect(h.next()).toBe("draft");
    expect(h.next()).toBeUndefined();
  });

  test("blank lines and immediate repeats are not recorded", () => {
    const h = new InputHistory();
    h.add("x");
    h.add("x");
    h.add("  ");
    expect(h.all()).toEqual(["x"]);
  });
});
