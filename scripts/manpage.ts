// The man page, generated from the binary's own `--help` texts (so it never drifts from them):
// `chatcli --help` is the page's head, each `chatcli CMD [SUB] --help` a subsection of COMMANDS.
import { $ } from "bun";

export interface HelpPage {
  /** [] for the root, ["memory", "facts"] … */
  path: string[];
  help: string;
}

/** Escapes text for roff: backslashes, and a leading `.` or `'` that would be read as a request. */
export function roffEscape(text: string): string {
  return text
    .replace(/\\/g, "\\e")
    .replace(/-/g, "\\-")
    .replace(/^([.'])/gm, "\\&$1");
}

interface Section {
  title: string;
  lines: string[];
}

/** Splits a commander help text into usage, description and its `Title:` sections. */
export function parseHelp(help: string): {
  usage: string;
  description: string;
  sections: Section[];
} {
  const lines = help.replace(/\s+$/, "").split("\n");
  const usage = (lines.shift() ?? "").replace(/^Usage:\s*/, "");
  const description: string[] = [];
  const sections: Section[] = [];
  let previous = "";
  for (const line of lines) {
    const heading = /^([A-Z][\w ()/-]*):\s*(.*)$/.exec(line);
    if (heading && !line.startsWith(" ")) {
      sections.push({ title: heading[1] as string, lines: heading[2] ? [heading[2]] : [] });
    } else if (sections.length === 0) description.push(line);
    else if (line && !line.startsWith(" ") && previous === "") {
      sections.push({ title: "", lines: [line] }); // a paragraph of text after the lists
    } else sections.at(-1)?.lines.push(line);
    previous = line;
  }
  return { usage, description: description.join("\n").trim(), sections };
}

/** `  term   description` rows (commander's Options/Commands/Arguments), continuation lines joined. */
function items(lines: string[]): { term: string; text: string }[] | undefined {
  const out: { term: string; text: string }[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    const row = /^ {2}(\S.*?)(?: {2,}(\S.*))?$/.exec(line);
    if (row && !/^ {3,}/.test(line)) out.push({ term: row[1] as string, text: row[2] ?? "" });
    else if (out.length && /^ {3,}\S/.test(line)) {
      const last = out.at(-1) as { text: string };
      last.text = `${last.text} ${line.trim()}`.trim();
    } else return undefined;
  }
  return out;
}

function sectionRoff(section: Section): string {
  const rows = ["Options", "Commands", "Arguments"].includes(section.title)
    ? items(section.lines)
    : undefined;
  const head = section.title ? `.PP\n.B ${roffEscape(section.title)}\n` : ".PP\n";
  if (rows) {
    return (
      head + rows.map((r) => `.TP\n.B ${roffEscape(r.term)}\n${roffEscape(r.text)}\n`).join("")
    );
  }
  const body = section.lines.join("\n").replace(/^\n+|\n+$/g, "");
  return `${head}.nf\n.RS 2\n${roffEscape(body)}\n.RE\n.fi\n`;
}

/** chatcli's own variables (the provider variables come from the root help's "Choosing a model"). */
const ENVIRONMENT: Array<[string, string]> = [
  [
    "CHATCLI_HOME",
    "where chatcli keeps its state (default ~/.chatcli), shared with the Go ChatCLI",
  ],
  ["CHATCLI_DOTENV", "a .env file to read (else ./.env, in a trusted workspace only)"],
  [
    "CHATCLI_TRUST_WORKSPACE",
    "1: the workspace's .chatcli/config.json, .env and bootstrap files count in full",
  ],
  ["CHATCLI_SANDBOX", "auto, required or off: the OS sandbox for every command the agent runs"],
  ["CHATCLI_SESSION_AUTOSAVE", "false: no autosave sessions (in CI none are kept unless true)"],
  ["CHATCLI_MEMORY_ENABLED", "false: no memory at all"],
  ["CHATCLI_BOOTSTRAP_ENABLED", "false: no bootstrap files or path rules"],
  ["CHATCLI_CONTEXT_WINDOW", "the model's context window in tokens (compaction aims by it)"],
  ["CI", "set: nothing waits for a human; memory is read-only; bare chatcli is never the REPL"],
  ["NO_COLOR, FORCE_COLOR", "colour off / on when --color is auto"],
];

/** A `Title:` section of the root help, whole (heading line included), or undefined. */
function takeSection(sections: Section[], title: string): Section | undefined {
  const at = sections.findIndex((s) => s.title === title);
  return at < 0 ? undefined : sections.splice(at, 1)[0];
}

/** ENVIRONMENT: chatcli's variables, then how a model is chosen (the root help's own text). */
function environmentRoff(models: Section | undefined): string {
  let out = ".SH ENVIRONMENT\n";
  for (const [name, text] of ENVIRONMENT)
    out += `.TP\n.B ${roffEscape(name)}\n${roffEscape(text)}\n`;
  if (models) {
    const body = [`${models.title}: ${models.lines[0] ?? ""}`, ...models.lines.slice(1)].join("\n");
    out += `.PP\n.nf\n.RS 2\n${roffEscape(body.replace(/\n+$/, ""))}\n.RE\n.fi\n`;
  }
  return out;
}

/** EXIT STATUS: the root help's exit-code table, a tagged paragraph per code. */
function exitStatusRoff(codes: Section | undefined): string {
  let out = ".SH EXIT STATUS\n";
  let last: { code: string; text: string[] } | undefined;
  const rows: Array<{ code: string; text: string[] }> = [];
  for (const line of codes?.lines ?? []) {
    const row = /^ {2}(\d+) +(.*)$/.exec(line);
    if (row) {
      last = { code: row[1] as string, text: [row[2] as string] };
      rows.push(last);
    } else if (last && line.trim()) last.text.push(line.trim());
  }
  for (const r of rows) out += `.TP\n.B ${r.code}\n${roffEscape(r.text.join(" "))}\n`;
  return out;
}

/** The whole page in roff (man(7)), root page first. */
export function helpToMan(pages: HelpPage[], version: string, date: string): string {
  const [root, ...commands] = pages;
  if (!root) throw new Error("no help pages");
  const top = parseHelp(root.help);
  const models = takeSection(top.sections, "Choosing a model");
  const codes = takeSection(top.sections, "Exit codes");
  let out = `.TH CHATCLI 1 "${date}" "chatcli ${version}" "User Commands"\n`;
  out += `.SH NAME\nchatcli \\- ${roffEscape(top.description.split("\n")[0] ?? "")}\n`;
  out += `.SH SYNOPSIS\n.B chatcli\n[options] [command] [prompt...]\n`;
  out += `.SH DESCRIPTION\n${roffEscape(top.description)}\n`;
  for (const s of top.sections) out += sectionRoff(s);
  out += ".SH COMMANDS\n";
  for (const page of commands) {
    const parsed = parseHelp(page.help);
    out += `.SS "chatcli ${page.path.join(" ")}"\n.B ${roffEscape(parsed.usage)}\n.PP\n${roffEscape(parsed.description)}\n`;
    for (const s of parsed.sections) out += sectionRoff(s);
  }
  out += environmentRoff(models);
  out += exitStatusRoff(codes);
  out += `.SH FILES\n.TP\n.B ~/.chatcli/\nconfiguration, sessions and memory (CHATCLI_HOME), shared with the Go ChatCLI\n`;
  out += `.SH SEE ALSO\n.BR chatcli\\ completion\\ bash|zsh|fish ,\n.BR chatcli\\ config\n`;
  return out;
}

/** Every help page of the binary: the root, each command, each subcommand (from its Commands: list). */
export async function collectHelp(
  binary: string,
  env: Record<string, string>,
): Promise<HelpPage[]> {
  const pages: HelpPage[] = [];
  const visit = async (path: string[]) => {
    const help = await $`${binary} ${path} --help`.env(env).quiet().text();
    // An unknown name would print its parent's help: a page must be the one asked for.
    if (!parseHelp(help).usage.startsWith(["chatcli", ...path].join(" "))) {
      throw new Error(`chatcli ${path.join(" ")} --help printed another command's help`);
    }
    pages.push({ path, help });
    const commands = parseHelp(help).sections.find((s) => s.title === "Commands");
    for (const row of items(commands?.lines ?? []) ?? []) {
      const name = row.term.split(/[ |]/)[0] as string; // `longterm|lt [options]`
      if (name !== "help") await visit([...path, name]);
    }
  };
  await visit([]);
  return pages;
}
