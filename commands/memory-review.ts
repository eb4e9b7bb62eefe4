import { type Command, Option } from "@commander-js/extra-typings";
import { UsageError } from "../lib/core/errors.ts";
import { acceptHeld, type HeldFact, loadHeld, rejectHeld } from "../lib/memory/review.ts";
import {
  acceptOtherTool,
  loadOtherToolHeld,
  OTHER_TOOL,
  rejectOtherTool,
} from "../lib/memory/review-other.ts";
import type { MemoryCli } from "./memory-edit.ts";

/** `- <id> [category] text` + where it came from and why it is held. */
function heldLines(list: readonly HeldFact[]): string {
  if (list.length === 0) return "No facts are held for review.\n";
  const rows = list.map(
    (h) =>
      `- ${h.id} [${h.category}] ${h.content.replace(/\s+/g, " ")}\n    ${h.source === OTHER_TOOL ? `written by another tool, ${h.held_at.slice(0, 10)}` : `from ${h.source.replace(/^unverified:/, "")}, held ${h.held_at.slice(0, 10)}`}: ${h.reason}`,
  );
  return `Held for review (not known to be the user's own words; never shown to a run until accepted):\n${rows.join("\n")}\n\nAccept: chatcli memory review --accept ID · reject: chatcli memory review --reject ID\n`;
}

/**
 * `chatcli memory review [--accept ID | --reject ID] [--force] [--json]`: the unverified facts that
 * asked the agent to act and were held instead of stored (lib/memory/review.ts).
 */
export function addMemoryReviewCommand(root: Command<[string | undefined]>, cli: MemoryCli): void {
  const { mem, out } = cli;
  root
    .command("review")
    .description(
      "facts held for review (written by the agent, extracted from tool output or written by another tool, and asking it to act): list, --accept ID, --reject ID",
    )
    .option("--accept <id>", "store the held fact as your own (source user:reviewed)")
    .option("--reject <id>", "drop the held fact")
    .option("--force", "accept it even if it reads like a command to run or a permission change")
    .addOption(new Option("--json", "print one JSON document"))
    .action(async (opts) => {
      if (opts.accept && opts.reject)
        throw new UsageError("--accept and --reject are exclusive", {
          hint: "chatcli memory review --accept ID",
        });
      const m = await mem();
      const id = opts.accept ?? opts.reject;
      if (!id) {
        // the queue, then the facts another tool wrote in the index (lib/memory/foreign.ts)
        const list = [...(await loadHeld(m)), ...(await loadOtherToolHeld(m))];
        out(opts, list, () => heldLines(list));
        return;
      }
      let r = opts.accept
        ? await acceptHeld(m, id, { force: opts.force })
        : await rejectHeld(m, id);
      if (r.status === "not_found")
        r = opts.accept
          ? await acceptOtherTool(m, id, { force: opts.force })
          : await rejectOtherTool(m, id);
      if (r.status === "not_found")
        throw new UsageError(`review: no held fact has the id ${JSON.stringify(id)}`, {
          reason: "bad_input",
          hint: "list the held facts and their ids with: chatcli memory review",
        });
      if (r.status === "needs_force")
        throw new UsageError(`refused to accept this fact (${r.reason})`, {
          reason: "bad_input",
          hint: "memory is injected into later prompts; --force accepts it if you mean it",
        });
      const fact = r.fact;
      out(
        opts,
        { status: r.status, id: r.status === "accepted" ? r.id : fact.id, fact },
        r.status === "accepted" ? `Accepted: ${fact.content}\n` : `Rejected: ${fact.content}\n`,
      );
    });
}
