/**
 * The hosts a sandboxed command may reach (`--allow-network HOST[,HOST…]`, `sandbox.allow_network`
 * in the user's own config): what an entry means, which entry a request's host matches, and which
 * addresses an entry may lead to. The domain rules are web_fetch's (lib/policy/outbound.ts): a host
 * matches itself, `*.x` its strict subdomains; hosts compare normalised (lower case, no trailing
 * dot, IDNs in punycode, IPv4 in dotted decimal whatever its spelling).
 */
import { domainMatches } from "../policy/outbound.ts";
import { type AddressClass, addressClass } from "./net-address.ts";

export interface NetEntry {
  /** As it is shown: `registry.npmjs.org`, `*.pypi.org`, `127.0.0.1:8080`, `[::1]:8080`. */
  text: string;
  /** Normalised host (IPv6 without brackets); for a wildcard, `*.` + its normalised base. */
  host: string;
  /** Only this port; undefined: any port. */
  port?: number;
  wildcard: boolean;
  /** An IP literal: it matches only that address, spelled any way. */
  ip: boolean;
}

/** A host and port a request names, normalised. */
export interface NetTarget {
  host: string;
  port: number;
}

/** Normalises a host as WHATWG URLs do (`0x7f.1` → `127.0.0.1`), or undefined when it is not one. */
export function normalizeNetHost(raw: string): string | undefined {
  const bare = raw.trim().replace(/^\[|\]$/g, "");
  if (!bare || /[\s/@?#\\%]/.test(bare)) return undefined;
  const v6 = bare.includes(":");
  try {
    const host = new URL(`http://${v6 ? `[${bare}]` : bare}/`).hostname;
    return host.replace(/^\[|\]$/g, "").replace(/\.$/, "") || undefined;
  } catch {
    return undefined;
  }
}

/** Splits `host:port`, `[v6]:port`, a bare IPv6 or a bare host; undefined when malformed. */
export function splitAuthority(raw: string): { host: string; port?: number } | undefined {
  const s = raw.trim();
  let host = s;
  let port: string | undefined;
  if (s.startsWith("[")) {
    const close = s.indexOf("]");
    if (close < 0) return undefined;
    host = s.slice(1, close);
    const rest = s.slice(close + 1);
    if (rest && !rest.startsWith(":")) return undefined;
    port = rest ? rest.slice(1) : undefined;
  } else if (s.split(":").length === 2) {
    [host, port] = s.split(":") as [string, string];
  }
  if (port !== undefined && !/^\d{1,5}$/.test(port)) return undefined;
  const n = port === undefined ? undefined : Number(port);
  if (n !== undefined && (n < 1 || n > 65535)) return undefined;
  return n === undefined ? { host } : { host, port: n };
}

/** One entry, or the reason it is not one. */
export function parseNetEntry(raw: string): NetEntry | string {
  const text = raw.trim();
  if (text === "*" || text === "*:*")
    return "`*` would open every host; name the hosts (in auto mode a bare --allow-network opens the whole network)";
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text))
    return `name a host, not a URL (${text.replace(/^[a-z][a-z0-9+.-]*:\/\/([^/]*).*$/i, "$1")})`;
  if (text.startsWith(".")) return `write *${text} for the subdomains of ${text.slice(1)}`;
  if (/\/\d+$/.test(text)) return "address ranges (CIDR) are not supported: name each address";
  const parts = splitAuthority(text);
  if (!parts) return "not a host, host:port or [IPv6]:port";
  const wildcard = parts.host.startsWith("*.");
  const base = normalizeNetHost(wildcard ? parts.host.slice(2) : parts.host);
  if (!base || base.includes("*")) return "not a host name or IP address";
  const ip = addressClass(base) !== undefined;
  if (wildcard && ip) return "a wildcard covers host names, not addresses";
  const shownHost = base.includes(":") ? `[${base}]` : base;
  const shown = `${wildcard ? "*." : ""}${shownHost}${parts.port ? `:${parts.port}` : ""}`;
  return {
    text: shown,
    host: wildcard ? `*.${base}` : base,
    ...(parts.port ? { port: parts.port } : {}),
    wildcard,
    ip,
  };
}

/**
 * Parses allowlist items (each may hold several, comma-separated); throws an Error naming the bad
 * item and `source` (`--allow-network`, `sandbox.allow_network in …`).
 */
export function parseNetAllow(items: readonly string[], source: string): NetEntry[] {
  const out = new Map<string, NetEntry>();
  for (const item of items) {
    for (const raw of item.split(",")) {
      if (!raw.trim()) continue;
      const entry = parseNetEntry(raw);
      if (typeof entry === "string")
        throw new Error(`${source}: ${JSON.stringify(raw.trim())}: ${entry}`);
      out.set(`${entry.host}:${entry.port ?? "*"}`, entry);
    }
  }
  return [...out.values()];
}

/** The entry that lets a request reach `target`, or undefined. */
export function matchNetEntry(
  entries: readonly NetEntry[],
  target: NetTarget,
): NetEntry | undefined {
  const targetIsIp = addressClass(target.host) !== undefined;
  const portOk = (e: NetEntry) => e.port === undefined || e.port === target.port;
  // a port-specific entry first: it is the user's most precise word
  const ranked = [...entries].sort((a, b) => (b.port ? 1 : 0) - (a.port ? 1 : 0));
  return ranked.find((e) => {
    if (!portOk(e)) return false;
    if (e.ip || targetIsIp) return e.ip && targetIsIp && sameAddress(e.host, target.host);
    return domainMatches(e.host, target.host);
  });
}

function sameAddress(a: string, b: string): boolean {
  return normalizeNetHost(a) === normalizeNetHost(b);
}

/**
 * Why the address a matched entry's name resolved to may not be reached, or undefined. An IP the
 * user named is reached whatever it is. Through a name: the cloud metadata endpoints, link-local,
 * unspecified and multicast addresses never; loopback (the host's own services) only through
 * `localhost`; a private address only through a name written out, not through a `*.` wildcard —
 * so a name whose DNS someone else controls cannot be turned into a way to the host or its LAN.
 */
export function addressRefusal(entry: NetEntry, address: string): string | undefined {
  if (entry.ip) return undefined;
  const kind: AddressClass = addressClass(address) ?? "reserved";
  const named = `name the address itself (--allow-network ${address.includes(":") ? `[${address}]` : address}) to reach it`;
  switch (kind) {
    case "public":
      return undefined;
    case "loopback":
      return entry.host === "localhost"
        ? undefined
        : `it resolves to ${address}, a loopback address (the host's own services); ${named}`;
    case "private":
      return entry.wildcard
        ? `it resolves to ${address}, a private address, through the wildcard ${entry.text}; name the host itself (--allow-network HOST) or the address`
        : undefined;
    case "metadata":
    case "link-local":
      return `it resolves to ${address}, a link-local or cloud metadata address; ${named}`;
    default:
      return `it resolves to ${address}, ${kind === "unspecified" ? "an unspecified" : "a reserved or multicast"} address`;
  }
}
