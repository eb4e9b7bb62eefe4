/** The text being edited at the prompt: code points plus a cursor, with the editing operations. */
export class LineBuffer {
  private chars: string[] = [];
  private pos = 0;

  /** The text as a string. */
  get text(): string {
    return this.chars.join("");
  }
  /** Cursor position in code points. */
  get cursor(): number {
    return this.pos;
  }
  get isEmpty(): boolean {
    return this.chars.length === 0;
  }

  /** Replaces the whole text; the cursor goes to the end. */
  set(text: string): void {
    this.chars = Array.from(text);
    this.pos = this.chars.length;
  }

  insert(text: string): void {
    const add = Array.from(text);
    this.chars.splice(this.pos, 0, ...add);
    this.pos += add.length;
  }

  backspace(): boolean {
    if (this.pos === 0) return false;
    this.chars.splice(this.pos - 1, 1);
    this.pos -= 1;
    return true;
  }

  deleteForward(): boolean {
    if (this.pos >= this.chars.length) return false;
    this.chars.splice(this.pos, 1);
    return true;
  }

  left(): void {
    if (this.pos > 0) this.pos -= 1;
  }
  right(): void {
    if (this.pos < this.chars.length) this.pos += 1;
  }

  /** Start of the current line (multi-line input edits line by line). */
  home(): void {
    this.pos = this.lineStart();
  }
  end(): void {
    this.pos = this.lineEnd();
  }

  /** Ctrl+U: deletes from the start of the current line to the cursor. */
  killToStart(): void {
    const start = this.lineStart();
    this.chars.splice(start, this.pos - start);
    this.pos = start;
  }
  /** Ctrl+K: deletes from the cursor to the end of the line; at a line's end, joins the next. */
  killToEnd(): void {
    const end = this.lineEnd();
    this.chars.splice(this.pos, end > this.pos ? end - this.pos : 1);
  }

  /** Ctrl+W: deletes the word before the cursor (and the spaces after it). */
  deleteWordBack(): void {
    const start = this.wordStartBefore();
    this.chars.splice(start, this.pos - start);
    this.pos = start;
  }
  wordLeft(): void {
    this.pos = this.wordStartBefore();
  }
  wordRight(): void {
    let i = this.pos;
    while (i < this.chars.length && isSpace(this.chars[i]!)) i += 1;
    while (i < this.chars.length && !isSpace(this.chars[i]!)) i += 1;
    this.pos = i;
  }

  /** Moves to the previous line of a multi-line text; false when already on the first line. */
  lineUp(): boolean {
    const start = this.lineStart();
    if (start === 0) return false;
    const column = this.pos - start;
    const prevEnd = start - 1;
    const prevStart = this.lineStart(prevEnd);
    this.pos = Math.min(prevStart + column, prevEnd);
    return true;
  }
  /** Moves to the next line of a multi-line text; false when already on the last line. */
  lineDown(): boolean {
    const end = this.lineEnd();
    if (end >= this.chars.length) return false;
    const column = this.pos - this.lineStart();
    const nextStart = end + 1;
    this.pos = Math.min(nextStart + column, this.lineEnd(nextStart));
    return true;
  }

  private lineStart(from = this.pos): number {
    let i = from;
    while (i > 0 && this.chars[i - 1] !== "\n") i -= 1;
    return i;
  }
  private lineEnd(from = this.pos): number {
    let i = from;
    while (i < this.chars.length && this.chars[i] !== "\n") i += 1;
    return i;
  }
  private wordStartBefore(): number {
    let i = this.pos;
    while (i > 0 && isSpace(this.chars[i - 1]!)) i -= 1;
    while (i > 0 && !isSpace(this.chars[i - 1]!)) i -= 1;
    return i;
  }
}

function isSpace(ch: string): boolean {
  return ch === " " || ch === "\t" || ch === "\n";
}

/** Up/down recall of earlier inputs; the line being typed is kept while browsing. */
export class InputHistory {
  private readonly entries: string[];
  private index: number;
  private draft = "";

  constructor(entries: readonly string[] = []) {
    this.entries = [...entries];
    this.index = this.entries.length;
  }

  /** Every entry, oldest first. */
  all(): readonly string[] {
    return this.entries;
  }

  /** Records a submitted input, trailing blanks cut (blank lines and immediate repeats are skipped). */
  add(input: string): void {
    const entry = input.trimEnd();
    if (entry !== "" && this.entries.at(-1) !== entry) this.entries.push(entry);
    this.index = this.entries.length;
    this.draft = "";
  }

  /** The previous entry, or undefined at the oldest one. `current` is kept as the draft. */
  prev(current: string): string | undefined {
    if (this.index === 0) return undefined;
    if (this.index === this.entries.length) this.draft = current;
    this.index -= 1;
    return this.entries[this.index];
  }

  /** The next entry, the draft past the newest, or undefined when not browsing. */
  next(): string | undefined {
    if (this.index >= this.entries.length) return undefined;
    this.index += 1;
    return this.index === this.entries.length ? this.draft : this.entries[this.index];
  }

  /** Leaves browsing mode (after a submit or a cancel). */
  reset(): void {
    this.index = this.entries.length;
    this.draft = "";
  }
}
