/**
 * `--allow-network [HOST[,HOST…]]` (agent, coder): bare, the whole network in auto mode (as before);
 * with hosts, only those hosts, in any mode but bypass. Commander gives an optional value the next
 * word whatever it is, so `agent --allow-network "fix the tests"` would lose its prompt: before
 * parsing, a next word that is not shaped like a host list stays a positional word (the flag is then
 * bare). A host list is comma-separated items, each with a dot, a port, brackets, `*.` or `localhost`
 * (`--allow-network=NAME` takes any single-label name).
 */

const ITEM =
  /^(?:\*\.)?[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$|^[0-9A-Fa-f]*:[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*$/;

/** Whether a word reads as a host list (so `--allow-network WORD` takes it). */
export function looksLikeHostList(word: string): boolean {
  // a URL where a host belongs: taken, so that the error says to name the host
  if (/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(word)) return true;
  const items = word.split(",").filter((s) => s.trim() !== "");
  if (items.length === 0) return false;
  return items.every((raw) => {
    const s = raw.trim();
    if (s === "*") return true;
    if (!ITEM.test(s)) return false;
    return /[.:[*]/.test(s) || /^localhost$/i.test(s);
  });
}

/** Turns `--allow-network WORD` whose WORD is no host list into a bare flag followed by WORD. */
export function separateNetworkFlag(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      out.push(...argv.slice(i));
      break;
    }
    out.push(arg);
    const next = argv[i + 1];
    if (arg === "--allow-network" && next !== undefined && !next.startsWith("-")) {
      if (!looksLikeHostList(next)) out[out.length - 1] = "--allow-network=";
    }
  }
  return out;
}

/** Commander's parser for the option's values: hosts collected; "" (the bare form above) is none. */
export function collectHosts(value: string, previous: unknown): string[] {
  // a bare --allow-network before this one left `true`
  const before = Array.isArray(previous) ? (previous as string[]) : previous === true ? [""] : [];
  return value === "" ? [...before, ""] : [...before, value];
}

/** The run's flags from the option: bare (the whole network in auto) and the hosts named. */
export function networkFlags(value: unknown): {
  allowNetwork: boolean;
  allowNetworkHosts: string[];
} {
  if (value === undefined || value === false) return { allowNetwork: false, allowNetworkHosts: [] };
  if (value === true) return { allowNetwork: true, allowNetworkHosts: [] };
  const items = Array.isArray(value) ? (value as string[]) : [String(value)];
  return { allowNetwork: items.includes(""), allowNetworkHosts: items.filter((v) => v !== "") };
}
