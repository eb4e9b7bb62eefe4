import { createStreamStripper } from "../output/terminal.ts";
import { renderTable } from "./markdown-table.ts";
import { WordWrapper } from "./word-wrap.ts";

/**
 * Light markdown for streamed answers: headers, bold, italic, inline code, lists, quotes, tables and
 * fenced code blocks, rendered as text arrives (a character is held back only while its meaning is
 * unknown, e.g. the `*` that may open `**`; prose is wrapped at word boundaries, so the word being
 * written waits for its end). Without colour the text passes through as written. Escape
 * sequences from the model are always stripped.
 */
export interface MarkdownStream {
  push(delta: string): void;
  /** Flushes what is held back and closes open styles (end of the answer). */
  end(): void;
}

const RESET = "\u001b[0m";
const BOLD = "\u001b[1m";
const HEADER = "\u001b[1;36m";
const CODE = "\u001b[33m";
const INLINE_CODE = "\u001b[36m";
const DIM = "\u001b[2m";
const ITALIC = "\u001b[3m";

/** Creates a renderer writing to `write`; `color: false` gives plain text (NO_COLOR, --color never). */
export function createMarkdownStream(
  write: (text: string) => void,
  color: boolean,
  columns: () => number = () => 80,
): MarkdownStream {
  const stripper = createStreamStripper();
  if (!color) {
    return {
      push: (delta) => emit(write, stripper.push(delta)),
      end: () => emit(write, stripper.flush()),
    };
  }
  const renderer = new ColorRenderer(write, columns);
  return {
    push: (delta) => renderer.feed(stripper.push(delta)),
    end: () => {
      renderer.feed(stripper.flush());
      renderer.finish();
    },
  };
}

function emit(write: (text: string) => void, text: string): void {
  if (text) write(text);
}

class ColorRenderer {
  private inCodeBlock = false;
  /** Text at the start of a line whose kind (header, list, fence…) is not known yet. */
  private head: string | undefined = "";
  /** Styles open on the current line. */
  private lineStyle = "";
  private bold = false;
  private code = false;
  /** A `*` or backtick held until the next character says what it is. */
  private held = "";
  /** A fence line being collected (its content is not streamed). */
  private fence: string | undefined;
  /** `*` or `_` while an italic span it opened is open. */
  private italic: "*" | "_" | undefined;
  /** The last character written on this line (italic markers need a word boundary). */
  private prev = "";
  /** Rows of a table being collected (drawn whole once it ends), and the row being read. */
  private tableRows: string[] | undefined;
  private tableLine: string | undefined;

  private readonly wrap: WordWrapper;

  constructor(
    write: (text: string) => void,
    private readonly columns: () => number,
  ) {
    this.wrap = new WordWrapper(write, columns);
  }

  /** Prose is wrapped at word boundaries; code is written as it is. */
  private write(text: string): void {
    if (this.inCodeBlock) this.wrap.raw(text);
    else this.wrap.write(text);
  }

  feed(text: string): void {
    for (const ch of text) this.char(ch);
  }

  finish(): void {
    if (this.fence !== undefined) this.endFence();
    if (this.tableLine !== undefined) this.tableRows?.push(this.tableLine);
    this.tableLine = undefined;
    if (this.head) this.startLine(this.head, true);
    this.flushTable();
    this.flushHeld();
    this.closeLine();
    this.wrap.flush();
    this.head = "";
  }

  private char(ch: string): void {
    if (this.tableLine !== undefined) {
      if (ch === "\n") {
        this.tableRows?.push(this.tableLine);
        this.tableLine = undefined;
        this.head = "";
      } else {
        this.tableLine += ch;
      }
      return;
    }
    if (this.fence !== undefined) {
      if (ch === "\n") {
        if (this.endFence()) this.write("\n");
        this.head = "";
      } else {
        this.fence += ch;
      }
      return;
    }
    if (this.head !== undefined) {
      if (ch === "\n") {
        const t = this.head.trimStart();
        const isFence = t.startsWith("```") || t.startsWith("~~~");
        if (isFence) {
          this.fence = this.head;
          this.head = undefined;
          if (this.endFence()) this.write("\n");
          this.head = "";
          return;
        }
        this.startLine(this.head, true);
        if (this.tableLine !== undefined) {
          this.char(ch); // the row just started ends here
          return;
        }
        this.newline();
        return;
      }
      this.head += ch;
      if (!this.isUndecided(this.head)) this.startLine(this.head, false);
      return;
    }
    if (ch === "\n") {
      this.newline();
      return;
    }
    this.inline(ch);
  }

