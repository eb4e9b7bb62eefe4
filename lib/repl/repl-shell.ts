import { askApproval, askYesNo } from "./menu.ts";
import type { ReplHost as Repl } from "./repl-host.ts";
import { CommandTicker } from "./ticker.ts";

/**
 * `!command`: runs it (policy + sandbox, Esc stops it), shows its output, and offers it as context
 * for the next message.
 */
export async function runShellCommand(repl: Repl, command: string): Promise<void> {
  const services = repl.services;
  if (!services.shell) return;
  const ticker = new CommandTicker(repl.screen, repl.style, repl.ctx.now);
  ticker.start(command);
  let stopped: AbortSignal | undefined;
  const result = await repl.cancellable((signal, { pause }) => {
    stopped = signal;
    return (services.shell as NonNullable<typeof services.shell>).call(services, command, signal, {
      onNotice: (line) => {
        ticker.stop();
        repl.say(repl.style.dim(line));
      },
      confirmDangerous: async (reason) => {
        ticker.stop();
        const answer = await pause(() =>
          askApproval(
            repl.keys,
            repl.screen,
            { tool: "!", summary: command, detail: `(${reason})`, dangerous: true },
            repl.menuOptions(),
          ),
        );
        return answer === "yes";
      },
    });
  });
  ticker.stop();
  if (!result.ok) return repl.reportFailure(result, `!${command}`);
  // Esc / Ctrl+C stopped it: its partial output is not offered as context
  if (stopped?.aborted) return repl.say(repl.style.yellow(`🛑 !${command} stopped`));
  const { denied, output, exitCode } = result.value;
  if (denied) return repl.say(repl.style.red(`✗ not run: ${denied}`));
  const lines = output.replace(/\n$/, "").split("\n");
  const shown =
    lines.length > 200 ? [...lines.slice(0, 200), `… ${lines.length - 200} more lines`] : lines;
  if (output.trim()) repl.say(shown.join("\n"));
  repl.say(repl.style.dim(`(exit ${exitCode ?? "?"})`));
  if (!output.trim()) return;
  const keep = await askYesNo(
    repl.keys,
    repl.screen,
    "Send this output with your next message?",
    repl.menuOptions(),
  );
  if (keep)
    repl.pendingContext.push(
      `<shell command="${command.replace(/"/g, "&quot;")}" exit="${exitCode ?? ""}">\n${output.replace(/\n?$/, "\n")}</shell>`,
    );
}
