/**
 * Go's `strings.TrimSpace` and `strings.ToLower`, for values both tools must compute alike (fact ids
 * are a hash of `ToLower(TrimSpace(content))`). JS differs from Go on both:
 * - Go trims `unicode.IsSpace` runes: \t \n \v \f \r space U+0085 U+00A0 and the other White_Space
 *   runes (U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000). JS `trim` also removes
 *   U+FEFF (a byte-order mark Go keeps) and does not remove U+0085 (NEL, which Go trims).
 * - Go lower-cases rune by rune with the simple mappings of UnicodeData: "Σ" is always "σ" (JS writes
 *   "ς" at the end of a word) and "İ" (U+0130) is "i" (JS writes "i̇", i + U+0307).
 */
const GO_SPACE =
  "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const EDGES = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, "g");
const SPACE = new RegExp(`^[${GO_SPACE}]$`);

/** `strings.TrimSpace`. */
export function goTrimSpace(s: string): string {
  return s.replace(EDGES, "");
}

/** `unicode.IsSpace` of one character. */
export function goIsSpace(ch: string): boolean {
  return SPACE.test(ch);
}

/** `strings.ToLower`: simple per-rune mappings, no context (final sigma) and no expansion (İ). */
export function goToLower(s: string): string {
  // Outside these two, JS's full lower-casing of a string equals the per-rune simple mapping.
  if (!/[\u0130\u03a3]/.test(s)) return s.toLowerCase();
  return s
    .replace(/\u0130/g, "i")
    .replace(/\u03a3/g, "\u03c3")
    .toLowerCase();
}
