import { Command } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { ChatcliError } from "../lib/core/errors.ts";
import type { RunState } from "./_shared.ts";

/** `chatcli compact` — placeholder until its issue lands. */
export function compactCommand(_ctx: Ctx, _state: RunState) {
  return new Command("compact")
    .description("(not implemented yet)")
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      throw new ChatcliError("usage_error", "chatcli compact is not implemented yet");
    });
}
