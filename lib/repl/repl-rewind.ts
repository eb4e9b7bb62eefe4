import type { ChatMessage } from "../llm/types.ts";
import { chooseCheckpoint, chooseOne, clockTime } from "./menu.ts";
import type { ReplHost as Repl } from "./repl-host.ts";
import type { RewindFile, RewindScopeChoice } from "./services.ts";

/** Opens the rewind menu and restores the chosen checkpoint. */
export async function openRewindMenu(repl: Repl): Promise<void> {
  const items = repl.services.listCheckpoints();
  if (items.length === 0) {
    repl.say("No checkpoints available yet.");
    return;
  }
  const choice = await chooseCheckpoint(repl.keys, repl.screen, items, repl.menuOptions());
  if (choice.kind === "cancelled") return repl.say("Rewind cancelled.");
  if (choice.kind === "invalid") return repl.say("Invalid selection.");
  try {
    const files = (await repl.services.rewindFiles?.(choice.index)) ?? [];
    const scope = files.length === 0 ? "conversation" : await rewindScope(repl, files);
    if (scope === "cancel") return repl.say("Rewind cancelled.");
    const cp = await repl.services.rewind(choice.index, scope);
    const what =
      scope === "code"
        ? `the code only, ${files.length} file(s) restored`
        : scope === "both"
          ? `${cp.messages} messages, ${files.length} file(s) restored`
          : `${cp.messages} messages`;
    repl.say(
      repl.style.green(
        `↩ Rewound to checkpoint [${choice.index}] (${clockTime(cp.time)}, ${what})`,
      ),
    );
    // what was typed then goes back in the input, to edit and send again (as Claude Code)
    if (cp.prompt) repl.nextDraft = cp.prompt;
    await repl.updateStatus();
  } catch (error) {
    repl.say(repl.style.red(`Rewind failed: ${(error as Error).message}`));
  }
}

/** Tools changed files since the checkpoint: restore the conversation, the code, or both? */
async function rewindScope(
  repl: Repl,
  files: readonly RewindFile[],
): Promise<RewindScopeChoice | "cancel"> {
  repl.say("Tools changed files since this checkpoint; a code rewind would do this:");
  for (const f of files.slice(0, 8)) {
    repl.say(
      `  ${f.change.padEnd(8)} ${f.path}${f.conflict ? repl.style.yellow("  (edited since)") : ""}`,
    );
  }
  if (files.length > 8) repl.say(`  … ${files.length - 8} more`);
  return chooseOne(repl.keys, repl.screen, "Restore (c)onversation, co(d)e or (b)oth? ", {
    color: repl.options.color,
    signal: repl.ctx.signal,
    choices: { c: "conversation", d: "code", b: "both" },
    nag: "(type c, d or b; Esc cancels) ",
  });
}

/**
 * What was typed at the turn a rewind went back to, for the input line: a slash command's own line
 * (`/agent …`, `/compact …`), else the first user message the rewind dropped (in full, several
 * lines too), else the checkpoint's label when it is not cut short.
 */
export function rewoundPrompt(
  before: readonly ChatMessage[],
  after: readonly ChatMessage[],
  label: string,
): string | undefined {
  const whole = !(label.length === 60 && label.endsWith("...")) && label !== "(start)";
  if (label.startsWith("/")) return whole ? label : undefined;
  const prefix = after.every(
    (m, i) => before[i]?.role === m.role && before[i]?.content === m.content,
  );
  const dropped = prefix
    ? before.slice(after.length).find((m) => m.role === "user")?.content
    : undefined;
  return dropped ?? (whole ? label : undefined);
}
