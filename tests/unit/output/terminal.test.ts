import { expect, test } from "bun:test";
import { parseDotenvFile } from "../../../lib/core/dotenv.ts";
import { redact } from "../../../lib/core/redact.ts";
import { createStreamStripper, shouldColor, stripControl } from "../../../lib/output/terminal.ts";

test("escape sequences and control characters are stripped, text kept", () => {
  expect(stripControl("a\u001b[31mred\u001b[0m b\u001b]0;title\u0007c\r\nd\u0007")).toBe(
    "ared bc\nd",
  );
  expect(stripControl("tab\tok\nline")).toBe("tab\tok\nline");
});

test("stripControl leaves a text without control characters as it is, else strips as before", () => {
  // the two replaces stripControl always ran before it checked for a control character first
  const ESCAPES =
    /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][\s\S]*?(?:\u0007|\u001b\\|\u009c)|\u001b[PX^_][\s\S]*?(?:\u001b\\|\u009c)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]|\u009d[\s\S]*?(?:\u0007|\u009c|\u001b\\)|[\u0090\u0098\u009e\u009f][\s\S]*?(?:\u009c|\u001b\\)|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
  const before = (text: string) => text.replace(/\r(?!\n)/g, "").replace(ESCAPES, "");
  const alphabet = ["a", " ", "\t", "\n", "\r", "[", "]", "0", ";", "m", "\\", "é", "✓", "\u001b"];
  for (let c = 0; c <= 0xa0; c++) alphabet.push(String.fromCharCode(c));
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  for (let i = 0; i < 3000; i++) {
    let text = "";
    for (let n = next() % 24; n > 0; n--) text += alphabet[next() % alphabet.length];
    expect(stripControl(text)).toBe(before(text));
  }
  const plain = "plain text\twith tabs\nand lines, é ✓ [0m";
  expect(stripControl(plain)).toBe(plain);
});

test("a sequence split across two stream chunks is still removed", () => {
  const s = createStreamStripper();
  expect(s.push("hello \u001b[3")).toBe("hello ");
  expect(s.push("1mworld")).toBe("world");
  expect(s.flush()).toBe("");
});

test("colour: --color beats NO_COLOR beats FORCE_COLOR beats the TTY", () => {
  const tty = { write: () => true, isTTY: true };
  const pipe = { write: () => true, isTTY: false };
  expect(shouldColor(tty, {})).toBe(true);
  expect(shouldColor(pipe, {})).toBe(false);
  expect(shouldColor(tty, { NO_COLOR: "1" })).toBe(false);
  expect(shouldColor(pipe, { FORCE_COLOR: "1" })).toBe(true);
  expect(shouldColor(tty, { NO_COLOR: "1" }, "always")).toBe(true);
  expect(shouldColor(tty, {}, "never")).toBe(false);
});

test("secrets are redacted by shape and by configured value", () => {
  const text =
    "key sk-ant-api03-abcdefghijklmnopqrstuv and sk-proj-abcdefghijklmnopqrstuvwx, ghp_abcdefghijklmnopqrstuvwxyz0123456789 AKIAABCDEFGHIJKLMNOP mysecretvalue123";
  const out = redact(text, ["mysecretvalue123"]);
  expect(out).toContain("[REDACTED:anthropic_key]");
  expect(out).toContain("[REDACTED:openai_key]");
  expect(out).toContain("[REDACTED:github_token]");
  expect(out).toContain("[REDACTED:aws_access_key]");
  expect(out).toContain("[REDACTED:configured_key]");
  expect(out).not.toContain("mysecretvalue123");
  expect(redact("-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----")).toBe(
    "[REDACTED:private_key]",
  );
});

test("dotenv parsing: export, quotes, comments", () => {
  expect(
    parseDotenvFile("# c\nexport A=1\nB=\"two words\"\nC='x' \nD=plain # trailing\n\nbad line"),
  ).toEqual({ A: "1", B: "two words", C: "x", D: "plain" });
});