  /** Whether the line start could still become a fence, header, list item or quote. */
  private isUndecided(head: string): boolean {
    if (head.length > 12) return false;
    const t = head.trimStart();
    if (t === "") return true;
    if ("```".startsWith(t) || "~~~".startsWith(t)) return true;
    if (this.inCodeBlock) return false;
    if (t.startsWith("|")) return false;
    return /^(#{1,6}|[-*+]|\d{1,3}[.)]?|>|\*\*?)$/.test(t);
  }

  private startLine(head: string, complete: boolean): void {
    this.head = undefined;
    const t = head.trimStart();
    const indent = head.slice(0, head.length - t.length);
    if (t.startsWith("```") || t.startsWith("~~~")) {
      this.flushTable();
      this.fence = head;
      if (complete) this.endFence();
      return;
    }
    if (this.inCodeBlock) {
      this.lineStyle = CODE;
      this.write(`${CODE}  ${head}`);
      return;
    }
    if (t.startsWith("|")) {
      this.tableRows ??= [];
      this.tableLine = head;
      return;
    }
    this.flushTable();
    const header = /^(#{1,6}) (.*)$/s.exec(t);
    if (header) {
      this.lineStyle = HEADER;
      this.write(indent + HEADER);
      this.inlineText(header[2]!);
      return;
    }
    const bullet = /^[-*+] (.*)$/s.exec(t);
    if (bullet) {
      this.write(`${indent}• `);
      this.wrap.indent = indent.length + 2;
      this.inlineText(bullet[1]!);
      return;
    }
    const quote = /^> ?(.*)$/s.exec(t);
    if (quote) {
      this.write(`${indent + DIM}│ ${RESET}`);
      this.wrap.indent = indent.length + 2;
      this.inlineText(quote[1]!);
      return;
    }
    const numbered = /^(\d{1,3}[.)]) (.*)$/s.exec(t);
    if (numbered) {
      this.write(`${indent + BOLD + numbered[1]!}${RESET} `);
      this.wrap.indent = indent.length + numbered[1]!.length + 1;
      this.inlineText(numbered[2]!);
      return;
    }
    this.write(indent);
    this.inlineText(t);
  }

  /**
   * A fence line is not printed: an opening one shows its language as a dim label, a closing one
   * nothing. Returns whether it wrote a line (so its line break is kept).
   */
  private endFence(): boolean {
    const line = this.fence ?? "";
    this.fence = undefined;
    this.head = undefined;
    this.inCodeBlock = !this.inCodeBlock;
    const lang = this.inCodeBlock
      ? line
          .trim()
          .replace(/^(`{3,}|~{3,})/, "")
          .trim()
      : "";
    if (!lang) return false;
    this.wrap.raw(`${DIM}  ${lang}${RESET}`);
    return true;
  }

  /** Draws the collected table, if any. */
  private flushTable(): void {
    const rows = this.tableRows;
    this.tableRows = undefined;
    if (!rows || rows.length === 0) return;
    this.wrap.raw(renderTable(rows, this.columns(), formatInline));
  }

  private inlineText(text: string): void {
    for (const ch of text) this.inline(ch);
  }

  private inline(ch: string): void {
    if (this.inCodeBlock) {
      this.write(ch);
      return;
    }
    if (this.held === "*") {
      this.held = "";
      if (ch === "*") {
        this.bold = !this.bold;
        this.restyle();
        return;
      }
      if (!this.toggleItalic("*", ch)) this.put("*");
    } else if (this.held === "_") {
      this.held = "";
      if (!this.toggleItalic("_", ch)) this.put("_");
    }
    if ((ch === "*" || ch === "_") && !this.code) {
      this.held = ch;
      return;
    }
    if (ch === "`") {
      this.code = !this.code;
      this.restyle();
      return;
    }
    this.put(ch);
  }

  /**
   * A held `*` / `_` followed by `next`: opens italic at a word start (`*word`, ` _word`), closes
   * the span it opened at a word end. Returns false when it is a plain character (`2 * 3`, snake_case).
   */
  private toggleItalic(marker: "*" | "_", next: string): boolean {
    const word = (c: string) => /[\p{L}\p{N}]/u.test(c);
    if (this.italic === marker && this.prev !== "" && !/\s/.test(this.prev) && !word(next)) {
      this.italic = undefined;
      this.restyle();
      return true;
    }
    if (this.italic === undefined && !word(this.prev) && next !== "" && !/\s/.test(next)) {
      this.italic = marker;
      this.restyle();
      return true;
    }
    return false;
  }

  private put(ch: string): void {
    this.write(ch);
    this.prev = ch;
  }

  private flushHeld(): void {
    const held = this.held;
    this.held = "";
    if (held && !this.toggleItalic(held as "*" | "_", "")) this.write(held);
  }

  private restyle(): void {
    this.write(
      RESET +
        this.lineStyle +
        (this.bold ? BOLD : "") +
        (this.italic ? ITALIC : "") +
        (this.code ? INLINE_CODE : ""),
    );
  }

  private closeLine(): void {
    if (this.lineStyle || this.bold || this.code || this.italic) this.write(RESET);
    this.lineStyle = "";
    this.bold = false;
    this.code = false;
    this.italic = undefined;
    this.prev = "";
  }

  private newline(): void {
    this.flushHeld();
    this.closeLine();
    this.write("\n");
    this.head = "";
  }
}

/** Inline markup of a table cell, rendered whole: **bold**, `code`, *italic* / _italic_. */
function formatInline(text: string): string {
  return text
    .replace(/`([^`]+)`/g, `${INLINE_CODE}$1${RESET}`)
    .replace(/\*\*([^*]+)\*\*/g, `${BOLD}$1${RESET}`)
    .replace(
      /(^|[^\p{L}\p{N}])[*_]([^*_\s][^*_]*?)[*_](?=$|[^\p{L}\p{N}])/gu,
      `$1${ITALIC}$2${RESET}`,
    );
}
