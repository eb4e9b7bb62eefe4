import type { Ctx } from "../lib/core/ctx.ts";
import type { RunState } from "./_shared.ts";
import { buildAgentLikeCommand } from "./agent.ts";

/** `chatcli coder [TASK…]` — the same loop with the file-editing tools and the coder prompt. */
export function coderCommand(ctx: Ctx, state: RunState) {
  return buildAgentLikeCommand(
    "coder",
    "edit code in the workspace with the file tools (never re-routed to chat)",
    ctx,
    state,
  );
}
