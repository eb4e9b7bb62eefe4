/**
 * Whether a run that ended with a final answer did any of the work it tried (CONTRACT §3, docs/contract.md):
 * a run whose every edit and command was denied is `blocked`; one whose shell commands could not run —
 * refused for want of an OS sandbox, or failing for want of network inside it — is `tools_unavailable`.
 * Both exit 6: CI must notice a run that "succeeded" without running the tests.
 */
import { ChatcliError } from "../core/errors.ts";
import type { PermissionMode, ToolKind } from "../policy/permissions.ts";

/** One finished tool call, as the loop's `tool.completed` event reports it. */
export interface CallRecord {
  kind: ToolKind | undefined;
  status: "ok" | "error" | "denied";
  output: string;
}

export interface OutcomeContext {
  mode: PermissionMode;
  /** The sandbox's refusal line when shell tools cannot run (`--sandbox auto`, no sandbox). */
  shellRefusal?: string;
  /** Whether child processes run confined with the network off. */
  networkOff: boolean;
  /** The first denial's suggested flag (`--permission-mode edit`, `--allow-tool …`). */
  suggestion?: string;
}

/**
 * What a command prints when it needed the network (DNS, connect) and the sandbox had none, or the
 * allowlist's proxy refused the host (its `[network]` line, lib/sandbox/net-run.ts).
 */
const NO_NETWORK =
  /\b(?:EAI_AGAIN|ENOTFOUND|ENETUNREACH)\b|Could not resolve host|Temporary failure in name resolution|Name or service not known|Network is unreachable|getaddrinfo|^network: denied /im;

const ACTIONS: ReadonlySet<ToolKind> = new Set(["edit", "shell", "network"]);

/** The error that turns a finished run into `blocked` / `tools_unavailable`, or undefined. */
export function incompleteRun(
  calls: readonly CallRecord[],
  context: OutcomeContext,
): ChatcliError | undefined {
  const shell = calls.filter((c) => c.kind === "shell");
  const refused = shell.filter(
    (c) => c.status === "denied" && context.shellRefusal && c.output.includes(context.shellRefusal),
  );
  const offline = shell.filter(
    (c) => c.status === "error" && context.networkOff && NO_NETWORK.test(c.output),
  );
  const denied = shell.filter((c) => c.status === "denied" && !refused.includes(c));
  const ran = shell.length - refused.length - offline.length - denied.length;
  if (shell.length > 0 && ran === 0 && refused.length + offline.length > 0) {
    const parts = [
      refused.length ? `${refused.length} refused: no OS sandbox` : "",
      offline.length ? `${offline.length} failed for want of network inside the sandbox` : "",
      denied.length ? `${denied.length} denied by the permission policy` : "",
    ].filter(Boolean);
    const hints = [
      refused.length
        ? "install bubblewrap (and on Ubuntu 24.04 its AppArmor profile; see docs/security.md), or pass --sandbox off to run commands unconfined"
        : "",
      offline.length
        ? "install dependencies before the agent step, or name the hosts they come from: --allow-network HOST (e.g. registry.npmjs.org)"
        : "",
    ].filter(Boolean);
    return new ChatcliError(
      "tools_unavailable",
      `no shell command the model asked for could run (${parts.join(", ")})`,
      { hint: hints.join("; ") },
    );
  }
  const actions = calls.filter((c) => c.kind !== undefined && ACTIONS.has(c.kind));
  if (actions.length > 0 && actions.every((c) => c.status === "denied")) {
    const n = actions.length;
    return new ChatcliError(
      "blocked",
      `every edit and command the model tried was denied (${n} call${n === 1 ? "" : "s"} in ${context.mode} mode): nothing was changed or run`,
      {
        hint: `allow what the task needs${context.suggestion ? `, e.g. ${context.suggestion}` : ""} (see permission_denials); --permission-mode edit lets it edit the workspace`,
      },
    );
  }
  return undefined;
}
