import type { Ctx } from "../core/ctx.ts";
import { stripControl } from "../output/terminal.ts";
import type { AskRequest } from "./approval.ts";

type TtyIo = Pick<Ctx, "stdin" | "stderr" | "signal">;

/**
 * Reads lines from stdin through ONE iterator kept for the whole run: leaving a `for await` early
 * would destroy the stream, and every later prompt would then decline at once without waiting.
 * A read ends (undefined) when the run is aborted or stdin closes.
 */
function lineReader(ctx: Pick<Ctx, "stdin" | "signal">) {
  const decoder = new TextDecoder();
  let iterator: AsyncIterator<Uint8Array> | undefined;
  let pending: Promise<IteratorResult<Uint8Array>> | undefined;
  let buffer = "";
  let ended = false;

  const nextChunk = async (): Promise<Uint8Array | undefined> => {
    if (ended || ctx.signal.aborted) return undefined;
    iterator ??= ctx.stdin.chunks()[Symbol.asyncIterator]();
    pending ??= iterator.next();
    let onAbort = () => {};
    const aborted = new Promise<"aborted">((resolve) => {
      onAbort = () => resolve("aborted");
      ctx.signal.addEventListener("abort", onAbort, { once: true });
    });
    const result = await Promise.race([pending, aborted]);
    ctx.signal.removeEventListener("abort", onAbort);
    if (result === "aborted") {
      // Release stdin: a read left pending would keep the process alive after the run ends.
      ended = true;
      void iterator.return?.()?.catch(() => {});
      return undefined;
    }
    pending = undefined;
    if (result.done) {
      ended = true;
      return undefined;
    }
    return result.value;
  };

  return {
    /** Drops input typed before the prompt appeared (a stray `y` is not an answer). */
    discard(): void {
      buffer = "";
    },
    async read(): Promise<string | undefined> {
      for (;;) {
        const nl = buffer.indexOf("\n");
        if (nl >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, "");
          buffer = buffer.slice(nl + 1);
          return line;
        }
        const chunk = await nextChunk();
        if (!chunk) {
          const rest = buffer;
          buffer = "";
          return rest || undefined;
        }
        buffer += decoder.decode(chunk, { stream: true });
      }
    },
  };
}

/**
 * The TTY approval prompt: shows the call, waits for an explicit answer. Enter is "no"; `y`/`yes`
 * allows an ordinary call; a dangerous one needs the whole word `yes` typed.
 */
export function createTtyAsk(ctx: TtyIo) {
  const lines = lineReader(ctx);
  const ask = async (req: AskRequest): Promise<boolean> => {
    const head = req.dangerous ? "⚠ dangerous action" : "🔒 permission needed";
    const choices = req.dangerous ? "type yes to run it, anything else skips" : "[y]es / [N]o";
    lines.discard();
    ctx.stderr.write(
      `\n${head}: ${req.tool} ${stripControl(req.input)}\n  ${stripControl(req.reason)}\n  ${choices}: `,
    );
    const answer = (await lines.read())?.trim().toLowerCase() ?? "";
    if (req.dangerous) return answer === "yes";
    return answer === "y" || answer === "yes";
  };
  /** The one-time workspace-trust question (remembered by the caller when answered yes). */
  const trust = async (q: {
    workspace: string;
    ignored: Array<{ file: string; key: string }>;
  }): Promise<boolean> => {
    lines.discard();
    const keys = q.ignored.map((i) => `${i.key} (${i.file})`).slice(0, 8);
    ctx.stderr.write(
      `\n🔒 untrusted workspace: ${stripControl(q.workspace)}\n  its files set: ${stripControl(keys.join(", "))}${q.ignored.length > keys.length ? ", …" : ""}\n  they can change permissions, providers, endpoints or keys. Trust this workspace (remembered in ~/.chatcli/config.json)? [y/N]: `,
    );
    const answer = (await lines.read())?.trim().toLowerCase() ?? "";
    return answer === "y" || answer === "yes";
  };
  return Object.assign(ask, { trust });
}
