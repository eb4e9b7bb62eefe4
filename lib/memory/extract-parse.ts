import type { ChatMessage } from "../llm/types.ts";
import { classifyFactContent, splitCategoryPrefix } from "./text.ts";

/** The extraction instructions (reference §2.18, in our own words; headers are the contract). */
export const EXTRACTION_INSTRUCTIONS = `You are a memory annotation system. Read the conversation segment below and record only what is worth remembering. Use EXACTLY these section headers:

## DAILY
A short bullet log of what happened: files touched (exact paths), commands run and their outcome, errors and how they were resolved, tasks done or pending.

## LONGTERM
Only genuinely new, durable facts. One per line, each tagged with its category:
- [category] fact
Categories: architecture, pattern, preference, gotcha, project, personal, general.

## PROFILE_UPDATE
KEY=VALUE lines about the user. Known keys: name, role, expertise_level, preferred_language, communication_style, company, location, certifications, skills, goals, interests, directives, milestone, stance, env_<key>; any other key is kept as a preference. Goal lifecycle: goals_done, goals_remove, goals_replace (same suffixes work for certifications, skills and interests). Restate progress with identical wording. Never store requests about managing memory as goals. Record sensitive data only when the user stated it explicitly.

## TOPICS
One per line: name: one-line summary (a bare comma-separated list is accepted).

## PROJECTS
project_name= project_path= project_status=active|paused|completed project_description= project_technologies=

## EPISODES
One line per unit of work completed in this segment (a dated work log): - summary :: outcome :: ref, ref (refs: exact paths, PR numbers, commands).

Rules: write NOTHING_NEW in a section with nothing to add; if the whole conversation is trivial, reply with just NOTHING_NEW. One line per bullet. Keep paths exact. Do not repeat anything listed under EXISTING LONG-TERM MEMORY. Write in the same language as the user. Be concise.
Give each topic a one-line summary of what was decided or learned about it.`;

/** Per-message cap in the prompt: > 1500 bytes → first 1200 + marker + last 200. */
export function clipMessage(content: string): string {
  const buf = Buffer.from(content, "utf8");
  if (buf.length <= 1500) return content;
  const head = buf
    .subarray(0, 1200)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  const tail = buf
    .subarray(buf.length - 200)
    .toString("utf8")
    .replace(/^\uFFFD/, "");
  return `${head}\n... [truncated] ...\n${tail}`;
}

/** The full extraction prompt for one conversation segment. */
export function buildExtractionPrompt(
  messages: readonly ChatMessage[],
  workspace: string,
  existingContext: string,
): string {
  let out = `${EXTRACTION_INSTRUCTIONS}\n\n---\n\n`;
  if (workspace) {
    out += `CURRENT SESSION WORKSPACE: ${workspace}\n(All paths and facts from this conversation belong to this workspace.)\n\n---\n\n`;
  }
  if (existingContext) out += `${existingContext}\n\n---\n\n`;
  out += "CONVERSATION SEGMENT TO ANALYZE:\n\n";
  for (const m of messages) out += `[${m.role}]: ${clipMessage(m.content)}\n\n`;
  return out;
}

/** "Nothing new" in any of its spellings (NOTHING_NEW, N/A, NONE, …, or empty). */
export function isNothingNew(text: string): boolean {
  const t = text
    .trim()
    .toUpperCase()
    .replace(/[.!,;:]+$/, "")
    .trim();
  return ["", "NOTHING_NEW", "NOTHING NEW", "NOTHING-NEW", "N/A", "NONE", "NA"].includes(t);
}

export interface ParsedExtraction {
  daily: string[];
  facts: Array<{ content: string; category: string }>;
  profile: Record<string, string>;
  topics: Array<{ name: string; summary: string }>;
  projects: Array<Record<string, string>>;
  episodes: Array<{ summary: string; outcome: string; refs: string[] }>;
  /** Why the reply is not an extraction result (nothing of it may be stored), if it is not. */
  rejected?: string;
}

/** Lines only the extraction prompt has: a reply that holds them echoes the prompt. */
const PROMPT_MARKERS = [
  "CONVERSATION SEGMENT TO ANALYZE:",
  "You are a memory annotation system.",
  "EXISTING LONG-TERM MEMORY (do NOT duplicate these facts):",
];

const HEADER =
  /^[ \t]*(?:#{1,4}[ \t]*|\*\*[ \t]*)(DAILY|LONG[-_ ]?TERM|PROFILE_UPDATE|PROFILE[ _]UPDATE|PROFILE|TOPICS|PROJECTS|EPISODES)\b[ \t]*\**[ \t]*:?[ \t]*$/gim;

/** Section headers at line starts: `## K`, `##K`, `# K`, `**K**` (any case, LONG-TERM spellings). */
function findHeaders(text: string): Array<{ key: string; at: number; end: number }> {
  const out: Array<{ key: string; at: number; end: number }> = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(HEADER)) {
    const raw = (m[1] as string).toUpperCase().replace(/[-_ ]/g, "");
    const key = raw === "LONGTERM" ? "LONGTERM" : raw === "PROFILEUPDATE" ? "PROFILE_UPDATE" : raw;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ key, at: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
  }
  return out;
}

