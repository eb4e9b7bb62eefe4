import type { KnownSecret } from "../core/secrets.ts";
import type { ProtectedPaths } from "./protected-paths.ts";

/** The one permission-mode type (CONTRACT §5). */
export type PermissionMode = "read-only" | "edit" | "auto" | "bypass";

/** The policy of one run (CONTRACT §5): mode, rules (flags + config) and what an unanswerable ask does. */
export interface PermissionPolicy {
  mode: PermissionMode;
  allow: string[];
  deny: string[];
  onAsk: "deny" | "fail";
  workspaceRoot: string;
  cwd: string;
  home?: string;
  /** CHATCLI_AGENT_DENYLIST: `;`-separated regexes that make a command dangerous. */
  denylist?: string;
  /** Paths nothing may read in any mode but bypass (lib/agent/protected-paths.ts). */
  protectedPaths?: ProtectedPaths;
  /** Values no outbound request may carry, in any mode (lib/core/secrets.ts knownSecrets). */
  secrets?: readonly KnownSecret[];
}

/** What kind of action a tool performs; decides the permission column (CONTRACT §5). */
export type ToolKind = "read" | "edit" | "shell" | "network" | "memory";

/**
 * One tool call as the policy sees it: lib/agent builds it from a tool and its arguments
 * (`actionOf`), `chatcli policy check` from a command line. The policy never sees a Tool.
 */
export interface Action {
  /** The tool's name (`run_command`, `write_file`, `mcp__srv__tool` …). */
  tool: string;
  kind: ToolKind;
  /** The text rules match: a path, a command line, a URL. */
  subject: string;
  /** edit: the paths the call writes (default: the subject). */
  writes?: string[];
  /** shell: the command line (empty: a runner chosen at run time, e.g. run_tests). */
  cmd?: string;
  /** shell: the directory it runs in (relative to the policy's cwd). */
  dir?: string;
  /** network: the host the request goes to (web_fetch's URL host), when there is one. */
  host?: string;
  /** network: more of what the call sends (an MCP tool's arguments), checked for secrets. */
  payload?: string;
}

export type Verdict = "allow" | "ask" | "deny";

export interface Decision {
  verdict: Verdict;
  /** Why (shown to the model, on stderr and in permission_denials). */
  reason: string;
  /** Dangerous: on a TTY it needs a typed confirmation; without one it is denied (never --on-ask). */
  dangerous: boolean;
  /** The flag that would allow it, for the stderr summary. */
  suggestion?: string;
  /** Set when bypass lets a write outside the workspace through (warn once). */
  outside?: boolean;
}

export interface Rule {
  /** The tool-name part (`run_command`, `mcp__srv__*`): `*` is a wildcard. */
  tool: { readonly glob: string; test(name: string): boolean };
  arg?: string;
  text: string;
}
