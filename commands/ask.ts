import { Command } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import type { RunState } from "./_shared.ts";

export function askCommand(_ctx: Ctx, _state: RunState) {
  return new Command("ask");
}
