import { expect, test } from "bun:test";
import { carriedSecretPart, secretParts } from "../../lib/core/secrets.ts";

test("pieces of a secret: halves in a URL are caught, shared prefixes, words and short values are not pieces", () => {
  const key = { name: "OPENAI_API_KEY", value: "sk-proj-Zq81LmX0vB7rT2kWc9Yp4Hd6" };
  const half = key.value.length / 2;
  expect(carriedSecretPart(`https://x.test/a?p=${key.value.slice(0, half)}`, [key])).toBe(key);
  expect(
    carriedSecretPart(`https://x.test/${encodeURIComponent(key.value.slice(half))}`, [key]),
  ).toBe(key);
  expect(secretParts(key.value)).not.toContain("sk-proj-");
  expect(carriedSecretPart("https://platform.openai.com/docs/sk-proj-keys", [key])).toBeUndefined();
  expect(carriedSecretPart("https://x.test/v2.1/install?id=a1b2", [key])).toBeUndefined();
  expect(secretParts("short-9aB3x")).toEqual([]); // under 16 characters: only the whole value counts
  expect(secretParts("passwordpassword")).toEqual([]); // no digit: no piece
});
