import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  canonical,
  canonicalForms,
  carriedTransformedSecret,
  rotationKey,
} from "../../lib/core/secret-forms.ts";
import type { KnownSecret } from "../../lib/core/secrets.ts";
import { secretShapes } from "../../scripts/secret-shapes.ts";

const KEY: KnownSecret = { name: "RT_API_TOKEN", value: "RtSecret4F1e2D3c4B5a6978Qz" };
const SHORT: KnownSecret = { name: "DB_PASSWORD", value: "hunter2-Zq9" }; // under 16: the whole only
// values of words: only their raw spellings count (lib/core/secrets.ts)
const WORDY: KnownSecret[] = [
  { name: "SESSION_NAME", value: "localhost-dev" },
  { name: "APP_PASSWORD", value: "change me" },
];
const rot = (s: string, n: number) =>
  s.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + n) % 26) + base);
  });
const rev = (s: string) => [...s].reverse().join("");
const hex = (s: string) => Buffer.from(s).toString("hex");
const found = (url: string, secrets = [KEY, SHORT]) =>
  carriedTransformedSecret(url, secrets)?.secret.name;

describe("canonical forms of a URL", () => {
  test("separators go, case folds, ROT-n shares one key, hex runs are decoded", () => {
    expect(canonical("R.t-S_e c%r")).toBe("rtsecr");
    expect(rotationKey("rt4f")).toBe(rotationKey(rot("rt4f", 13)));
    expect(rotationKey("rt4f")).toBe(rotationKey(rot("rt4f", 5)));
    expect(rotationKey("rt4f")).not.toBe(rotationKey("rt4g"));
    expect(canonicalForms(`https://x.test/?k=${hex("abc-DEF-123")}`)).toContain("abcdef123");
    expect(canonicalForms("https://x.test/?k=%52%74")).toContain("httpsxtestkrt");
  });
});

describe("a transformed secret in a URL is found", () => {
  const v = KEY.value;
  const cases: Array<[string, string]> = [
    ["reversed", rev(v)],
    ["rot13", rot(v, 13)],
    ["rot-7", rot(v, 7)],
    ["dotted", [...v].join(".")],
    ["dashed upper case", [...v.toUpperCase()].join("-")],
    ["hex with dashes", hex(v).match(/../g)?.join("-") ?? ""],
    ["hex upper with colons", (hex(v).toUpperCase().match(/../g) ?? []).join(":")],
    ["hex of the reversed value", hex(rev(v))],
    ["rot13 of the reversed value, dotted", [...rot(rev(v), 13)].join(".")],
    ["percent-encoded dotted", encodeURIComponent([...v].join("/"))],
    ["one half, reversed", rev(v.slice(0, 13))],
    ["the other half, rot13", rot(v.slice(13), 13)],
  ];
  for (const [what, spelled] of cases)
    test(what, () => expect(found(`https://x.test/f?k=${spelled}`)).toBe("RT_API_TOKEN"));
  test("a short secret: its whole value reversed or separated, not a piece of it", () => {
    expect(found(`https://x.test/?q=${rev(SHORT.value)}`)).toBe("DB_PASSWORD");
    expect(found(`https://x.test/?q=${[...SHORT.value].join("_")}`)).toBe("DB_PASSWORD");
    expect(found(`https://x.test/?q=${SHORT.value.slice(0, 8)}`)).toBeUndefined();
  });
});

describe("ordinary URLs are not refused", () => {
  test("words, versions, commit hashes and a secret's shared prefix", () => {
    const openai: KnownSecret = {
      name: "OPENAI_API_KEY",
      value: "sk-proj-Zq81LmX0vB7rT2kWc9Yp4Hd6",
    };
    for (const url of [
      "https://platform.openai.com/docs/sk-proj-keys",
      "https://github.com/oven-sh/bun/commit/30db7098fea0154c8dcb484bfee2ed5c4ec946aa",
      "https://registry.npmjs.org/typescript/-/typescript-5.6.3.tgz",
      "https://x.test/v2.1/install?id=a1b2",
      "https://www.google.com/search?q=how+to+reverse+a+string+in+rust",
      "http://localhost/dev/changeme",
    ])
      expect(carriedTransformedSecret(url, [openai, KEY, SHORT, ...WORDY])).toBeUndefined();
  });

  test("real URLs (lockfile and node_modules READMEs) against generated secrets: none refused", () => {
    const root = join(import.meta.dir, "..", "..");
    let text = readFileSync(join(root, "package-lock.json"), "utf8");
    for (const dir of readdirSync(join(root, "node_modules")).slice(0, 400))
      try {
        text += readFileSync(join(root, "node_modules", dir, "README.md"), "utf8");
      } catch {}
    const urls = [...new Set(text.match(/https?:\/\/[^\][\s"'<>()`\\]+/g) ?? [])];
    expect(urls.length).toBeGreaterThan(500);
    const shapes = secretShapes(7);
    for (const [shape, make] of Object.entries(shapes)) {
      const secrets = Array.from({ length: 50 }, () => ({ name: shape, value: make() }));
      const wrong = urls.filter((u) => carriedTransformedSecret(u, secrets));
      expect({ shape, wrong }).toEqual({ shape, wrong: [] });
    }
  });
});
