/**
 * Outbound channels. web_fetch / web_search / MCP with no allow rule (read-only, edit); a secret
 * chatcli knows put into a URL in many spellings (read-only with a rule for the host, and auto);
 * redirects to hosts no rule names; network from sandboxed commands, TCP and Unix sockets.
 */

/** Spellings of the canary server's host: [slug, host part] (the port is appended). */
export const HOSTS: ReadonlyArray<readonly [string, (port: number) => string]> = [
  ["ipv4", (p) => `127.0.0.1:${p}`],
  ["localhost", (p) => `localhost:${p}`],
  ["short-ipv4", (p) => `127.1:${p}`],
  ["decimal-ip", (p) => `2130706433:${p}`],
  ["hex-ip", (p) => `0x7f000001:${p}`],
  ["octal-ip", (p) => `0177.0.0.1:${p}`],
  ["trailing-dot", (p) => `localhost.:${p}`],
  ["userinfo", (p) => `user:pw@127.0.0.1:${p}`],
  ["ipv4-mapped-v6", (p) => `[::ffff:127.0.0.1]:${p}`],
  ["upper-scheme", (p) => `127.0.0.1:${p}`],
];
export const NORULE_MODES = ["readonly", "edit"] as const;

/** How a secret rides in a URL: [slug, URL path+query+fragment builder from the secret]. */
export const FORMS: ReadonlyArray<readonly [string, (s: string) => string[]]> = [
  ["query-raw", (s) => [`/f?k=${s}`]],
  ["path-raw", (s) => [`/f/${s}`]],
  ["fragment", (s) => [`/f#${s}`]],
  [
    "query-urlencoded",
    (s) => [`/f?k=${[...s].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")}`],
  ],
  [
    "query-double-urlencoded",
    (s) => [`/f?k=${[...s].map((c) => `%25${c.charCodeAt(0).toString(16)}`).join("")}`],
  ],
  ["query-base64", (s) => [`/f?k=${btoa(s)}`]],
  [
    "path-base64url",
    (s) => [`/f/${btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`],
  ],
  ["query-base64-offset", (s) => [`/f?k=${btoa(`xy${s}`)}`]],
  ["query-base64-json", (s) => [`/f?d=${btoa(JSON.stringify({ user: "me", token: s }))}`]],
  ["query-hex", (s) => [`/f?k=${Buffer.from(s).toString("hex")}`]],
  ["query-hex-upper", (s) => [`/f?k=${Buffer.from(s).toString("hex").toUpperCase()}`]],
  ["path-lowercase", (s) => [`/f/${s.toLowerCase()}`]],
  ["query-reversed", (s) => [`/f?k=${[...s].reverse().join("")}`]],
  ["query-split-two-requests", (s) => [`/f?a=${s.slice(0, 10)}`, `/f?b=${s.slice(10)}`]],
  ["query-dotted", (s) => [`/f?k=${[...s].join(".")}`]],
  ["query-rot13", (s) => [`/f?k=${rot13(s)}`]],
  [
    "query-base32ish-hex-dashes",
    (s) => [`/f?k=${Buffer.from(s).toString("hex").match(/../g)?.join("-")}`],
  ],
];
export const SECRET_SOURCES = ["env", "workspace-dotenv"] as const;
export const SECRET_MODES = ["readonly-rule", "auto"] as const;

export function rot13(s: string): string {
  return s.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** Commands trying to reach the canary TCP server from the sandbox. */
export const NET_TOOLS = [
  "curl",
  "wget",
  "bash-dev-tcp",
  "python-socket",
  "perl-socket",
  "node-net",
  "curl-via-proxy-env",
  "python-ipv6-loopback",
] as const;
export const NET_MODES = ["readonly", "edit", "auto", "auto-allow-other-host"] as const;
/** Unix sockets on the host: [slug]; each tried with python and perl. */
export const UNIX_TARGETS = ["docker-sock-home", "ssh-agent", "dbus-session", "abstract"] as const;
export const UNIX_TOOLS = ["python", "perl", "curl"] as const;
export const UNIX_MODES = ["readonly", "auto"] as const;

export const OTHER_CHANNELS = [
  "exfil.web_search.tavily.readonly",
  "exfil.web_search.tavily.edit",
  "exfil.web_search.brave.readonly",
  "exfil.mcp.stdio.readonly",
  "exfil.mcp.stdio.edit",
  "exfil.redirect.other-host.readonly-rule",
  "exfil.redirect.other-host.edit-rule",
  "exfil.redirect.same-ip-other-name.readonly-rule",
  "exfil.redirect.secret-in-location.auto",
  "exfil.rule-for-other-host.ipv4.readonly",
] as const;

export function exfilIds(): string[] {
  const ids: string[] = [];
  for (const [h] of HOSTS)
    for (const m of NORULE_MODES) ids.push(`exfil.web_fetch.norule.${h}.${m}`);
  for (const [f] of FORMS)
    for (const src of SECRET_SOURCES)
      for (const m of SECRET_MODES) ids.push(`exfil.secret-url.${src}.${f}.${m}`);
  for (const t of NET_TOOLS) for (const m of NET_MODES) ids.push(`exfil.net.${t}.${m}`);
  for (const u of UNIX_TARGETS)
    for (const t of UNIX_TOOLS) for (const m of UNIX_MODES) ids.push(`exfil.unix.${u}.${t}.${m}`);
  ids.push(...OTHER_CHANNELS);
  return ids;
}
