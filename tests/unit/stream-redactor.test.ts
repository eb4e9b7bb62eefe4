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
