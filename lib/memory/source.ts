/**
 * Whose word a fact is (issue 20, allowlist): a fact is the user's only when it comes from what the
 * user typed or named — `memory remember`, `memory import FILE`, a user turn that supports it.
 * Everything else (the model's memory tool, extraction of what the assistant or a tool said, an MCP
 * client) is unverified: `source: "unverified:<origin>"` in Go's `source` field. Unverified facts
 * that ask the agent to act are held for review (lib/memory/review.ts); descriptive ones are
 * injected only inside a fenced block of notes marked as data.
 *
 * This file judges a fact by its `source` field alone, which is all that reading and listing facts
 * need; judging its text (lib/memory/trust.ts) loads the threat scan and word lists, which a
 * `memory facts` would otherwise pay for at every start (issue 23).
 */

/** The prefix of an unverified fact's `source`. */
export const UNVERIFIED = "unverified:";

/**
 * Whether a fact's `source` is the user's: none (Go never writes one; `memory remember`), `user`,
 * or `user:<how>` (`user:reviewed`). Older chatcli marks (`tool:…`, `agent`, `mcp:…`) are not.
 */
export function isUserSource(source: unknown): boolean {
  if (source === undefined || source === null || source === "") return true;
  return typeof source === "string" && (source === "user" || source.startsWith("user:"));
}

/** `unverified:<origin>` for an origin (`tool:web_fetch`, `agent`, `mcp:client`), idempotent. */
export function unverifiedSource(origin: string): string {
  return origin.startsWith(UNVERIFIED) ? origin : `${UNVERIFIED}${origin || "agent"}`;
}
