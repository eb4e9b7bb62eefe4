import { createStreamStripper } from "../output/terminal.ts";

/**
 * Light markdown for streamed answers: headers, bold, inline code, lists, quotes and fenced code
 * blocks, rendered as text arrives (a character is held back only while its meaning is unknown,
 * e.g. the `*` that may open `**`). Without colour the text passes through as written. Escape
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

/** Creates a renderer writing to `write`; `color: false` gives plain text (NO_COLOR, --color never). */
export function createMarkdownStream(
  write: (text: string) => void,
  color: boolean,
): MarkdownStream {
  const stripper = createStreamStripper();
  if (!color) {
    return {
      push: (delta) => emit(write, stripper.push(delta)),
      end: () => emit(write, stripper.flush()),
    };
  }
  const renderer = new ColorRenderer(write);
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

  constructor(private readonly write: (text: string) => void) {}

  feed(text: string): void {
    for (const ch of text) this.char(ch);
  }

  finish(): void {
    if (this.fence !== undefined) this.endFence();
    if (this.head) this.startLine(this.head, true);
    this.flushHeld();
    this.closeLine();
    this.head = "";
  }

  private char(ch: string): void {
    if (this.fence !== undefined) {
      if (ch === "\n") {
        this.endFence();
        this.write("\n");
        this.head = "";
      } else {
        this.fence += ch;
      }
      return;
    }
    if (this.head !== undefined) {
      if (ch === "\n") {
        this.startLine(this.head, true);
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
    return /^(#{1,6}|[-*+]|\d{1,3}[.)]?|>|\*\*?)$/.test(t);
  }

  private startLine(head: string, complete: boolean): void {
    this.head = undefined;
    const t = head.trimStart();
    const indent = head.slice(0, head.length - t.length);
    if (t.startsWith("```") || t.startsWith("~~~")) {
      this.fence = head;
      if (complete) this.endFence();
      return;
    }
    if (this.inCodeBlock) {
      this.lineStyle = CODE;
      this.write(CODE + head);
      return;
    }
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
      this.inlineText(bullet[1]!);
      return;
    }
    const quote = /^> ?(.*)$/s.exec(t);
    if (quote) {
      this.write(`${indent + DIM}│ ${RESET}`);
      this.inlineText(quote[1]!);
      return;
    }
    const numbered = /^(\d{1,3}[.)]) (.*)$/s.exec(t);
    if (numbered) {
      this.write(`${indent + BOLD + numbered[1]!}${RESET} `);
      this.inlineText(numbered[2]!);
      return;
    }
    this.write(indent);
    this.inlineText(t);
  }

  private endFence(): void {
    const line = this.fence ?? "";
    this.fence = undefined;
    this.head = undefined;
    this.inCodeBlock = !this.inCodeBlock;
    this.write(DIM + line + RESET);
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
      this.write("*");
    }
    if (ch === "*" && !this.code) {
      this.held = "*";
      return;
    }
    if (ch === "`") {
      this.code = !this.code;
      this.restyle();
      return;
    }
    this.write(ch);
  }

  private flushHeld(): void {
    if (this.held) this.write(this.held);
    this.held = "";
  }

  private restyle(): void {
    this.write(RESET + this.lineStyle + (this.bold ? BOLD : "") + (this.code ? INLINE_CODE : ""));
  }

  private closeLine(): void {
    if (this.lineStyle || this.bold || this.code) this.write(RESET);
    this.lineStyle = "";
    this.bold = false;
    this.code = false;
  }

  private newline(): void {
    this.flushHeld();
    this.closeLine();
    this.write("\n");
    this.head = "";
  }
}
