import type { Ctx } from "../core/ctx.ts";
import { stripControl } from "../output/terminal.ts";
import type { AskRequest } from "./approval.ts";

/** Reads one line from a TTY stdin (raw chunks until a newline). */
async function readLine(ctx: Pick<Ctx, "stdin" | "signal">): Promise<string | undefined> {
  const decoder = new TextDecoder();
  let line = "";
  for await (const chunk of ctx.stdin.chunks()) {
    line += decoder.decode(chunk, { stream: true });
    const nl = line.indexOf("\n");
    if (nl >= 0) return line.slice(0, nl).replace(/\r$/, "");
    if (ctx.signal.aborted) return undefined;
  }
  return line || undefined;
}

/**
 * The TTY approval prompt: shows the call, waits for an explicit answer. Enter is "no"; `y`/`yes`
 * allows an ordinary call; a dangerous one needs the whole word `yes` typed.
 */
export function createTtyAsk(ctx: Pick<Ctx, "stdin" | "stderr" | "signal">) {
  return async (req: AskRequest): Promise<boolean> => {
    const head = req.dangerous ? "⚠ dangerous action" : "🔒 permission needed";
    const choices = req.dangerous ? "type yes to run it, anything else skips" : "[y]es / [N]o";
    ctx.stderr.write(
      `\n${head}: ${req.tool} ${stripControl(req.input)}\n  ${stripControl(req.reason)}\n  ${choices}: `,
    );
    const answer = (await readLine(ctx))?.trim().toLowerCase() ?? "";
    if (req.dangerous) return answer === "yes";
    return answer === "y" || answer === "yes";
  };
}
