import type { Envelope } from "./events.ts";
import { stripControl } from "./terminal.ts";

/** The stderr summary of a run's denials, each with the flag that would allow it (CONTRACT §5). */
export function denialSummary(
  denials: ReadonlyArray<
    Pick<Envelope["permission_denials"][number], "tool" | "input" | "reason" | "suggestion">
  >,
): string {
  const lines = denials.map((d) => {
    const suggestion = d.suggestion;
    return `  ${d.tool} ${JSON.stringify(d.input)}: ${d.reason}${suggestion ? ` — ${fixOf(suggestion)}` : ""}`;
  });
  return stripControl(`chatcli: ${denials.length} tool call(s) denied:\n${lines.join("\n")}\n`);
}

/** A flag to add, or a deny rule (a flag or config) to drop. */
function fixOf(suggestion: string): string {
  return suggestion.startsWith("remove the rule")
    ? `${suggestion} (a --deny-tool flag, or "permissions.deny" in .chatcli/config.json or ~/.chatcli/config.json)`
    : `allow with ${suggestion}`;
}
