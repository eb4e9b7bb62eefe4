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
}