/** Key/value lines: `=` (at index > 0) wins, else the first `:`. */
export function parseKeyValues(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim().replace(/^[-*]\s+/, "");
    let at = line.indexOf("=");
    if (at <= 0) at = line.indexOf(":");
    if (at <= 0) continue;
    const key = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    if (key && value && !isNothingNew(value)) out[key] = value;
  }
  return out;
}

/** Project blocks: key/values, a new `project_name` starts a new project; also one-line form. */
function parseProjects(text: string): Array<Record<string, string>> {
  const out: Array<Record<string, string>> = [];
  let cur: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim().replace(/^[-*]\s+/, "");
    const pairs = [
      ...line.matchAll(/(project_[a-z]+)\s*[=:]\s*(.*?)(?=\s+project_[a-z]+\s*[=:]|$)/g),
    ];
    const kvs = pairs.length
      ? pairs.map((m) => [m[1] as string, (m[2] as string).trim()])
      : Object.entries(parseKeyValues(line));
    for (const [k, v] of kvs) {
      if (!k || !v) continue;
      if ((k === "project_name" || k === "name") && (cur["project_name"] || cur["name"])) {
        out.push(cur);
        cur = {};
      }
      cur[k] = v;
    }
  }
  if (cur["project_name"] || cur["name"]) out.push(cur);
  return out;
}

/** §2.18.1 parseEnhancedResponse, tolerant of messy model output. */
export function parseExtraction(response: string): ParsedExtraction {
  const out: ParsedExtraction = {
    daily: [],
    facts: [],
    profile: {},
    topics: [],
    projects: [],
    episodes: [],
  };
  const text = response.replace(/\r\n/g, "\n").trim();
  if (isNothingNew(text)) return out;
  // Go stores a header-less reply as the daily note; a reply that is not an extraction result (an
  // echo model returning its prompt, a refusal, chit-chat) is dropped whole instead: stored, it
  // would be injected into every later prompt.
  if (PROMPT_MARKERS.some((m) => text.includes(m) || text.includes(JSON.stringify(m).slice(1, -1))))
    return { ...out, rejected: "the reply repeats the extraction prompt" };
  const found = findHeaders(text);
  if (found.length === 0)
    return { ...out, rejected: "the reply has none of the sections (## DAILY, ## LONGTERM, …)" };
  found.forEach((sec, i) => {
    const end = i + 1 < found.length ? (found[i + 1] as { at: number }).at : text.length;
    const body = text.slice(sec.end, end).trim();
    if (isNothingNew(body)) return;
    apply(out, sec.key, body);
  });
  return out;
}

function apply(out: ParsedExtraction, key: string, body: string): void {
  if (key === "DAILY") out.daily.push(body);
  else if (key === "LONGTERM") {
    for (const raw of body.split("\n")) {
      const line = raw.trim();
      if (!line || line.startsWith("#") || line.startsWith("---")) continue;
      const stripped = line.replace(/^(?:[-*]\s+|\d+[.)]\s+)/, "");
      if (isNothingNew(stripped)) continue;
      const { category, content } = splitCategoryPrefix(stripped);
      if (Buffer.byteLength(content) < 5) continue;
      out.facts.push({ content, category: category ?? classifyFactContent(content) });
    }
  } else if (key === "PROFILE_UPDATE" || key === "PROFILE") {
    Object.assign(out.profile, parseKeyValues(body));
  } else if (key === "TOPICS") {
    for (const raw of body.split("\n")) {
      const line = raw.trim().replace(/^[-•*#\s]+/, "");
      if (!line || isNothingNew(line)) continue;
      const at = line.indexOf(":");
      if (at > 0)
        out.topics.push({ name: line.slice(0, at).trim(), summary: line.slice(at + 1).trim() });
      else
        for (const n of line.split(","))
          if (n.trim()) out.topics.push({ name: n.trim(), summary: "" });
    }
  } else if (key === "PROJECTS") out.projects.push(...parseProjects(body));
  else if (key === "EPISODES") {
    for (const raw of body.split("\n")) {
      const line = raw.trim().replace(/^[-*]\s+/, "");
      if (!line || isNothingNew(line)) continue;
      // `summary :: outcome :: refs` (at most 3 parts; refs comma-separated)
      const at1 = line.indexOf("::");
      const at2 = at1 < 0 ? -1 : line.indexOf("::", at1 + 2);
      const summary = (at1 < 0 ? line : line.slice(0, at1)).trim();
      const outcome =
        at1 < 0 ? "" : (at2 < 0 ? line.slice(at1 + 2) : line.slice(at1 + 2, at2)).trim();
      const refs =
        at2 < 0
          ? []
          : line
              .slice(at2 + 2)
              .split(",")
              .map((r) => r.trim())
              .filter(Boolean);
      if (summary) out.episodes.push({ summary, outcome, refs });
    }
  }
}
