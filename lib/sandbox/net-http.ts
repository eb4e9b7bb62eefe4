/**
 * What the sandbox's proxy reads of a request (pure): the head of an HTTP proxy request — `CONNECT
 * host:port` for https and anything tunnelled, or an absolute URI (`GET http://host/path`) for plain
 * http — and the server name (SNI) in the TLS ClientHello that follows a CONNECT.
 */
import { normalizeNetHost, splitAuthority } from "./net-hosts.ts";

/** A request head longer than this is refused (431). */
export const MAX_HEAD = 64 * 1024;

export type ProxyRequest =
  | { kind: "connect"; authority: string; host: string; port: number; rest: Buffer }
  | {
      kind: "forward";
      /** The request target as sent (an absolute http URL). */
      url: string;
      host: string;
      port: number;
      /** The head to send upstream: origin-form target, hop-by-hop headers gone, `Connection: close`. */
      head: Buffer;
      rest: Buffer;
    }
  | { kind: "bad"; status: number; why: string; target?: string };

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "upgrade",
]);

/** The request in `buf`, or "more" while its head is incomplete. */
export function parseProxyRequest(buf: Buffer): ProxyRequest | "more" {
  const end = buf.indexOf("\r\n\r\n");
  if (end < 0)
    return buf.length > MAX_HEAD
      ? { kind: "bad", status: 431, why: "the request head is too long" }
      : "more";
  const lines = buf.toString("latin1", 0, end).split("\r\n");
  const rest = buf.subarray(end + 4);
  const m = /^([A-Za-z]+) (\S+) HTTP\/1\.([01])$/.exec(lines[0] ?? "");
  if (!m) return { kind: "bad", status: 400, why: "not an HTTP/1 request" };
  const [, method, target] = m as unknown as [string, string, string];
  const headers: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    const h = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/.exec(line);
    if (!h) return { kind: "bad", status: 400, why: "a malformed header line", target };
    headers.push([h[1] as string, h[2] as string]);
  }
  if (method.toUpperCase() === "CONNECT") {
    const parts = splitAuthority(target);
    const host = parts ? normalizeNetHost(parts.host) : undefined;
    if (!parts?.port || !host || target.includes("@"))
      return { kind: "bad", status: 400, why: "CONNECT needs host:port", target };
    return { kind: "connect", authority: target, host, port: parts.port, rest };
  }
  if (!/^http:\/\//i.test(target))
    return {
      kind: "bad",
      status: 400,
      why: /^https:\/\//i.test(target)
        ? "https goes through CONNECT"
        : "not a proxy request (an absolute http:// URL or CONNECT)",
      target,
    };
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { kind: "bad", status: 400, why: "not a valid URL", target };
  }
  if (url.username || url.password || /^http:\/\/[^/?#]*@/i.test(target))
    return { kind: "bad", status: 400, why: "user info in the URL", target };
  const host = normalizeNetHost(url.hostname);
  if (!host) return { kind: "bad", status: 400, why: "not a valid host", target };
  const port = url.port ? Number(url.port) : 80;
  const connectionTokens = new Set(
    headers
      .filter(([k]) => k.toLowerCase() === "connection")
      .flatMap(([, v]) => v.split(",").map((t) => t.trim().toLowerCase())),
  );
  const kept = headers.filter(([k]) => {
    const lower = k.toLowerCase();
    return !HOP_BY_HOP.has(lower) && !connectionTokens.has(lower);
  });
  if (!kept.some(([k]) => k.toLowerCase() === "host")) kept.unshift(["Host", url.host]);
  const head = [
    `${method} ${url.pathname}${url.search} HTTP/1.1`,
    ...kept.map(([k, v]) => `${k}: ${v}`),
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  return { kind: "forward", url: target, host, port, head: Buffer.from(head, "latin1"), rest };
}

/** A short response for a refused or failed request (the body names why). */
export function proxyResponse(status: number, reason: string, body: string): Buffer {
  const text = `${body}\n`;
  return Buffer.from(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

export const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  431: "Request Header Fields Too Large",
  502: "Bad Gateway",
  504: "Gateway Timeout",
};

/**
 * The server name a TLS ClientHello asks for. "more" while the first record is incomplete;
 * `{tls: false}` when the bytes are not a TLS handshake; `{tls: true, sni}` otherwise (sni undefined
 * when the hello names none; `cut` when the hello goes on past its first record, which no common
 * client does and which would hide the name).
 */
export function clientHelloSni(
  buf: Buffer,
): "more" | { tls: false } | { tls: true; sni?: string; cut?: boolean } {
  if (buf.length < 1) return "more";
  if (buf[0] !== 0x16) return { tls: false };
  if (buf.length < 5) return "more";
  const recordLen = buf.readUInt16BE(3);
  if (buf.length < 5 + recordLen) return "more";
  const rec = buf.subarray(5, 5 + recordLen);
  if (rec[0] !== 0x01 || rec.length < 4) return { tls: true };
  const bodyLen = (rec[1] as number) * 65536 + rec.readUInt16BE(2);
  if (bodyLen > rec.length - 4) return { tls: true, cut: true };
  const body = rec.subarray(4, 4 + bodyLen);
  let at = 2 + 32; // version, random
  const skip = (lenBytes: 1 | 2) => {
    if (at + lenBytes > body.length) return false;
    const n = lenBytes === 1 ? (body[at] as number) : body.readUInt16BE(at);
    at += lenBytes + n;
    return at <= body.length;
  };
  if (!skip(1) || !skip(2) || !skip(1)) return { tls: true }; // session id, ciphers, compression
  if (at + 2 > body.length) return { tls: true };
  const extEnd = Math.min(body.length, at + 2 + body.readUInt16BE(at));
  at += 2;
  while (at + 4 <= extEnd) {
    const type = body.readUInt16BE(at);
    const len = body.readUInt16BE(at + 2);
    const ext = body.subarray(at + 4, Math.min(extEnd, at + 4 + len));
    at += 4 + len;
    if (type !== 0 || ext.length < 5) continue;
    // server_name list: length(2), then entries of type(1) length(2) name
    let p = 2;
    while (p + 3 <= ext.length) {
      const nameType = ext[p] as number;
      const nameLen = ext.readUInt16BE(p + 1);
      const name = ext.subarray(p + 3, p + 3 + nameLen).toString("latin1");
      if (nameType === 0) return { tls: true, sni: name };
      p += 3 + nameLen;
    }
  }
  return { tls: true };
}
