import type { Action } from "../policy/permissions.ts";
import type { Tool } from "./types.ts";

/** A tool call as the policy judges it (lib/policy never sees a Tool or its arguments). */
export function actionOf(tool: Tool, args: Record<string, unknown>): Action {
  const action: Action = { tool: tool.name, kind: tool.kind, subject: tool.subject(args) };
  if (tool.outbound) action.outbound = true;
  if (tool.kind === "edit") {
    const writes = tool.writes?.(args);
    if (writes) action.writes = writes;
  }
  if (tool.kind === "shell") {
    if (typeof args["cmd"] === "string") action.cmd = args["cmd"];
    if (typeof args["dir"] === "string") action.dir = args["dir"];
  }
  return action;
}
