import { visibleWidth } from "./layout.ts";

/** Whether a line belongs to a markdown table (`| a | b |`). */
export function isTableLine(line: string): boolean {
  return line.trimStart().startsWith("|");
}

const SEPARATOR = /^\s*:?-{1,}:?\s*$/;

/** Splits `| a | b |` into trimmed cells (a `\|` stays in its cell). */
function cells(line: string): string[] {
  let t = line.trim();
  if (t.startsWith("|")) t = t.slice(1);
  if (t.endsWith("|") && !t.endsWith("\\|")) t = t.slice(0, -1);
  return t.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

/** Cuts `text` into lines of at most `width` columns, at spaces where it can. */
function wrap(text: string, width: number): string[] {
  if (visibleWidth(text) <= width) return [text];
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/ +/)) {
    let rest = word;
    while (visibleWidth(rest) > width) {
      // a word longer than the cell: hard cut
      if (line) {
        lines.push(line);
        line = "";
      }
      const chars = Array.from(rest);
      let cut = "";
      while (chars.length > 0 && visibleWidth(cut + chars[0]) <= width) cut += chars.shift();
      lines.push(cut);
      rest = chars.join("");
    }
    const candidate = line ? `${line} ${rest}` : rest;
    if (visibleWidth(candidate) <= width) line = candidate;
    else {
      lines.push(line);
      line = rest;
    }
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

/** Narrows the widest columns until the table (borders included) fits `columns`. */
function fitWidths(widths: number[], columns: number): number[] {
  const fitted = [...widths];
  const total = () => fitted.reduce((a, b) => a + b, 0) + 3 * fitted.length + 1;
  while (total() > columns) {
    const widest = fitted.indexOf(Math.max(...fitted));
    if ((fitted[widest] ?? 0) <= 3) break;
    fitted[widest] = (fitted[widest] ?? 0) - 1;
  }
  return fitted;
}

/**
 * A markdown table drawn with box-drawing characters: columns aligned (`:--:` / `--:` honoured),
 * cells wrapped at word boundaries when the table is wider than the terminal. `format` renders a
 * cell's inline markup (bold, code); widths are measured on what it returns.
 */
export function renderTable(
  lines: readonly string[],
  columns: number,
  format: (text: string) => string,
): string {
  const rows = lines.map(cells);
  const sepIndex = rows.findIndex((r) => r.length > 0 && r.every((c) => SEPARATOR.test(c)));
  const align = sepIndex >= 0 ? (rows[sepIndex] as string[]).map(alignment) : [];
  const body = rows.filter((_, i) => i !== sepIndex).map((r) => r.map(format));
  const count = Math.max(...body.map((r) => r.length));
  const natural = Array.from({ length: count }, (_, c) =>
    Math.max(1, ...body.map((r) => visibleWidth(r[c] ?? ""))),
  );
  const widths = fitWidths(natural, Math.max(columns, 20));
  const rule = (l: string, m: string, r: string) =>
    `${l}${widths.map((w) => "─".repeat(w + 2)).join(m)}${r}`;
  const out = [rule("┌", "┬", "┐")];
  body.forEach((row, index) => {
    const wrapped = widths.map((w, c) => wrap(row[c] ?? "", w));
    const height = Math.max(...wrapped.map((w) => w.length));
    for (let line = 0; line < height; line++) {
      const parts = widths.map((w, c) => pad(wrapped[c]?.[line] ?? "", w, align[c] ?? "left"));
      out.push(`│ ${parts.join(" │ ")} │`);
    }
    if (index === 0 && sepIndex === 1 && body.length > 1) out.push(rule("├", "┼", "┤"));
  });
  out.push(rule("└", "┴", "┘"));
  return `${out.join("\n")}\n`;
}

type Align = "left" | "right" | "center";

function alignment(cell: string): Align {
  const t = cell.trim();
  if (t.startsWith(":") && t.endsWith(":")) return "center";
  if (t.endsWith(":")) return "right";
  return "left";
}

function pad(text: string, width: number, align: Align): string {
  const gap = Math.max(0, width - visibleWidth(text));
  if (align === "right") return " ".repeat(gap) + text;
  if (align === "center") {
    const left = Math.floor(gap / 2);
    return " ".repeat(left) + text + " ".repeat(gap - left);
  }
  return text + " ".repeat(gap);
}
