import { expect, test } from "bun:test";
import { createStreamRedactor } from "../../lib/core/redact.ts";

test("a configured secret split across pieces is redacted; the joined text is otherwise unchanged", () => {
  const secret = "kq7ZpLr9Wx4Tn2Mecho0Q";
  const text = `start ${secret} middle ${secret}${secret} end and a long tail after it all`;
  for (let size = 1; size <= text.length; size += 3) {
    const r = createStreamRedactor(() => [secret]);
    let out = "";
    for (let i = 0; i < text.length; i += size) out += r.push(text.slice(i, i + size));
    out += r.flush();
    expect(out).toBe(text.replaceAll(secret, "[REDACTED:configured_key]"));
  }
  const none = createStreamRedactor(() => []);
  expect(none.push("plain")).toBe("plain");
  expect(none.pending()).toBe(false);
});

test("only a tail that could start a secret is held back: an answer streams as it comes", () => {
  const secret = "kq7ZpLr9Wx4Tn2Mecho0Q";
  const r = createStreamRedactor(() => [secret, "Yet-another-long-secret-0000"]);
  // nothing here can begin a secret: every piece is shown at once (a stalled stream shows it)
  expect(r.push("partial ans")).toBe("partial ans");
  expect(r.pending()).toBe(false);
  // "kq7Z" could be the start of the first secret: held until the next piece decides
  expect(r.push("wer kq7Z")).toBe("wer ");
  expect(r.pending()).toBe(true);
  expect(r.push("ebra")).toBe("kq7Zebra");
  expect(r.push(` ${secret.slice(0, 10)}`)).toBe(" ");
  expect(r.push(`${secret.slice(10)} done`)).toBe("[REDACTED:configured_key] done");
  expect(r.flush()).toBe("");
});
