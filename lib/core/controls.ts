/**
 * Control characters shown as text: C0 controls but \t and \n, DEL, and the C1 range U+0080–U+009F
 * (U+009B is a one-character CSI, U+009D an OSC on terminals that take 8-bit controls). A warning or
 * an error that quotes input (a `.env` line, a file name, a config value) shows them as `\x1b` or
 * `\u009b`, so what the user sees is what was there and the terminal acts on none of it.
 */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** The same, but a \r right before \n is a line ending (a CRLF file), not a control. */
const CONTROLS_BUT_CRLF = /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 0x80
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** Every control character (\t and \n kept) written as its escape: `ESC` → `\x1b`. */
export function escapeControls(text: string): string {
  CONTROLS.lastIndex = 0;
  return CONTROLS.test(text) ? text.replace(CONTROLS, visible) : text;
}

/**
 * Text a workspace file gives the model (bootstrap files, rules, skills) with its control characters
 * written as escapes — CRLF line endings kept — and how many there were.
 */
export function neutraliseControls(text: string): { text: string; count: number } {
  let count = 0;
  const out = text.replace(CONTROLS_BUT_CRLF, (ch) => {
    count++;
    return visible(ch);
  });
  return { text: out, count };
}
