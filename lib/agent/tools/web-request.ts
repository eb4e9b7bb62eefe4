/**
 * The one way web_fetch and web_search reach the network: every hop (the first URL and each
 * redirect) is checked by the run's outbound rule (a host the rules name, no secret in the URL) and
 * by the address guard (no link-local or cloud metadata address) before anything connects; a
 * redirect to another origin drops the request's headers and body (a search key, Tavily's POST).
 */
import type { ToolContext } from "../types.ts";
import { refusedHost, systemLookup } from "./net-guard.ts";

export const MAX_REDIRECTS = 5;

/** Why a URL is never fetched: not http(s), or a cloud metadata address (the CI machine's credentials). */
export function refusedUrl(url: URL): string | undefined {
  if (!/^https?:$/.test(url.protocol)) return `${url.protocol} URLs are not fetched`;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (
    /^169\.254\./.test(host) ||
    /^(::ffff:)?a9fe:/.test(host) ||
    /^::ffff:169\.254\./.test(host) ||
    /^fd00:ec2::/.test(host) ||
    host === "100.100.100.200" ||
    /(^|\.)metadata(\.google\.internal)?$/.test(host) ||
    /169[.-]254[.-]\d+[.-]\d+/.test(host)
  )
    return `${host} is a link-local or cloud metadata address`;
  return undefined;
}

/** Headers that carry no credential and may follow a redirect to another origin. */
const PORTABLE_HEADERS = new Set(["accept", "accept-language", "user-agent"]);

function portableHeaders(headers: RequestInit["headers"]): Headers {
  const out = new Headers();
  for (const [k, v] of new Headers(headers))
    if (PORTABLE_HEADERS.has(k.toLowerCase())) out.set(k, v);
  return out;
}

export interface CheckedRequest {
  /** The tool on whose behalf the request goes out (the outbound rule names it). */
  tool: string;
  /** Method, headers and body of the first request (default: a plain GET). */
  init?: RequestInit;
}

/**
 * Requests `url`, following at most MAX_REDIRECTS redirects by hand. Returns the final response,
 * or the refusal (a string) when a hop is not allowed — before connecting to it.
 */
export async function fetchChecked(
  ctx: ToolContext,
  url: string,
  signal: AbortSignal,
  request: CheckedRequest = { tool: "web_fetch" },
): Promise<{ response: Response; url: string } | string> {
  let current = url;
  let init: RequestInit = { ...request.init };
  const origin = safeOrigin(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let parsed: URL;
    try {
      parsed = new URL(current);
    } catch {
      return `invalid URL ${JSON.stringify(current)}`;
    }
    const from = hop > 0 ? ` (redirected from ${url})` : "";
    const ruled = ctx.outbound?.(request.tool, parsed.href);
    if (ruled) return `refused${from}: ${ruled}`;
    const refused =
      refusedUrl(parsed) ?? (await refusedHost(parsed.hostname, ctx.lookup ?? systemLookup));
    if (refused) return `refused${from}: ${refused}`;
    const response = await ctx.fetch(parsed.href, { ...init, signal, redirect: "manual" });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || !location)
      return { response, url: parsed.href };
    await response.body?.cancel();
    const next = new URL(location, parsed);
    const method = (init.method ?? "GET").toUpperCase();
    // 301/302 turn a POST into a GET, 303 anything but HEAD; 307/308 keep the method and body
    const keepsBody = response.status === 307 || response.status === 308;
    if (!keepsBody && (response.status === 303 ? method !== "HEAD" : method === "POST"))
      init = { ...init, method: "GET", body: undefined };
    if (next.origin !== origin) {
      if (keepsBody && init.body !== undefined && init.body !== null)
        return `refused: ${parsed.host} redirected a request with a body to another origin (${next.host}); it is not re-sent`;
      init = { method: init.method, headers: portableHeaders(init.headers) };
    }
    current = next.href;
  }
  return `too many redirects (more than ${MAX_REDIRECTS}) from ${url}`;
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}
