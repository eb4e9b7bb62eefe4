/** Default cap of one tool result and of all results of one turn (ChatCLI's defaults). */
export const RESULT_MAX_CHARS = 20_000;
export const TURN_BUDGET_CHARS = 200_000;

/** Keeps the head and tail of a long text with a marker naming what was cut. */
export function capText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const keep = Math.max(0, max - 80);
  const headLen = Math.ceil(keep * 0.7);
  const tailLen = keep - headLen;
  const omitted = text.length - headLen - tailLen;
  const head = text.slice(0, headLen);
  const tail = tailLen > 0 ? text.slice(text.length - tailLen) : "";
  return {
    text: `${head}\n[... ${omitted} chars omitted (output capped at ${max} chars) ...]\n${tail}`,
    truncated: true,
  };
}

/** Caps each result, then shares the turn budget across the batch in order. */
export function capBatch(outputs: string[], perResult: number, perTurn: number): string[] {
  let remaining = perTurn;
  return outputs.map((raw, i) => {
    const fair = Math.max(1000, Math.floor(remaining / (outputs.length - i)));
    const limit = Math.min(perResult, Math.max(fair, remaining));
    const capped = capText(raw, Math.max(200, limit)).text;
    remaining = Math.max(0, remaining - capped.length);
    return capped;
  });
}
