/**
 * web_fetch's address guard: the host of every hop (the first URL and each redirect) is resolved and
 * every address it resolves to is checked, whatever its spelling — IPv4, IPv6, IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96), 6to4 (2002::/16) — against
 * link-local ranges and the cloud metadata endpoints (the CI machine's credentials live there).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { ipv4Bytes, ipv6Bytes } from "../../sandbox/net-address.ts";

/** Resolves a host name to every address (A and AAAA). */
export type Lookup = (host: string) => Promise<string[]>;

export const systemLookup: Lookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

const METADATA_V4 = new Set(["100.100.100.200", "168.63.129.16", "192.0.0.192"]);

function refusedV4(b: number[]): string | undefined {
  const dotted = b.join(".");
  if (b[0] === 169 && b[1] === 254) return "a link-local or cloud metadata address";
  if (METADATA_V4.has(dotted)) return "a link-local or cloud metadata address";
  if (b[0] === 0) return "an unspecified address";
  return undefined;
}

/** Why an address is never fetched, or undefined. */
export function refusedAddress(address: string): string | undefined {
  const kind = isIP(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  const text = address.replace(/^\[|\]$/g, "");
  if (kind === 4) return refusedV4(ipv4Bytes(text) as number[]);
  if (kind !== 6) return undefined;
  const b = ipv6Bytes(text);
  if (!b) return undefined;
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  // fe80::/10 link-local, fd00:ec2::/32 (AWS), fd20:ce::254 (GCP), fd00:c1::a9fe:a9fe
  if (b[0] === 0xfe && ((b[1] as number) & 0xc0) === 0x80)
    return "a link-local or cloud metadata address";
  if (b[0] === 0xfd && b[1] === 0x00 && b[2] === 0x0e && b[3] === 0xc2)
    return "a link-local or cloud metadata address";
  if (b[0] === 0xfd && b[1] === 0x20 && b[2] === 0x00 && b[3] === 0xce)
    return "a link-local or cloud metadata address";
  let embedded: number[] | undefined;
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff)
    embedded = b.slice(12); // ::ffff:a.b.c.d
  else if (zero(0, 12) && !(zero(12, 15) && (b[15] as number) <= 1))
    embedded = b.slice(12); // ::a.b.c.d
  else if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12))
    embedded = b.slice(12); // NAT64 64:ff9b::/96
  else if (b[0] === 0x20 && b[1] === 0x02) embedded = b.slice(2, 6); // 6to4 2002:aabb:ccdd::
  if (embedded) return refusedV4(embedded);
  if (zero(0, 16)) return "an unspecified address";
  return undefined;
}

/** Checks a URL's host: the literal, or every address a name resolves to. */
export async function refusedHost(hostname: string, lookup: Lookup): Promise<string | undefined> {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (isIP(host)) {
    const why = refusedAddress(host);
    return why ? `${host} is ${why}` : undefined;
  }
  let addresses: string[];
  try {
    addresses = await lookup(host);
  } catch {
    return undefined; // the fetch itself reports that the name does not resolve
  }
  for (const a of addresses) {
    const why = refusedAddress(a);
    if (why) return `${host} resolves to ${a}, ${why}`;
  }
  return undefined;
}
