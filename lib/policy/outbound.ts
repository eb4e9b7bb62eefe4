/**
 * Outbound channels (CONTRACT §5): web_fetch, web_search, MCP tools and any other tool of kind
 * "network" send what the model chose to somewhere else. In read-only and edit mode they are closed
 * unless an allow rule names the host (`web_fetch(domain:docs.python.org)`, `domain:*.python.org`
 * for its subdomains) or the tool (`web_search`, `mcp__srv__*`); auto and bypass keep them open
 * and say so (`outbound` in the envelope). Whatever the mode, a request that carries a value chatcli
 * knows to be secret is refused.
 */
import { carriedTransformedSecret } from "../core/secret-forms.ts";
import {
  carriedSecret,
  carriedSecretPart,
  type KnownSecret,
  SECRET_PART,
} from "../core/secrets.ts";
import { wildcardMatch } from "./patterns.ts";
import type { Action, Decision, PermissionMode, Rule } from "./policy-types.ts";

/** What the envelope and `session.started` say about outbound channels. */
export interface OutboundInfo {
  /** `open`: any host (auto, bypass); `allowlist`: only what `allow` names. */
  policy: "open" | "allowlist";
  /** The allow rules that open a network tool or host, as written. */
  allow: string[];
}

/** A host as URLs spell it: lower case, no trailing dot, no IPv6 brackets, IDNs in punycode. */
export function normalizeHost(host: string): string {
  const bare = host
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (!bare || bare === "*" || bare.startsWith("*.") || bare.includes(":")) return bare;
  try {
    return new URL(`http://${bare}/`).hostname;
  } catch {
    return bare;
  }
}

