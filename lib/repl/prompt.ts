import { type InputHistory, LineBuffer } from "./buffer.ts";
import type { Key } from "./keys.ts";
import { layoutPrompt } from "./layout.ts";
import { type Completion, completeSlash } from "./slash.ts";
import type { KeyReader, Screen } from "./tty.ts";

/** Pastes longer than this many lines are shown collapsed in the editor. */
export const PASTE_COLLAPSE_LINES = 10;

/** How a prompt ended. */
export type ReadResult =
  /** `pasted`: the input began with a bracketed paste (never taken as a command). */
  | { kind: "line"; text: string; pasted?: boolean }
  /** Ctrl+C; `hadText` when it only cleared a typed line. */
  | { kind: "interrupt"; hadText: boolean }
  /** Ctrl+D on an empty line, or stdin closed. */
  | { kind: "eof" }
  /** Esc twice within the window on an empty line. */
  | { kind: "rewind" }
  /** Ctrl+Z: the caller suspends, then prompts again with `draft`. */
  | { kind: "suspend"; draft: string };

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
  /** Tab completion beyond slash commands (`@path` mentions). */
  completeWord?: (text: string) => Completion;
  /** Text already in the editor when it opens (the draft kept across Ctrl+Z). */
  initial?: string;
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
  /** Ctrl+R search state: the query, the history index of the match shown, the line before. */
  private search: { query: string; at: number; original: string } | undefined;
  /** Tab cycling through ambiguous completions: the full inputs, and which one is shown. */
  private cycle: { candidates: string[]; index: number; shown: string } | undefined;
  /** Collapsed pastes: label → the pasted text. */
  private readonly pastes = new Map<string, string>();

  constructor(
    private readonly screen: Screen,
    private readonly options: PromptOptions,
  ) {
    if (options.initial) this.buffer.set(options.initial);
  }

  render(): void {
    const columns = this.screen.columns;
    const footer = this.finished ? undefined : this.options.footer;
    const search = this.search;
    const found = search ? this.options.history.all()[search.at]?.includes(search.query) : false;
    const prompt = search
      ? `(${found || search.query === "" ? "" : "failing "}reverse-i-search)'${search.query}': `
      : this.options.prompt;
    const layout = (text: string, cursor: number) =>
      layoutPrompt(prompt, this.options.cont, text, cursor, columns, footer);
    // After a narrower resize, reflowing terminals (tmux, iTerm, VTE, kitty…) have re-wrapped what
    // we drew onto more rows: the cursor is as far down as that input laid out at the new width.
    // (Widening moves it back up only in some of them; going up too little is the safe error.)
    const drawn = this.drawn;
    if (drawn && drawn.columns > columns) {
      this.cursorRow = Math.max(this.cursorRow, layout(drawn.text, drawn.cursor).cursorRow);
    }
    const shown = search ? (this.options.history.all()[search.at] ?? "") : this.buffer.text;
    const cursor = search ? Array.from(shown).length : this.buffer.cursor;
    const { output, cursorRow } = layout(shown, cursor);
    const up = this.cursorRow > 0 ? `\u001b[${this.cursorRow}A` : "";
    this.screen.write(`${up}\r${output}`);
    this.cursorRow = cursorRow;
    this.drawn = { text: shown, cursor, columns };
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

  /**
   * A paste of more than PASTE_COLLAPSE_LINES lines is shown as `[pasted 200 lines]` (the editor stays
   * usable) and sent in full: the label stands for the text until submit.
   */
  private collapsePaste(text: string): string {
    const lines = text.split("\n").length;
    if (lines <= PASTE_COLLAPSE_LINES) return text;
    const n = this.pastes.size + 1;
    const label = `[pasted ${lines} lines${n > 1 ? ` #${n}` : ""}]`;
    this.pastes.set(label, text);
    return label;
  }

  /** The input with each paste label still present replaced by what was pasted. */
  private expandPastes(text: string): string {
    let out = text;
    for (const [label, pasted] of this.pastes) {
      const at = out.indexOf(label);
      if (at >= 0) out = out.slice(0, at) + pasted + out.slice(at + label.length);
    }
    return out;
  }

  /**
   * Ctrl+R reverse search over the history: typing narrows it, Ctrl+R again goes to an older match,
   * Enter runs the match, Esc / Ctrl+G gives the line back as it was, any other key edits the match.
   */
  private searchKey(key: Key): ReadResult | undefined | "edit" {
    const search = this.search as NonNullable<typeof this.search>;
    const entries = this.options.history.all();
    const find = (from: number) => {
      for (let i = from; i >= 0; i--) if (entries[i]?.includes(search.query)) return i;
      return undefined;
    };
    if (key.name === "ctrl-r") {
      const older = find(search.at - 1);
      if (older !== undefined) search.at = older;
    } else if (key.name === "char" || key.name === "paste") {
      search.query += key.text ?? "";
      search.at = find(Math.min(search.at, entries.length - 1)) ?? search.at;
    } else if (key.name === "backspace") {
      search.query = Array.from(search.query).slice(0, -1).join("");
      search.at = find(entries.length - 1) ?? entries.length;
    } else if (key.name === "escape" || key.name === "ctrl-g" || key.name === "ctrl-c") {
      this.buffer.set(search.original);
      this.search = undefined;
    } else {
      const match = entries[search.at];
      this.buffer.set(match?.includes(search.query) ? (match as string) : search.original);
      this.search = undefined;
      return key.name === "enter" ? this.handle(key) : "edit";
    }
    this.render();
    return undefined;
  }

  handle(key: Key): ReadResult | undefined {
    if (this.search) {
      const result = this.searchKey(key);
      if (result !== "edit") return result;
    }
    const { buffer, options } = this;
    const escAt = this.lastEscAt;
    this.lastEscAt = undefined;
    switch (key.name) {
      case "char":
        if (buffer.isEmpty) this.startedByPaste = false;
        buffer.insert(key.text ?? "");
        break;
      case "paste":
        if (buffer.isEmpty) this.startedByPaste = true;
        // a copied line ends with its newline: that is not an empty line of the message
        buffer.insert(this.collapsePaste((key.text ?? "").replace(/\n+$/, "")));
        break;
      case "enter": {
        const typed = buffer.text;
        if (typed.endsWith("\\") && buffer.cursor === Array.from(typed).length) {
          buffer.backspace();
          buffer.insert("\n");
          break;
        }
        this.finish();
        const text = this.expandPastes(typed);
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
      case "resize":
        break; // drawn again below, at the new width
      case "ctrl-z": {
        const draft = buffer.text;
        this.finishWith("^Z");
        return { kind: "suspend", draft };
      }
      case "ctrl-r": {
        const entries = options.history.all();
        this.search = { query: "", at: entries.length, original: buffer.text };
        break;
      }
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
        if (!buffer.isEmpty && escAt !== undefined && now - escAt <= window) {
          buffer.set(""); // Esc Esc with text clears it (again on an empty line: the rewind menu)
          break;
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

  /**
   * Tab: completes a slash command or an `@path` as far as it is unambiguous; with several
   * candidates the first Tab lists them and each further Tab puts the next one in place.
   */
  private complete(): void {
    const before = this.buffer.text;
    if (this.buffer.cursor !== Array.from(before).length) return;
    const cycle = this.cycle;
    if (cycle && before === cycle.shown) {
      cycle.index = (cycle.index + 1) % cycle.candidates.length;
      cycle.shown = cycle.candidates[cycle.index] as string;
      this.buffer.set(cycle.shown);
      return;
    }
    let result = completeSlash(before);
    if (result.text === before && result.candidates.length === 0 && this.options.completeWord) {
      result = this.options.completeWord(before);
    }
    const { text, candidates } = result;
    if (text !== before) this.buffer.set(text);
    if (candidates.length > 0) {
      if (result.full) this.cycle = { candidates: result.full, index: -1, shown: text };
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
