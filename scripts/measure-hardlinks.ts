/**
 * Cost of the hard-link rule (lib/sandbox/hardlinks.ts): `bun scripts/measure-hardlinks.ts [WORKSPACE]`.
 * Times the protected-set scan (the deny list of this environment and a depth-3 scan of the hidden
 * HOME) and the workspace's stat walk (done only when a protected file with other links lies on the
 * workspace's device). Numbers in docs/dev-notes/hygiene.md.
 */
import { lstatSync } from "node:fs";
import { userHome } from "../lib/core/paths.ts";
import { deniedReadPaths } from "../lib/sandbox/deny.ts";
import { linkedProtected, linksInside } from "../lib/sandbox/hardlinks.ts";
import { homeView } from "../lib/sandbox/home.ts";

const ws = process.argv[2] ?? process.cwd();
const env = process.env as Record<string, string>;
const denied = deniedReadPaths(env, [], [ws]);
const view = homeView({ env, allowRead: [], needed: [ws], workspace: ws });
let t = performance.now();
const set = linkedProtected(denied, view);
console.log(
  `HOME ${userHome(env)}: protected set ${set.keys.length} keys, ${set.scanned} entries looked at, ${(performance.now() - t).toFixed(1)} ms`,
);
const dev = lstatSync(ws).dev;
t = performance.now();
// a key on the workspace's device forces the walk (what a real protected link would do)
const links = linksInside(ws, [`${dev}:0`]);
console.log(
  `workspace ${ws}: stat walk ${(performance.now() - t).toFixed(1)} ms (${links.length} links found)`,
);
