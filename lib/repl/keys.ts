import { stripControl } from "../output/terminal.ts";

/**
 * Keypress decoding for the REPL: raw TTY bytes → named keys, typed text and pastes.
 * Pure and synchronous, so the editor can be tested with any chunking of the input.
 */

export type KeyName =
  | "char"
  | "paste"
  | "enter"
  | "alt-enter"
  | "tab"
  | "backspace"
  | "delete"
  | "left"
  | "right"
  | "up"
  | "down"
  | "home"
  | "end"
  | "word-left"
  | "word-right"
  | "escape"
  | "ctrl-a"
  | "ctrl-b"
  | "ctrl-c"
  | "ctrl-d"
  | "ctrl-e"
  | "ctrl-f"
  | "ctrl-k"
  | "ctrl-l"
  | "ctrl-n"
  | "ctrl-p"
  | "ctrl-u"
  | "ctrl-w"
  | "ctrl-r"
  | "ctrl-g"
  | "ctrl-z"
  /** Not a key: the terminal changed size (what is on screen is drawn again). */
  | "resize"
  | "unknown";

export interface Key {
  name: KeyName;
  /** The typed text for `char` (may hold several characters) and `paste`. */
  text?: string;
}

const PASTE_START = "\u001b[200~";
const PASTE_END = "\u001b[201~";

const CSI_KEYS: Record<string, KeyName> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
  "1~": "home",
  "7~": "home",
  "4~": "end",
  "8~": "end",
  "3~": "delete",
  "1;5C": "word-right",
  "1;5D": "word-left",
  "1;3C": "word-right",
  "1;3D": "word-left",
};

const CTRL_KEYS: Record<number, KeyName> = {
  1: "ctrl-a",
  2: "ctrl-b",
  3: "ctrl-c",
  4: "ctrl-d",
  5: "ctrl-e",
  6: "ctrl-f",
  7: "ctrl-g",
  8: "backspace",
  9: "tab",
  10: "enter",
  11: "ctrl-k",
  12: "ctrl-l",
  13: "enter",
  14: "ctrl-n",
  16: "ctrl-p",
  18: "ctrl-r",
  21: "ctrl-u",
  23: "ctrl-w",
  26: "ctrl-z",
  127: "backspace",
};

/**
 * A stateful decoder: feed it chunks, get keys. A bracketed paste split across chunks is held until
 * its end marker arrives. A lone ESC at the end of a chunk is the Escape key (terminals send whole
 * escape sequences in one write, so no timer is needed to tell them apart).
 */
export class KeyDecoder {
  private paste: string | undefined;
  private readonly utf8 = new TextDecoder("utf-8");

  /** Decodes one chunk of raw bytes (or already-decoded text). */
  push(chunk: Uint8Array | string): Key[] {
    const text = typeof chunk === "string" ? chunk : this.utf8.decode(chunk, { stream: true });
    const keys: Key[] = [];
    let rest = text;
    if (this.paste !== undefined) rest = this.continuePaste(rest, keys);
    if (rest === "") return keys;
    if (looksLikeUnbracketedPaste(rest)) {
      keys.push({ name: "paste", text: normalizeNewlines(rest.replace(/[\r\n]+$/, "")) });
      return keys;
    }
    let i = 0;
    let typed = "";
    const flushTyped = () => {
      if (typed) keys.push({ name: "char", text: typed });
      typed = "";
    };
    while (i < rest.length) {
      if (rest.startsWith(PASTE_START, i)) {
        flushTyped();
        this.paste = "";
        const after = this.continuePaste(rest.slice(i + PASTE_START.length), keys);
        rest = after;
        i = 0;
        continue;
      }
      const ch = rest[i]!;
      const code = ch.charCodeAt(0);
      if (ch === "\u001b") {
        flushTyped();
        const [key, length] = decodeEscape(rest, i);
        keys.push(key);
        i += length;
        continue;
      }
      if (code < 32 || code === 127) {
        flushTyped();
        keys.push({ name: CTRL_KEYS[code] ?? "unknown" });
        // \r\n from a terminal in a non-raw moment counts once
        i += ch === "\r" && rest[i + 1] === "\n" ? 2 : 1;
        continue;
      }
      typed += ch;
      i += 1;
    }
    flushTyped();
    return keys;
  }

  private continuePaste(text: string, keys: Key[]): string {
    const end = text.indexOf(PASTE_END);
    if (end < 0) {
      this.paste = (this.paste ?? "") + text;
      return "";
    }
    const body = (this.paste ?? "") + text.slice(0, end);
    this.paste = undefined;
    keys.push({ name: "paste", text: normalizeNewlines(body) });
    return text.slice(end + PASTE_END.length);
  }
}

function decodeEscape(text: string, start: number): [Key, number] {
  const next = text[start + 1];
  if (next === undefined) return [{ name: "escape" }, 1];
  if (next === "[" || next === "O") {
    const m = /^[0-9;]*[~A-Za-z]/.exec(text.slice(start + 2));
    if (!m) return [{ name: "escape" }, 1];
    const body = m[0];
    const name = CSI_KEYS[body] ?? (next === "O" ? CSI_KEYS[body.slice(-1)] : undefined);
    return [{ name: name ?? "unknown" }, 2 + body.length];
  }
  if (next === "\r" || next === "\n") return [{ name: "alt-enter" }, 2];
  if (next === "b") return [{ name: "word-left" }, 2];
  if (next === "f") return [{ name: "word-right" }, 2];
  if (next === "\u007f") return [{ name: "ctrl-w" }, 2];
  if (next === "\u001b") return [{ name: "escape" }, 1];
  return [{ name: "unknown" }, 2];
}

/** A chunk of typed text with a line break inside it (not at its very end) is a paste. */
function looksLikeUnbracketedPaste(text: string): boolean {
  if (text.length < 3 || text.includes("\u001b")) return false;
  const body = text.replace(/[\r\n]+$/, "");
  if (!/[\r\n]/.test(body)) return false;
  return /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/.test(body);
}

/** Pasted text: CRLF/CR → LF, other control characters and escape sequences dropped. */
function normalizeNewlines(text: string): string {
  return stripControl(text.replace(/\r\n?/g, "\n"));
}
