/**
 * `npm ci` on the documented Node version prints no warnings: every locked package's `engines.node`
 * accepts the lowest Node that package.json's `engines.node` admits (no EBADENGINE), and every
 * package with an install script is approved or denied in `allowScripts` (npm blocks unapproved
 * scripts and warns about them).
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));

interface LockEntry {
  version?: string;
  engines?: { node?: string };
  hasInstallScript?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
}
const entries = Object.entries(lock.packages as Record<string, LockEntry>).filter(
  ([p]) => p !== "",
);

/** The lowest version a `>=X` / `^X` / `X.x` floor admits (what a user on the oldest Node runs). */
function floorOf(range: string): string {
  const m = /(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(range);
  if (!m) throw new Error(`cannot read a floor from ${range}`);
  return `${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}`;
}

test("package.json's engines.node is a floor, and the README names it", () => {
  const range = pkg.engines.node as string;
  expect(range).toMatch(/^>=\s*\d+/);
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  expect(readme).toContain(`Node ${floorOf(range).split(".")[0]}`);
});

test("every locked dependency's engines.node accepts the oldest supported Node (no EBADENGINE)", () => {
  const oldest = floorOf(pkg.engines.node);
  const refusing = entries
    .filter(([, e]) => e.engines?.node && !Bun.semver.satisfies(oldest, e.engines.node))
    .map(([path, e]) => `${path}@${e.version} wants node ${e.engines?.node}`);
  expect(refusing).toEqual([]);
  // A check that cannot fail is no check: the versions this replaced refuse it.
  expect(Bun.semver.satisfies(oldest, ">=22.12.0")).toBe(false); // commander 15
  expect(Bun.semver.satisfies(oldest, ">=22.0.0")).toBe(false); // openai 7
});

test("every package with an install script is covered by allowScripts (approved or denied)", () => {
  const allowed = pkg.allowScripts as Record<string, boolean>;
  const scripted = entries.filter(([, e]) => e.hasInstallScript);
  expect(scripted.length).toBeGreaterThan(0); // bun's postinstall
  const decision = (name: string, version?: string) =>
    allowed[`${name}@${version}`] ?? allowed[name];
  const uncovered = scripted
    .map(([path, e]) => ({ name: path.replace(/^.*node_modules\//, ""), version: e.version }))
    .filter(({ name, version }) => typeof decision(name, version) !== "boolean");
  expect(uncovered).toEqual([]);
  // Bun's postinstall links the platform binary the build runs: it must be approved, not denied.
  expect(decision("bun")).toBe(true);
});
