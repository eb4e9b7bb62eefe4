import { goTrimSpace } from "../core/gostrings.ts";
import { CATEGORIES, type Category } from "./config.ts";

const WORD_RUN = /[\p{L}\p{N}]+/gu;

/** Lower-cased Unicode letter/digit runs. */
export function wordRuns(text: string): string[] {
  return text.toLowerCase().match(WORD_RUN) ?? [];
}

const RECONCILE_STOP = new Set(
  "the a an and or of to for in on with via is are was uses use user de da do para com que em no na usa usuario".split(
    " ",
  ),
);

/** §2.4 significant tokens: runs of ≥3 runes minus the reconcile stop words, in order. */
export function significantTokens(text: string): string[] {
  return wordRuns(text).filter((t) => [...t].length >= 3 && !RECONCILE_STOP.has(t));
}

/** Jaccard similarity of two token lists (as sets). */
export function jaccard(a: readonly string[], b: readonly string[]): number {
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size === 0 && sb.size === 0) return 1;
  let inter = 0;
  for (const t of sa) if (sb.has(t)) inter++;
  return inter / (sa.size + sb.size - inter);
}

/** Two facts share a subject when their first min(2, len) significant tokens are equal, in order. */
export function sameSubject(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(2, a.length, b.length);
  if (n === 0) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** English + Portuguese stop words for keyword hints (§2.13) and the retriever. */
export const STOP_WORDS = new Set(
  (
    "the a an is are was were be been being have has had do does did will would could should may might can " +
    "this that these those i you he she it we they me him her us them my your his its our their what which " +
    "who whom where when why how not no nor but and or so if then than too very just don't about with from " +
    "into for on in at to of by up out as " +
    "os um uma de da das dos em na nas nos com por para ou que se mas como mais qual quando onde quem sim " +
    "aqui ali isso isto esse esta eu tu ele ela eles voce você meu seu sua o e é ao aos às pelo pela"
  ).split(" "),
);

const HINT_TRIM = /^[.,;:!?"'`()[\]{}#*\-_/\\<>]+|[.,;:!?"'`()[\]{}#*\-_/\\<>]+$/g;

/** §2.13 keyword hints: frequency-ranked words of ≥3 runes, stop words dropped, top 20. */
export function extractKeywords(texts: readonly string[], limit = 20): string[] {
  const counts = new Map<string, number>();
  for (const text of texts) {
    for (const raw of text.toLowerCase().split(/\s+/)) {
      const word = raw.replace(HINT_TRIM, "");
      if ([...word].length < 3 || STOP_WORDS.has(word)) continue;
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, limit)
    .map(([w]) => w);
}

/** A leading `[category]` (known category, any case) split off; unknown tags stay in the content. */
export function splitCategoryPrefix(line: string): { category?: Category; content: string } {
  const m = /^\s*\[([^\]]+)\]\s*/.exec(line);
  if (m) {
    const cat = (m[1] as string).trim().toLowerCase();
    if ((CATEGORIES as readonly string[]).includes(cat)) {
      return { category: cat as Category, content: goTrimSpace(line.slice(m[0].length)) };
    }
  }
  return { content: goTrimSpace(line) };
}

const CLASSIFY: ReadonlyArray<[Category, readonly string[]]> = [
  [
    "preference",
    [
      "i prefer",
      "prefers",
      "prefiro",
      "preference",
      "always use",
      "never use",
      "communication style",
      "estilo de",
    ],
  ],
  [
    "personal",
    [
      "my name is",
      "meu nome",
      "i am a",
      "i'm a",
      "sou ",
      "certification",
      "certified",
      "certificaç",
      "certificado",
      "skill",
      "expertise",
      "i work as",
      "trabalho como",
    ],
  ],
  [
    "architecture",
    ["architecture", "arquitetura", "design decision", "system design", "module structure"],
  ],
  ["pattern", ["convention", "idiom", "best practice", "pattern", "padrão", "padrao"]],
  [
    "gotcha",
    ["gotcha", "pitfall", "workaround", "caveat", "bug ", "fails when", "broken", " error"],
  ],
  ["project", ["project", "projeto", "repository", "repo ", "codebase", "/users/"]],
];

/** §2.7 classifyFactContent: first matching category by lowercased substring, else general. */
export function classifyFactContent(text: string): Category {
  const lower = text.toLowerCase();
  for (const [cat, needles] of CLASSIFY) if (needles.some((n) => lower.includes(n))) return cat;
  return "general";
}

/** §2.7 detectCategory for a markdown heading. */
export function detectCategory(header: string): Category {
  const h = header.replace(/^[#\s]+/, "").toLowerCase();
  const has = (...xs: string[]) => xs.some((x) => h.includes(x));
  if (has("architecture", "arquitetura")) return "architecture";
  if (has("pattern", "padr")) return "pattern";
  if (has("preference", "preferenc")) return "preference";
  if (has("gotcha", "caveat", "pitfall")) return "gotcha";
  if (has("project", "projeto")) return "project";
  if (has("personal", "user", "pessoal")) return "personal";
  if (has("error", "bug", "fix")) return "gotcha";
  return "general";
}

const TAGS: ReadonlyArray<[string, string]> = [
  ["go ", "go"],
  ["golang", "go"],
  ["python", "python"],
  ["react", "react"],
  ["docker", "docker"],
  ["k8s", "kubernetes"],
  ["kubernetes", "kubernetes"],
  ["aws", "aws"],
  ["gcp", "gcp"],
  ["sql", "sql"],
  ["api", "api"],
  ["rest", "api"],
  ["grpc", "grpc"],
  ["git", "git"],
  ["ci/cd", "cicd"],
  ["test", "testing"],
  ["bubble tea", "bubbletea"],
  ["bubbletea", "bubbletea"],
  ["tui", "tui"],
  ["cli", "cli"],
  ["oauth", "auth"],
  ["auth", "auth"],
  ["memory", "memory"],
  ["plugin", "plugin"],
  ["llm", "llm"],
  ["openai", "openai"],
  ["claude", "claude"],
  ["gemini", "gemini"],
];

/** §2.7 extractTags, in a fixed order (Go's is random). */
export function extractTags(text: string): string[] {
  const lower = text.toLowerCase();
  const out: string[] = [];
  for (const [needle, tag] of TAGS) if (lower.includes(needle) && !out.includes(tag)) out.push(tag);
  return out;
}

/** Go's len(): UTF-8 byte length. */
export function byteLen(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Cuts to at most `max` UTF-8 bytes without splitting a character. */
export function cutBytes(text: string, max: number): string {
  if (byteLen(text) <= max) return text;
  const buf = Buffer.from(text, "utf8").subarray(0, max);
  return buf.toString("utf8").replace(/\uFFFD$/, "");
}
