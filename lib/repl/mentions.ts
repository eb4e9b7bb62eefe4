import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Completion } from "./slash.ts";

/** Largest file an `@path` mention attaches (bigger ones are named, not inlined). */
const MAX_MENTION_BYTES = 256 * 1024;

const MENTION = /(^|\s)@((?:[^\s\\]|\\ )+)/g;

export interface Expanded {
  /** The message to send: the text, then one `<file>` block per mentioned file. */
  text: string;
  /** Files attached, and mentions that could not be (with why). */
  attached: string[];
  skipped: Array<{ path: string; reason: string }>;
}

/**
 * `@path` mentions in a chat message attach those files to it (as Claude Code and Gemini CLI do):
 * each existing file's text follows the message in a `<file path="…">` block. Words that are not
 * files (`@user`, `@dba`) are left as they are.
 */
export function expandMentions(text: string, cwd: string): Expanded {
  const attached: string[] = [];
  const skipped: Array<{ path: string; reason: string }> = [];
  const blocks: string[] = [];
  for (const m of text.matchAll(MENTION)) {
    const path = (m[2] as string).replace(/\\ /g, " ").replace(/[.,;:!?)]+$/, "");
    if (attached.includes(path)) continue;
    const abs = resolve(cwd, path);
    let size: number;
    try {
      const info = statSync(abs);
      if (!info.isFile()) continue;
      size = info.size;
    } catch {
      continue; // not a file: an ordinary word
    }
    if (size > MAX_MENTION_BYTES) {
      skipped.push({ path, reason: `${Math.round(size / 1024)} KiB, over the 256 KiB limit` });
      continue;
    }
    const content = readFileSync(abs);
    if (content.includes(0)) {
      skipped.push({ path, reason: "binary file" });
      continue;
    }
    attached.push(path);
    blocks.push(`<file path="${path}">\n${content.toString("utf8").replace(/\n?$/, "\n")}</file>`);
  }
  return {
    text: blocks.length > 0 ? `${text}\n\n${blocks.join("\n\n")}` : text,
    attached,
    skipped,
  };
}

/** Tab completion of an `@path` being typed at the end of the input. */
export function completeMention(text: string, cwd: string): Completion {
  const none = { text, candidates: [] };
  const m = /(^|\s)@(\S*)$/.exec(text);
  if (!m) return none;
  const typed = m[2] as string;
  const slash = typed.lastIndexOf("/");
  const dirPart = slash >= 0 ? typed.slice(0, slash + 1) : "";
  const prefix = typed.slice(slash + 1);
  let entries: Array<{ name: string; dir: boolean }>;
  try {
    entries = readdirSync(join(cwd, dirPart || "."), { withFileTypes: true })
      .filter(
        (e) => e.name.startsWith(prefix) && (prefix.startsWith(".") || !e.name.startsWith(".")),
      )
      .map((e) => ({ name: e.name, dir: e.isDirectory() }))
      .sort((a, b) => a.name.localeCompare(b.name));
  } catch {
    return none;
  }
  if (entries.length === 0) return none;
  const lead = text.slice(0, text.length - prefix.length);
  const shown = (e: { name: string; dir: boolean }) => `${e.name}${e.dir ? "/" : ""}`;
  if (entries.length === 1) {
    const only = entries[0] as { name: string; dir: boolean };
    return { text: `${lead}${shown(only)}${only.dir ? "" : " "}`, candidates: [] };
  }
  const names = entries.map(shown);
  let common = names[0] as string;
  for (const n of names) while (!n.startsWith(common)) common = common.slice(0, -1);
  if (common.length > prefix.length) return { text: lead + common, candidates: [] };
  return {
    text,
    candidates: names,
    full: entries.map((e) => `${lead}${shown(e)}${e.dir ? "" : " "}`),
  };
}
