import { charWidth } from "./layout.ts";

const ESCAPE = /^\u001b\[[0-?]*[ -/]*[@-~]/;

/**
 * Wraps streamed text at word boundaries for a terminal `columns()` wide: a word that would cross the
 * right edge starts the next line instead (indented like the line it continues, for list items and
 * quotes). Escape sequences take no room. Only the word being typed is held back; `raw` text (code,
 * tables) passes through untouched, and a word longer than a line is left to the terminal.
 */
export class WordWrapper {
  private col = 0;
  private word = "";
  private wordWidth = 0;
  /** Spaces after the last word, written only if the next word stays on this line. */
  private spaces = 0;
  /** Columns to indent continuation lines by (set while a list item or quote is written). */
  indent = 0;

  constructor(
    private readonly out: (text: string) => void,
    private readonly columns: () => number,
  ) {}

  write(text: string): void {
    let i = 0;
    while (i < text.length) {
      const sequence = text[i] === "\u001b" ? ESCAPE.exec(text.slice(i)) : null;
      if (sequence) {
        this.word += sequence[0];
        i += sequence[0].length;
        continue;
      }
      const ch = String.fromCodePoint(text.codePointAt(i) as number);
      i += ch.length;
      if (ch === "\n") {
        this.flush();
        this.spaces = 0;
        this.out("\n");
        this.col = 0;
        this.indent = 0;
      } else if (ch === " ") {
        this.flush();
        this.spaces += 1;
      } else {
        this.word += ch;
        this.wordWidth += charWidth(ch.codePointAt(0) as number);
      }
    }
  }

  /** Text that must not be reflowed (a code line, a drawn table): written as is. */
  raw(text: string): void {
    this.flush();
    if (this.spaces > 0) this.out(" ".repeat(this.spaces));
    this.col += this.spaces;
    this.spaces = 0;
    this.out(text);
    const nl = text.lastIndexOf("\n");
    this.col = nl >= 0 ? width(text.slice(nl + 1)) : this.col + width(text);
  }

  /** Writes the held word (end of the answer, or before raw text). */
  flush(): void {
    if (this.word === "") return;
    const room = this.width();
    const at = this.col + this.spaces;
    const fits = at + this.wordWidth <= room;
    if (this.col > this.indent && !fits && this.wordWidth <= room - this.indent) {
      this.out(`\n${" ".repeat(this.indent)}`);
      this.col = this.indent;
    } else {
      if (this.spaces > 0) this.out(" ".repeat(this.spaces));
      this.col = at;
    }
    this.spaces = 0;
    this.out(this.word);
    this.col += this.wordWidth;
    if (this.col >= room) this.col %= Math.max(1, room);
    this.word = "";
    this.wordWidth = 0;
  }

  private width(): number {
    return Math.max(10, this.columns());
  }
}

function width(text: string): number {
  let w = 0;
  for (const ch of text.replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, ""))
    w += charWidth(ch.codePointAt(0) as number);
  return w;
}
