/**
 * `JSON.stringify(value, null, indent)` in pieces, for documents whose bulk is one array (a
 * conversation's messages): the rest of the document is stringified once around a placeholder, and
 * the array's items one at a time, lazily, so the whole text is never held (issue 23). The pieces
 * joined are byte for byte what JSON.stringify returns (tests/unit/history/json-stream.test.ts).
 */

/** A string no conversation contains: where the array goes in the rest of the document. */
const PLACEHOLDER = `\u0000chatcli-array-${Math.random().toString(36).slice(2)}\u0000`;

/** JSON.stringify's gap for a numeric indent (clamped to 10 spaces; none for 0 or undefined). */
function gapOf(indent: number | undefined): string {
  return indent === undefined ? "" : " ".repeat(Math.max(0, Math.min(10, Math.floor(indent))));
}

/** The items of an array at nesting `depth`, as JSON.stringify lays them out. */
function* arrayPieces(items: Iterable<unknown>, gap: string, depth: number): Generator<string> {
  const inner = `\n${gap.repeat(depth + 1)}`;
  let first = true;
  for (const item of items) {
    // an item JSON.stringify cannot represent (undefined, a function) is `null` in an array
    const text = JSON.stringify(item, null, gap) ?? "null";
    const body = gap ? text.replaceAll("\n", inner) : text;
    if (first) yield gap ? `[${inner}${body}` : `[${body}`;
    else yield gap ? `,${inner}${body}` : `,${body}`;
    first = false;
  }
  if (first) yield "[]";
  else yield gap ? `\n${gap.repeat(depth)}]` : "]";
}

/**
 * The pieces of `JSON.stringify(doc, null, indent)` where `doc` is `items` itself (`key`
 * undefined) or an object whose property `key` is the array `items`.
 */
export function* stringifyPieces(
  doc: Record<string, unknown> | undefined,
  key: string | undefined,
  items: Iterable<unknown>,
  indent: number | undefined,
): Generator<string> {
  const gap = gapOf(indent);
  if (doc === undefined || key === undefined) {
    yield* arrayPieces(items, gap, 0);
    return;
  }
  const outer = JSON.stringify({ ...doc, [key]: PLACEHOLDER }, null, gap);
  const mark = JSON.stringify(PLACEHOLDER);
  const at = outer.indexOf(mark);
  if (at < 0 || outer.indexOf(mark, at + 1) >= 0)
    throw new Error("json-stream: no single placeholder");
  yield outer.slice(0, at);
  yield* arrayPieces(items, gap, 1);
  yield outer.slice(at + mark.length);
}
