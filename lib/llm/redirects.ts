/**
 * The fetch every provider SDK gets: redirects are followed by hand, so that a credential never
 * follows one to another origin. Bun's fetch drops `Authorization` on a cross-origin redirect but
 * keeps `x-api-key` (Anthropic), `x-goog-api-key` (Gemini) and the body of a 307/308 — a gateway
 * (or a server a base URL points at) could forward the key anywhere. Same-origin redirects are
 * followed with the request unchanged; a redirect to another origin is followed only for a request
 * without a body, and then with no header but the harmless ones; one with a body is not followed
 * (the provider's error names where it was sent).
 */

const MAX_HOPS = 10;
const PORTABLE = new Set(["accept", "accept-language", "user-agent"]);

function requestParts(input: string | URL | Request, init: RequestInit | undefined) {
  if (input instanceof Request) {
    return {
      url: input.url,
      init: {
        method: input.method,
        headers: input.headers,
        body: input.body,
        signal: input.signal,
        ...init,
      } as RequestInit,
    };
  }
  return { url: String(input), init: { ...init } };
}

/** `base` with redirects that never carry headers or a body to another origin. */
export function credentialSafeFetch(base: typeof fetch): typeof fetch {
  const wrapped = async (input: string | URL | Request, init?: RequestInit) => {
    const first = requestParts(input, init);
    if (first.init.redirect === "manual" || first.init.redirect === "error")
      return base(first.url, first.init);
    const origin = new URL(first.url).origin;
    let url = first.url;
    let options: RequestInit = { ...first.init, redirect: "manual" };
    for (let hop = 0; ; hop++) {
      const response = await base(url, options);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || !location) return response;
      if (hop >= MAX_HOPS) return response;
      const next = new URL(location, url);
      const method = (options.method ?? "GET").toUpperCase();
      const keepsBody = response.status === 307 || response.status === 308;
      if (!keepsBody && (response.status === 303 ? method !== "HEAD" : method === "POST"))
        options = { ...options, method: "GET", body: undefined };
      if (next.origin !== origin) {
        if (options.body !== undefined && options.body !== null) return response;
        const headers = new Headers();
        for (const [k, v] of new Headers(options.headers))
          if (PORTABLE.has(k.toLowerCase())) headers.set(k, v);
        options = { method: options.method, headers, signal: options.signal, redirect: "manual" };
      }
      await response.body?.cancel();
      url = next.href;
    }
  };
  return Object.assign(wrapped, { preconnect: base.preconnect }) as typeof fetch;
}
