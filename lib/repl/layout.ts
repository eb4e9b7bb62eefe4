/** Where text lands on a terminal of a given width: wide characters, wrapping, multi-line input. */

const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]/g;

/** Columns a code point occupies: 0 for combining marks, 2 for wide (CJK, emoji), else 1. */
export function charWidth(cp: number): number {
  if (cp === 0 || (cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || cp === 0xfe0f) {
    return 0;
  }
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/** Display width of a string, ignoring SGR/CSI escape sequences. */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const ch of text.replace(ANSI, "")) width += charWidth(ch.codePointAt(0)!);
  return width;
}

/** Cuts a plain string to at most `width` columns (adding `…` when cut). */
export function fitWidth(text: string, width: number): string {
  if (visibleWidth(text) <= width) return text;
  let out = "";
  let used = 0;
  for (const ch of text) {
    const w = charWidth(ch.codePointAt(0)!);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

/** A line break that first clears the rest of the row (an earlier draw may have been longer). */
const EOL = "\u001b[K\r\n";

export interface PromptLayout {
  /** Bytes to write from the start of the prompt's first row (they clear what they replace). */
  output: string;
  /** Row of the cursor, counted from the prompt's first row, once `output` is written. */
  cursorRow: number;
}

/**
 * Lays out `prompt + text` (continuation lines start with `cont`) on a terminal `columns` wide, with
 * an optional status `footer` row under it, and returns what to write so the cursor ends at code
 * point `cursor` of `text`.
 */
export function layoutPrompt(
  prompt: string,
  cont: string,
  text: string,
  cursor: number,
  columns: number,
  footer?: string,
): PromptLayout {
  const width = Math.max(columns, 10);
  let output = prompt;
  let row = 0;
  let col = visibleWidth(prompt) % width;
  row += Math.floor(visibleWidth(prompt) / width);
  let cursorAt: [number, number] | undefined;
  let index = 0;
  for (const ch of text) {
    if (ch === "\n") {
      if (index === cursor) cursorAt = [row, col];
      output += `${EOL}${cont}`;
      row += 1;
      col = visibleWidth(cont);
    } else if (ch === "\t") {
      // Drawn as spaces to the next tab stop, so the cursor arithmetic stays exact.
      if (col >= width) {
        row += 1;
        col = 0;
      }
      if (index === cursor) cursorAt = [row, col];
      const spaces = Math.min(8 - (col % 8), width - col);
      output += " ".repeat(spaces);
      col += spaces;
    } else {
      const w = charWidth(ch.codePointAt(0)!);
      if (col + w > width) {
        row += 1;
        col = 0;
      }
      if (index === cursor) cursorAt = [row, col];
      output += ch;
      col += w;
    }
    index += 1;
  }
  if (col >= width) {
    // The terminal is in its "pending wrap" state: make the position explicit.
    output += "\r\n";
    row += 1;
    col = 0;
  }
  const [cursorRow, cursorCol] = cursorAt ?? [row, col];
  if (footer) {
    // One row under the input (cut to fit, so it never wraps); the cursor goes back up to the input.
    output += `${EOL}${fitWidth(footer, width - 1)}`;
    row += 1;
  }
  // Clears what an earlier, longer draw left below — from after the text, never from the top-left
  // corner: terminals (tmux) treat "erase below" at (0,0) as a full clear and scroll the screen into
  // the scrollback, one copy of the input per keystroke after a /clear.
  output += "\u001b[J";
  if (row > cursorRow) output += `\u001b[${row - cursorRow}A`;
  output += "\r";
  if (cursorCol > 0) output += `\u001b[${cursorCol}C`;
  return { output, cursorRow };
}
