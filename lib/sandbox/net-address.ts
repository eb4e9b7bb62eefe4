/**
 * IP addresses in every spelling, and what kind of place each one is: web_fetch's address guard
 * (lib/agent/tools/net-guard.ts) and the sandbox's network proxy (net-proxy.ts) both ask. IPv4
 * embedded in IPv6 — IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64
 * (64:ff9b::/96), 6to4 (2002::/16) — is judged as the IPv4 address it carries.
 */
import { isIP } from "node:net";

export function ipv4Bytes(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : Number.NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : undefined;
}

export function ipv6Bytes(text: string): number[] | undefined {
  let s = text.toLowerCase().replace(/%.*$/, "");
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const b = ipv4Bytes(v4[1] as string);
    if (!b) return undefined;
    tail.push(...b);
    s = `${s.slice(0, -(v4[1] as string).length)}0:0`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const group = (h: string) => (h ? h.split(":") : []);
  const head = group(halves[0] as string);
  const rest = halves.length === 2 ? group(halves[1] as string) : [];
  const missing = 8 - head.length - rest.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...Array(missing).fill("0"), ...rest];
  const bytes: number[] = [];
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return undefined;
    const n = Number.parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/**
 * What an address is: `metadata` (a cloud's credential endpoint), `link-local`, `unspecified`
 * (0.0.0.0, ::), `loopback`, `private` (RFC 1918, carrier-grade NAT, unique-local IPv6),
 * `reserved` (multicast, broadcast, class E), or `public`.
 */
export type AddressClass =
  | "metadata"
  | "link-local"
  | "unspecified"
  | "loopback"
  | "private"
  | "reserved"
  | "public";

export const METADATA_V4: ReadonlySet<string> = new Set([
  "169.254.169.254",
  "100.100.100.200",
  "168.63.129.16",
  "192.0.0.192",
]);

function classV4(b: number[]): AddressClass {
  const [a, c] = b as [number, number];
  if (METADATA_V4.has(b.join("."))) return "metadata";
  if (a === 169 && c === 254) return "link-local";
  if (a === 0) return "unspecified";
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && c >= 16 && c < 32) || (a === 192 && c === 168)) return "private";
  if (a === 100 && c >= 64 && c < 128) return "private"; // carrier-grade NAT
  if (a === 198 && (c === 18 || c === 19)) return "private"; // benchmarking
  if (a >= 224) return "reserved";
  return "public";
}

/** The class of an IP literal (brackets and a zone allowed), or undefined when it is not one. */
export function addressClass(address: string): AddressClass | undefined {
  const text = address.replace(/^\[|\]$/g, "");
  const kind = isIP(text.replace(/%.*$/, ""));
  if (kind === 4) return classV4(ipv4Bytes(text) as number[]);
  if (kind !== 6) return undefined;
  const b = ipv6Bytes(text);
  if (!b) return undefined;
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  // fd00:ec2::/32 (AWS), fd20:ce::/32 (GCP)
  if (b[0] === 0xfd && b[1] === 0x00 && b[2] === 0x0e && b[3] === 0xc2) return "metadata";
  if (b[0] === 0xfd && b[1] === 0x20 && b[2] === 0x00 && b[3] === 0xce) return "metadata";
  if (b[0] === 0xfe && ((b[1] as number) & 0xc0) === 0x80) return "link-local";
  if (zero(0, 16)) return "unspecified";
  if (zero(0, 15) && b[15] === 1) return "loopback";
  let embedded: number[] | undefined;
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff)
    embedded = b.slice(12); // ::ffff:a.b.c.d
  else if (zero(0, 12))
    embedded = b.slice(12); // ::a.b.c.d
  else if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12))
    embedded = b.slice(12); // NAT64 64:ff9b::/96
  else if (b[0] === 0x20 && b[1] === 0x02) embedded = b.slice(2, 6); // 6to4 2002:aabb:ccdd::
  if (embedded) return classV4(embedded);
  if (((b[0] as number) & 0xfe) === 0xfc) return "private"; // fc00::/7
  if (b[0] === 0xff) return "reserved"; // multicast
  return "public";
}