/** The host of an http(s) URL (normalised), or undefined. */
export function urlHost(url: string): string | undefined {
  try {
    const u = new URL(url);
    return /^https?:$/.test(u.protocol) ? normalizeHost(u.hostname) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `domain:PATTERN` covers `host` (Claude Code's rule): `docs.python.org` is that host only;
 * `*.python.org` is every subdomain of python.org but not python.org itself; `*` is any host.
 */
export function domainMatches(pattern: string, host: string): boolean {
  const p = normalizeHost(pattern);
  const h = normalizeHost(host);
  if (!p || !h) return false;
  if (p === "*") return true;
  if (p.startsWith("*.")) {
    const base = normalizeHost(p.slice(2));
    return base.length > 0 && h.endsWith(`.${base}`);
  }
  return p === h;
}

/** The pattern of a `domain:` rule, or undefined for any other argument. */
export function domainOf(rule: Pick<Rule, "arg">): string | undefined {
  const m = /^\s*domain:\s*(\S+)\s*$/i.exec(rule.arg ?? "");
  return m?.[1];
}

/** A rule that could open an outbound channel: it names the tool (a bare `*` does not). */
function namesTool(rule: Rule, tool: string): boolean {
  return rule.tool.glob !== "*" && rule.tool.test(tool);
}

/** Whether an allow rule opens this network action (its host, or the tool as a whole). */
export function outboundAllowed(rule: Rule, action: Pick<Action, "tool" | "host" | "subject">) {
  if (!namesTool(rule, action.tool)) return false;
  const arg = rule.arg?.trim();
  if (arg === undefined || arg === "" || arg === "*" || arg === "**") return true;
  const domain = domainOf(rule);
  if (domain !== undefined) return action.host !== undefined && domainMatches(domain, action.host);
  // a tool without a host (an MCP tool): the rule's pattern against what the call names
  return action.host === undefined && wildcardMatch(arg, action.subject);
}

/** Whether a deny rule covers this network action (`domain:` against the host, else the subject). */
export function outboundDenied(rule: Rule, action: Pick<Action, "tool" | "host" | "subject">) {
  if (!rule.tool.test(action.tool)) return false;
  const arg = rule.arg?.trim();
  if (arg === undefined || arg === "" || arg === "*" || arg === "**") return true;
  const domain = domainOf(rule);
  if (domain !== undefined) return action.host !== undefined && domainMatches(domain, action.host);
  return wildcardMatch(arg, action.subject);
}

/** The rule a user would add to open this action. */
export function outboundSuggestion(action: Pick<Action, "tool" | "host">): string {
  if (action.host) return `--allow-tool '${action.tool}(domain:${action.host})'`;
  // an MCP server's tool: that tool, or every tool of the server
  const server = /^mcp__(.+?)__/.exec(action.tool)?.[1];
  return server
    ? `--allow-tool '${action.tool}' (or --allow-tool 'mcp__${server}__*')`
    : `--allow-tool '${action.tool}'`;
}

/** The tools whose subject is a URL or a search query (pieces of a secret are looked for there). */
const WEB_TOOLS: ReadonlySet<string> = new Set(["web_fetch", "web_search"]);

/** The refusal for a request carrying a secret (every mode, no rule opens it). */
export function secretRefusal(
  action: Pick<Action, "tool" | "subject" | "host" | "payload">,
  secrets: readonly KnownSecret[] | undefined,
): Decision | undefined {
  if (!secrets?.length) return undefined;
  const carried =
    carriedSecret(action.subject, secrets) ??
    (action.payload ? carriedSecret(action.payload, secrets) : undefined);
  // a piece of one (a secret split over several requests), or one transformed (separated,
  // reversed, ROT-n, hex after stripping), in what a web tool's request names
  const web = !carried && WEB_TOOLS.has(action.tool);
  const part = web ? carriedSecretPart(action.subject, secrets) : undefined;
  const transformed = web && !part ? carriedTransformedSecret(action.subject, secrets) : undefined;
  if (!carried && !part && !transformed) return undefined;
  const reason = carried
    ? `the request carries the value of ${carried.name}, a secret; it is never sent, in any mode`
    : part
      ? `the request carries ${SECRET_PART} or more characters of the value of ${part.name}, a secret (a piece of it is a secret too); it is never sent, in any mode`
      : `the request carries ${transformed?.piece ? `${SECRET_PART} or more characters of ` : ""}the value of ${transformed?.secret.name}, a secret, transformed (separators, reversed, a letter shift or hex); it is never sent, in any mode`;
  return {
    verdict: "deny",
    reason,
    dangerous: false,
    suggestion:
      "none: a secret's value is never sent by a tool (pass data the task needs without it)",
  };
}

/**
 * The verdict for a network action with no deny rule against it: open in auto and bypass, else an
 * allow rule must name the host or the tool; otherwise it is an ask (a human on a TTY may say yes;
 * without one it is denied) whose suggestion is the exact flag.
 */
export function outboundVerdict(
  mode: PermissionMode,
  allow: readonly Rule[],
  action: Pick<Action, "tool" | "host" | "subject">,
): Decision {
  if (mode === "auto" || mode === "bypass")
    return {
      verdict: "allow",
      reason: `${mode} mode: outbound channels are open`,
      dangerous: false,
    };
  const rule = allow.find((r) => outboundAllowed(r, action));
  if (rule) return { verdict: "allow", reason: `allowed by rule ${rule.text}`, dangerous: false };
  const what = action.host ? `${action.tool} to ${action.host}` : action.tool;
  const flag = outboundSuggestion(action);
  return {
    verdict: "ask",
    reason: `${what} is an outbound channel, closed in ${mode} mode unless a rule names ${action.host ? "the host" : "the tool"}: ${flag}`,
    dangerous: false,
    suggestion: `${flag} (or the same rule in permissions.allow of ~/.chatcli/config.json)`,
  };
}

/** The rules among `allow` that open some network tool (for the envelope's `outbound.allow`). */
export function outboundInfo(
  mode: PermissionMode,
  allow: readonly string[],
  networkTools: readonly string[],
): OutboundInfo {
  if (mode === "auto" || mode === "bypass") return { policy: "open", allow: [] };
  return {
    policy: "allowlist",
    allow: allow.filter((text) => networkTools.some((t) => ruleNames(text, t))),
  };
}

function ruleNames(text: string, tool: string): boolean {
  const m = /^\s*([A-Za-z0-9_*@-]+)/.exec(text);
  const glob = m?.[1];
  return glob !== undefined && glob !== "*" && wildcardMatch(glob, tool);
}
