import type { Ctx, Sink } from "../lib/core/ctx.ts";
import { type ColorChoice, shouldColor, style } from "../lib/output/terminal.ts";

/**
 * `--color` on ask/agent/coder: stderr's diagnostics are coloured when it is decided for stderr
 * (`always`, or `auto` on a terminal / FORCE_COLOR): warnings yellow, errors red, hints and progress
 * dim. stdout — the answer or the JSON — is never coloured (CONTRACT §9: decided per stream; the
 * answer is data).
 */
export function withColoredStderr(ctx: Ctx, choice: ColorChoice | undefined): Ctx {
  if (!shouldColor(ctx.stderr, ctx.env, choice ?? "auto")) return ctx;
  return { ...ctx, stderr: coloredSink(ctx.stderr) };
}

/** Colours each line a sink gets by how it starts (`chatcli: warning:`, `chatcli:`, `hint:`, `▸`). */
export function coloredSink(sink: Sink): Sink {
  const s = style(true);
  const paint = (line: string): string => {
    if (line === "") return line;
    if (line.startsWith("chatcli: warning:") || line.startsWith("warning:")) return s.yellow(line);
    if (line.startsWith("chatcli: ")) return s.red(line);
    if (line.startsWith("hint: ") || /^\s*[▸🗜📦🧹🧠✂✓⚠]/u.test(line)) return s.dim(line);
    return line;
  };
  return {
    ...sink,
    isTTY: sink.isTTY,
    get columns() {
      return sink.columns;
    },
    get rows() {
      return sink.rows;
    },
    write: (text: string) => sink.write(text.split("\n").map(paint).join("\n")),
  };
}
