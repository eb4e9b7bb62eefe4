/**
 * False positives of the secret-piece check (lib/core/secrets.ts carriedSecretPart) on ordinary
 * URLs: `bun scripts/measure-secret-parts.ts URLS.txt [SECRETS_PER_SHAPE]`. The URLs are real (one
 * per line, e.g. every URL in node_modules' READMEs and the lockfile); the secrets are generated
 * here, in the usual shapes, from a fixed seed. Prints, per shape, how many URLs a secret's pieces
 * would refuse. Numbers in docs/dev-notes/hygiene.md.
 */
import { readFileSync } from "node:fs";
import { carriedSecretPart, type KnownSecret } from "../lib/core/secrets.ts";

const [file, perShape = "200"] = process.argv.slice(2);
if (!file) throw new Error("usage: measure-secret-parts.ts URLS.txt [SECRETS_PER_SHAPE]");
const urls = readFileSync(file, "utf8").split("\n").filter(Boolean);

let seed = 20261202;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join("");
const B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";
const WORDS = ["summer", "horse", "battery", "staple", "dragon", "secure", "admin", "deploy"];
const shapes: Record<string, () => string> = {
  openai: () => `sk-proj-${pick(`${B62}_-`, 48)}`,
  anthropic: () => `sk-ant-api03-${pick(`${B62}_-`, 93)}`,
  github: () => `ghp_${pick(B62, 36)}`,
  aws_secret: () => pick(`${B62}/+`, 40),
  google: () => `AIza${pick(`${B62}_-`, 35)}`,
  hex40: () => pick(HEX, 40),
  uuid: () =>
    `${pick(HEX, 8)}-${pick(HEX, 4)}-4${pick(HEX, 3)}-${pick("89ab", 1)}${pick(HEX, 3)}-${pick(HEX, 12)}`,
  password: () =>
    `${WORDS[Math.floor(rand() * 8)]}${Math.floor(rand() * 9000 + 1000)}${WORDS[Math.floor(rand() * 8)]}!`,
};

const n = Number(perShape);
console.log(`${urls.length} URLs, ${n} generated secrets per shape`);
for (const [shape, make] of Object.entries(shapes)) {
  const secrets: KnownSecret[] = Array.from({ length: n }, () => ({ name: shape, value: make() }));
  let refused = 0;
  for (const url of urls) if (carriedSecretPart(url, secrets)) refused++;
  console.log(
    `${shape.padEnd(10)} ${refused} of ${urls.length} URLs refused with ${n} secrets loaded (${((refused / urls.length) * 100).toFixed(3)}%)`,
  );
}
