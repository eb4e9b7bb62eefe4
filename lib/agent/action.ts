import { urlHost } from "../policy/outbound.ts";
import { type Action, decide, type PermissionPolicy } from "../policy/permissions.ts";
import type { Tool } from "./types.ts";

/** Every string inside a tool's arguments, one per line (what a network call could send). */
function stringLeaves(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringLeaves(v, out);
  else if (value && typeof value === "object")
    for (const v of Object.values(value)) stringLeaves(v, out);
  return out;
}

/** A tool call as the policy judges it (lib/policy never sees a Tool or its arguments). */
export function actionOf(tool: Tool, args: Record<string, unknown>): Action {
  const action: Action = { tool: tool.name, kind: tool.kind, subject: tool.subject(args) };
  if (tool.kind === "edit") {
    const writes = tool.writes?.(args);
    if (writes) action.writes = writes;
  }
  if (tool.kind === "shell") {
    if (typeof args["cmd"] === "string") action.cmd = args["cmd"];
    if (typeof args["dir"] === "string") action.dir = args["dir"];
  }
  if (tool.kind === "network") {
    // the host a rule must name: the tool's own (an MCP server's), else the URL's it fetches
    const host = tool.host ? tool.host(args) : urlHost(action.subject);
    if (host) action.host = host;
    action.payload = stringLeaves(args).join("\n");
  }
  return action;
}

/**
 * The check a network tool applies to every URL it requests after the call was allowed — each
 * redirect hop is judged by the same rule as the first URL (a host the rules do not name, a secret
 * in the query). A hop that would need a human's yes is refused: nobody is asked mid-request.
 */
export function outboundCheck(
  policy: PermissionPolicy,
): (tool: string, url: string) => string | undefined {
  return (tool, url) => {
    const host = urlHost(url);
    const action: Action = { tool, kind: "network", subject: url, payload: url };
    if (host) action.host = host;
    const d = decide(policy, action);
    if (d.verdict === "allow") return undefined;
    return d.suggestion && !d.reason.includes(d.suggestion)
      ? `${d.reason} (${d.suggestion})`
      : d.reason;
  };
}
