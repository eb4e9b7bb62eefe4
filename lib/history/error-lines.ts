/**
 * Error lines of a long output, kept when compaction cuts its middle: a traceback's last frame and
 * message, `error:` / `FAILED` / `panic:` lines. Bounded, so a log of a million errors stays small.
 */

/** At most this many lines, and this many characters in all, are kept from one omitted middle. */
export const ERROR_KEEP = { lines: 40, chars: 4000, lineMax: 300 } as const;

// What marks a line as reporting a failure: `error:`, `TypeError: …`, `error[E0308]:`, `FAILED`,
// `FAIL `, `panic:`, `fatal:`, pytest's `E   ` lines, `npm ERR!`, `✗`/`✘` test marks. Checked per
// line, only on lines that hold one of NEEDLES (found with indexOf, which is far faster than
// running the alternation over megabytes of output).
const ERROR_LINE =
  /(?:[Ee]rror|ERROR|[Ee]xception|[Ff]atal|FATAL|panic)(?:\[[^\]\n]*\])?:|\bFAILED\b|\bERR!|^FAIL\b|^E {3}|^[ \t]*[✗✘] /;
const NEEDLES = [
  "rror",
  "RROR",
  "xception",
  "atal",
  "ATAL",
  "panic",
  "FAIL",
  "ERR!",
  "E   ",
  "✗",
  "✘",
];
/** Any needle at all: one regex scan (~3× faster than the eleven indexOf passes when none is there). */
const ANY_NEEDLE = /rror|RROR|xception|atal|ATAL|panic|FAIL|ERR!|E {3}|✗|✘/;
/** Lines looked at, at most, in one text (a log of a million errors stays cheap). */
const MAX_CANDIDATES = 4000;
/** Needle hits followed, at most, in one text. */
const MAX_HITS = 200_000;
const TRACEBACK = "Traceback (most recent call last):";

function clip(line: string): string {
  const trimmed = line.replace(/\s+$/, "");
  return trimmed.length > ERROR_KEEP.lineMax
    ? `${trimmed.slice(0, ERROR_KEEP.lineMax - 3)}...`
    : trimmed;
}

/** The last frame (`File "…", line N` + its code line) and the message of each traceback in `text`. */
function tracebackLines(text: string, out: Array<{ at: number; line: string }>): void {
  for (let at = text.indexOf(TRACEBACK); at >= 0; at = text.indexOf(TRACEBACK, at + 1)) {
    let pos = text.indexOf("\n", at);
    let frame: Array<{ at: number; line: string }> = [];
    while (pos >= 0 && pos < text.length) {
      const end = text.indexOf("\n", pos + 1);
      const line = text.slice(pos + 1, end < 0 ? text.length : end);
      if (/^\s+File "/.test(line)) frame = [{ at: pos + 1, line }];
      else if (/^\s/.test(line) && frame.length === 1) frame.push({ at: pos + 1, line });
      else if (!/^\s/.test(line) && line.trim() !== "") {
        // The first unindented line after the frames is the exception and its message.
        out.push(...frame, { at: pos + 1, line });
        break;
      }
      if (end < 0) break;
      pos = end;
    }
  }
}

/** Error lines found in `text`, in order, deduplicated and bounded (ERROR_KEEP). */
export function errorLines(text: string): string[] {
  const found: Array<{ at: number; line: string }> = [];
  const traceback = text.includes(TRACEBACK);
  if (!traceback && !ANY_NEEDLE.test(text)) return [];
  if (traceback) tracebackLines(text, found);
  const candidates = new Set(found.map((f) => clip(f.line)));
  // Line starts holding a needle; a line repeated many times is looked at once (`seenLines`).
  const starts = new Map<number, string>();
  const seenLines = new Set<string>();
  let hits = 0;
  for (const needle of NEEDLES) {
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) {
      if (++hits > MAX_HITS) break;
      const start = text.lastIndexOf("\n", at) + 1;
      const nl = text.indexOf("\n", at);
      const end = nl < 0 ? text.length : nl;
      if (!starts.has(start)) {
        const line = text.slice(start, Math.min(end, start + 2000));
        if (!seenLines.has(line)) {
          seenLines.add(line);
          starts.set(start, line);
          if (starts.size >= MAX_CANDIDATES) break;
        }
      }
      // one look per line and needle: go on after the end of this line
      if (nl < 0) break;
      at = nl - needle.length + 1;
    }
  }
  for (const start of [...starts.keys()].sort((a, b) => a - b)) {
    const line = starts.get(start) as string;
    if (!ERROR_LINE.test(line)) continue;
    const kept = clip(line);
    if (candidates.has(kept)) continue;
    candidates.add(kept);
    found.push({ at: start, line: kept });
    if (candidates.size > ERROR_KEEP.lines * 2) break;
  }
  if (found.length === 0) return [];
  found.sort((a, b) => a.at - b.at);
  const seen = new Set<string>();
  const lines: string[] = [];
  let chars = 0;
  for (const { line } of found) {
    const kept = clip(line);
    if (kept.trim() === "" || seen.has(kept)) continue;
    seen.add(kept);
    if (lines.length >= ERROR_KEEP.lines || chars + kept.length > ERROR_KEEP.chars) break;
    lines.push(kept);
    chars += kept.length + 1;
  }
  return lines;
}

/** `… [N chars omitted] …`, then the error lines of the omitted part, if any. */
export function omissionNote(omitted: string, label: string): string {
  const errors = errorLines(omitted);
  if (errors.length === 0) return `... [${omitted.length} ${label}] ...`;
  return `... [${omitted.length} ${label}; ${errors.length} error line${errors.length === 1 ? "" : "s"} from them kept below] ...\n${errors.join("\n")}\n...`;
}
