/**
 * False positives of the secret-piece check (lib/core/secrets.ts carriedSecretPart) and of the
 * transformed-secret check (lib/core/secret-forms.ts carriedTransformedSecret) on ordinary URLs:
 * `bun scripts/measure-secret-parts.ts URLS.txt [SECRETS_PER_SHAPE]`. The URLs are real (one per
 * line, e.g. every URL in node_modules' *.md and package.json files and the lockfile); the secrets
 * are generated here, in the usual shapes, from a fixed seed. Prints, per shape, how many URLs each
 * check would refuse, and the cost per URL. Numbers in docs/dev-notes/hygiene.md.
 */
import { readFileSync } from "node:fs";
import { carriedTransformedSecret } from "../lib/core/secret-forms.ts";
import { carriedSecretPart, type KnownSecret } from "../lib/core/secrets.ts";
import { secretShapes } from "./secret-shapes.ts";

const [file, perShape = "200"] = process.argv.slice(2);
if (!file) throw new Error("usage: measure-secret-parts.ts URLS.txt [SECRETS_PER_SHAPE]");
const urls = readFileSync(file, "utf8").split("\n").filter(Boolean);

const n = Number(perShape);
const shapes = secretShapes(20261202);
console.log(`${urls.length} URLs, ${n} generated secrets per shape`);
for (const [shape, make] of Object.entries(shapes)) {
  const secrets: KnownSecret[] = Array.from({ length: n }, () => ({ name: shape, value: make() }));
  let parts = 0;
  let transformed = 0;
  const wrong: string[] = [];
  carriedTransformedSecret("https://warm.up/", secrets); // the index is built once per secret set
  const t0 = performance.now();
  for (const url of urls) if (carriedSecretPart(url, secrets)) parts++;
  const t1 = performance.now();
  for (const url of urls)
    if (carriedTransformedSecret(url, secrets)) {
      transformed++;
      wrong.push(url);
    }
  const t2 = performance.now();
  const us = (ms: number) => ((ms * 1000) / urls.length).toFixed(1);
  console.log(
    `${shape.padEnd(10)} pieces: ${parts} of ${urls.length} refused (${us(t1 - t0)} µs/URL); transformed: ${transformed} refused (${us(t2 - t1)} µs/URL) with ${n} secrets loaded`,
  );
  for (const url of wrong.slice(0, 5)) console.log(`  wrongly refused: ${url.slice(0, 160)}`);
}
