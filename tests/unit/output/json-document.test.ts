import { expect, test } from "bun:test";
import { redactDeep } from "../../../lib/core/redact.ts";
import { jsonDocument, stripControlDeep } from "../../../lib/output/terminal.ts";

/** jsonDocument as it was: every string redacted and stripped, then stringified. */
const before = (value: unknown, secrets: readonly string[], indent?: number) =>
  `${JSON.stringify(stripControlDeep(redactDeep(value, secrets)), null, indent)}\n`;

const PIECES = [
  "a",
  "Z",
  " ",
  "\n",
  "\t",
  "\r",
  "\r\n",
  "\u001b[31m",
  "\u0007",
  "\u007f",
  "\u009b1m",
];
PIECES.push(
  "\u0085",
  "é",
  "😀",
  '"',
  "\\",
  "\\b",
  "sk-",
  "AKIAABCDEFGHIJKLMNOP",
  "my-secret-1",
  "x".repeat(30),
);

test("jsonDocument's shortcut gives the bytes the deep redaction gave", () => {
  let seed = 3;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const str = () => {
    let s = "";
    for (let i = Math.floor(rand() * 6); i > 0; i--)
      s += PIECES[Math.floor(rand() * PIECES.length)];
    return s;
  };
  const value = (depth: number): unknown => {
    const r = rand();
    if (depth > 2 || r < 0.4) return [str(), 1.5, null, true, undefined][Math.floor(rand() * 5)];
    if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
    if (r < 0.65) return new Date(0);
    const out: Record<string, unknown> = {};
    for (let i = Math.floor(rand() * 4); i > 0; i--)
      out[rand() < 0.2 ? str() : `k${i}`] = value(depth + 1);
    return out;
  };
  for (let i = 0; i < 5000; i++) {
    const v = value(0);
    // what a store file gives (memory facts): the caller says so and the check is skipped
    const parsed: unknown = JSON.parse(JSON.stringify(v) ?? "null");
    for (const secrets of [[], ["my-secret-1"], ['quo"te-secret']]) {
      for (const indent of [undefined, 2]) {
        expect(jsonDocument(v, secrets, indent)).toBe(before(v, secrets, indent));
        expect(jsonDocument(parsed, secrets, indent, { plain: true })).toBe(
          before(parsed, secrets, indent),
        );
      }
    }
  }
});
