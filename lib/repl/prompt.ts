import { type InputHistory, LineBuffer } from "./buffer.ts";
import type { Key } from "./keys.ts";
import { layoutPrompt } from "./layout.ts";
import { completeSlash } from "./slash.ts";
import type { KeyReader, Screen } from "./tty.ts";

/** How a prompt ended. */
export type ReadResult =
  /** `pasted`: the input began with a bracketed paste (never taken as a command). */
  | { kind: "line"; text: string; pasted?: boolean }
  /** Ctrl+C; `hadText` when it only cleared a typed line. */
  | { kind: "interrupt"; hadText: boolean }
  /** Ctrl+D on an empty line, or stdin closed. */
  | { kind: "eof" }
  /** Esc twice within the window on an empty line. */
  | { kind: "rewind" };

export interface PromptOptions {
  prompt: string;
  /** Shown at the start of continuation lines. */
  cont: string;
  history: InputHistory;
  now: () => Date;
  /** Esc Esc window (ms). */
  doubleEscMs?: number;
  /** Abort (SIGTERM and the like) ends the prompt as eof. */
  signal?: AbortSignal;
  /** A status row drawn under the input while it is edited (gone once it is submitted). */
  footer?: string;
}

/** Reads one input with line editing; the screen must be in raw mode. */
export async function readLine(
  keys: KeyReader,
  screen: Screen,
  options: PromptOptions,
): Promise<ReadResult> {
  const editor = new PromptEditor(screen, options);
  editor.render();
  for (;;) {
    const key = await keys.next(options.signal);
    if (!key) {
      editor.finish();
      return { kind: "eof" };
    }
    const result = editor.handle(key);
    if (result) return result;
  }
}

class PromptEditor {
  private readonly buffer = new LineBuffer();
  private cursorRow = 0;
  /** What the last render drew, to find the cursor again after a resize. */
  private drawn: { text: string; cursor: number; columns: number } | undefined;
  private lastEscAt: number | undefined;
  /** The input's first characters came from a paste. */
  private startedByPaste = false;
  private finished = false;

  constructor(
    private readonly screen: Screen,
    private readonly options: PromptOptions,
  ) {}

  render(): void {
    const columns = this.screen.columns;
    const footer = this.finished ? undefined : this.options.footer;
    const layout = (text: string, cursor: number) =>
      layoutPrompt(this.options.prompt, this.options.cont, text, cursor, columns, footer);
    // After a narrower resize, reflowing terminals (tmux, iTerm, VTE, kitty…) have re-wrapped what
    // we drew onto more rows: the cursor is as far down as that input laid out at the new width.
    // (Widening moves it back up only in some of them; going up too little is the safe error.)
    const drawn = this.drawn;
    if (drawn && drawn.columns > columns) {
      this.cursorRow = Math.max(this.cursorRow, layout(drawn.text, drawn.cursor).cursorRow);
    }
    const { output, cursorRow } = layout(this.buffer.text, this.buffer.cursor);
    const up = this.cursorRow > 0 ? `\u001b[${this.cursorRow}A` : "";
    this.screen.write(`${up}\r\u001b[J${output}`);
    this.cursorRow = cursorRow;
    this.drawn = { text: this.buffer.text, cursor: this.buffer.cursor, columns };
  }

  /** Moves below the input (after a submit) so output starts on a fresh line. */
  finish(): void {
    this.buffer.set(this.buffer.text);
    this.finished = true; // drawn without the footer: it is erased with the submit
    this.render();
    this.screen.write("\n");
    this.cursorRow = 0;
    this.drawn = undefined;
  }

  handle(key: Key): ReadResult | undefined {
    const { buffer, options } = this;
    const escAt = this.lastEscAt;
    this.lastEscAt = undefined;
    switch (key.name) {
      case "char":
      case "paste":
        if (buffer.isEmpty) this.startedByPaste = key.name === "paste";
        buffer.insert(key.text ?? "");
        break;
      case "enter": {
        const text = buffer.text;
        if (text.endsWith("\\") && buffer.cursor === Array.from(text).length) {
          buffer.backspace();
          buffer.insert("\n");
          break;
        }
        this.finish();
        options.history.add(text);
        return { kind: "line", text, pasted: this.startedByPaste };
      }
      case "alt-enter":
        buffer.insert("\n");
        break;
      case "backspace":
        buffer.backspace();
        break;
      case "delete":
        buffer.deleteForward();
        break;
      case "ctrl-d":
        if (buffer.isEmpty) {
          this.finish();
          return { kind: "eof" };
        }
        buffer.deleteForward();
        break;
      case "left":
      case "ctrl-b":
        buffer.left();
        break;
      case "right":
      case "ctrl-f":
        buffer.right();
        break;
      case "home":
      case "ctrl-a":
        buffer.home();
        break;
      case "end":
      case "ctrl-e":
        buffer.end();
        break;
      case "word-left":
        buffer.wordLeft();
        break;
      case "word-right":
        buffer.wordRight();
        break;
      case "ctrl-u":
        buffer.killToStart();
        break;
      case "ctrl-k":
        buffer.killToEnd();
        break;
      case "ctrl-w":
        buffer.deleteWordBack();
        break;
      case "up":
      case "ctrl-p":
        if (!buffer.lineUp()) this.recall(options.history.prev(buffer.text));
        break;
      case "down":
      case "ctrl-n":
        if (!buffer.lineDown()) this.recall(options.history.next());
        break;
      case "tab":
        this.complete();
        break;
      case "ctrl-l":
        this.screen.write("\u001b[2J\u001b[H");
        this.cursorRow = 0;
        this.drawn = undefined;
        break;
      case "ctrl-c": {
        const hadText = !buffer.isEmpty;
        this.finishWith("^C");
        options.history.reset();
        return { kind: "interrupt", hadText };
      }
      case "escape": {
        const now = options.now().getTime();
        const window = options.doubleEscMs ?? 500;
        if (buffer.isEmpty && escAt !== undefined && now - escAt <= window) {
          this.finish();
          return { kind: "rewind" };
        }
        this.lastEscAt = now;
        return undefined;
      }
      default:
        return undefined;
    }
    this.render();
    return undefined;
  }

  private recall(entry: string | undefined): void {
    if (entry !== undefined) this.buffer.set(entry);
  }

  private complete(): void {
    const before = this.buffer.text;
    if (this.buffer.cursor !== Array.from(before).length) return;
    const { text, candidates } = completeSlash(before);
    if (text !== before) this.buffer.set(text);
    if (candidates.length > 0) {
      this.finish();
      this.screen.write(`${candidates.join("  ")}\n`);
    }
  }

  private finishWith(marker: string): void {
    this.buffer.end();
    this.render();
    this.screen.write(`${marker}\n`);
    this.cursorRow = 0;
    this.drawn = undefined;
  }
}
