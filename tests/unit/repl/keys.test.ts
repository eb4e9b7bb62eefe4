import { describe, expect, test } from "bun:test";
import { KeyDecoder } from "../../../lib/repl/keys.ts";

const names = (chunks: string[]) => {
  const d = new KeyDecoder();
  return chunks.flatMap((c) => d.push(c)).map((k) => (k.text ? `${k.name}:${k.text}` : k.name));
};

describe("KeyDecoder", () => {
  test("typed text is grouped, control keys are named", () => {
    expect(names(["hi\u0001\u0005\u0015\u000b\u0017\u007f\r"])).toEqual([
      "char:hi",
      "ctrl-a",
      "ctrl-e",
      "ctrl-u",
      "ctrl-k",
      "ctrl-w",
      "backspace",
      "enter",
    ]);
  });

  test("arrows, Home/End variants, Delete and word moves", () => {
    expect(
      names(["\u001b[A", "\u001b[B", "\u001b[C", "\u001b[D", "\u001b[H", "\u001b[F", "\u001bOH"]),
    ).toEqual(["up", "down", "right", "left", "home", "end", "home"]);
    expect(names(["\u001b[1~\u001b[4~\u001b[3~\u001b[1;5C\u001bb"])).toEqual([
      "home",
      "end",
      "delete",
      "word-right",
      "word-left",
    ]);
  });

  test("a lone ESC is the Escape key; two in one chunk are two presses", () => {
    expect(names(["\u001b"])).toEqual(["escape"]);
    expect(names(["\u001b\u001b"])).toEqual(["escape", "escape"]);
  });

  test("Alt+Enter is its own key", () => {
    expect(names(["\u001b\r"])).toEqual(["alt-enter"]);
  });

  test("bracketed paste keeps newlines, even split across chunks", () => {
    expect(names(["\u001b[200~line 1\r\nline", " 2\u001b[201~x"])).toEqual([
      "paste:line 1\nline 2",
      "char:x",
    ]);
  });

  test("escape sequences and control characters inside a paste are dropped", () => {
    expect(names(["\u001b[200~a\u001b[31mb\u0007\tc\u001b[201~"])).toEqual(["paste:ab\tc"]);
  });

  test("an unbracketed chunk with an inner newline is a paste, not a submit", () => {
    expect(names(["one\ntwo\n"])).toEqual(["paste:one\ntwo"]);
    expect(names(["one\r"])).toEqual(["char:one", "enter"]);
  });

  test("UTF-8 split across chunks decodes whole", () => {
    const d = new KeyDecoder();
    const bytes = new TextEncoder().encode("é");
    expect(d.push(bytes.slice(0, 1))).toEqual([]);
    expect(d.push(bytes.slice(1))).toEqual([{ name: "char", text: "é" }]);
  });
});
