/** A tool call found in assistant text (models without native tools). */
export interface TextToolCall {
  name: string;
  /** Parsed arguments, or the raw string when it is not JSON (the loop reports it to the model). */
  args: Record<string, unknown> | string;
  raw: string;
}

const HTML_ENTITIES: Record<string, string> = {
  "&quot;": '"',
  "&apos;": "'",
  "&lt;": "<",
  "&gt;": ">",
  "&amp;": "&",
  "&#39;": "'",
};

function htmlUnescape(s: string): string {
  return s.replace(/&(quot|apos|lt|gt|amp|#39);/g, (m) => HTML_ENTITIES[m] ?? m);
}

/** Reads the attributes of an opening tag starting at `i` (just after the tag name). */
function readTag(
  text: string,
  start: number,
): { attrs: Record<string, string>; end: number; selfClosing: boolean } {
  const attrs: Record<string, string> = {};
  let i = start;
  for (;;) {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (i >= text.length) return { attrs, end: i, selfClosing: false };
    if (text.startsWith("/>", i)) return { attrs, end: i + 2, selfClosing: true };
    if (text[i] === ">") return { attrs, end: i + 1, selfClosing: false };
    const nameMatch = /^[A-Za-z_:][\w:.-]*/.exec(text.slice(i));
    if (!nameMatch) {
      i++;
      continue;
    }
    const name = nameMatch[0].toLowerCase();
    i += nameMatch[0].length;
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (text[i] !== "=") {
      attrs[name] = "";
      continue;
    }
    i++;
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    const q = text[i];
    if (q === '"' || q === "'") {
      let value = "";
      i++;
      while (i < text.length && text[i] !== q) {
        if (text[i] === "\\" && (text[i + 1] === q || text[i + 1] === "\\")) {
          value += text[i + 1];
          i += 2;
        } else value += text[i++];
      }
      i++;
      attrs[name] = value;
    } else {
      const m = /^[^\s>]+/.exec(text.slice(i));
      const raw = m ? m[0].replace(/\/$/, "") : "";
      i += raw.length;
      attrs[name] = htmlUnescape(raw);
    }
  }
}

/** Best-effort repair of almost-JSON: single quotes, unquoted keys, trailing commas, HTML entities. */
export function recoverJson(text: string): Record<string, unknown> | undefined {
  const attempts = [text, htmlUnescape(text)];
  const fixed = htmlUnescape(text)
    .replace(/([{,]\s*)([A-Za-z_][\w-]*)\s*:/g, '$1"$2":')
    .replace(/'((?:[^'\\]|\\.)*)'/g, (_m, s: string) => JSON.stringify(s.replace(/\\'/g, "'")))
    .replace(/,\s*([}\]])/g, "$1");
  attempts.push(fixed, fixed.replace(/\\(?!["\\/bfnrtu])/g, "\\\\"));
  for (const attempt of attempts) {
    try {
      const value = JSON.parse(attempt) as unknown;
      if (value && typeof value === "object" && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {
      // next attempt
    }
  }
  return undefined;
}

function parseArgs(raw: string | undefined): Record<string, unknown> | string {
  if (raw === undefined || raw.trim() === "") return {};
  return recoverJson(raw.trim()) ?? raw;
}

/** The end of the JSON object starting at `start` (quote-aware brace matching), or -1. */
function matchBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i + 1;
  }
  return -1;
}

function scanXml(text: string): TextToolCall[] {
  const calls: TextToolCall[] = [];
  const lower = text.toLowerCase();
  let i = 0;
  for (;;) {
    const at = lower.indexOf("<tool", i);
    if (at < 0) break;
    const isCall = lower.startsWith("<tool_call", at);
    const nameEnd = at + (isCall ? 10 : 5);
    const after = text[nameEnd];
    if (after === undefined || !/[\s>/]/.test(after)) {
      i = at + 5;
      continue;
    }
    const tag = readTag(text, nameEnd);
    let end = tag.end;
    let body = "";
    if (!tag.selfClosing) {
      const close = isCall ? "</tool_call>" : "</tool>";
      // A JSON body may itself contain the closing tag inside a string: skip past the object.
      const lead = /^\s*\{/.exec(text.slice(end));
      const jsonEnd = lead ? matchBrace(text, end + lead[0].length - 1) : -1;
      const closeAt = lower.indexOf(close, jsonEnd > 0 ? jsonEnd : end);
      const nextOpen = lower.indexOf("<tool", end);
      if (closeAt >= 0 && (nextOpen < 0 || closeAt <= nextOpen)) {
        body = text.slice(end, closeAt);
        end = closeAt + close.length;
      }
    }
    const name = tag.attrs["name"]?.trim();
    if (name) {
      const argsText = tag.attrs["args"] ?? tag.attrs["arguments"] ?? (body.trim() || undefined);
      calls.push({ name, args: parseArgs(argsText), raw: text.slice(at, end) });
    }
    i = Math.max(end, at + 5);
  }
  return calls;
}

/** `<invoke name="x"><parameter name="k">v</parameter></invoke>` (Anthropic's text format). */
function scanInvoke(text: string): TextToolCall[] {
  const calls: TextToolCall[] = [];
  const re = /<invoke\s+name\s*=\s*["']([^"']+)["']\s*>([\s\S]*?)<\/invoke>/gi;
  for (const m of text.matchAll(re)) {
    const args: Record<string, unknown> = {};
    const params = /<parameter\s+name\s*=\s*["']([^"']+)["']\s*>([\s\S]*?)<\/parameter>/gi;
    for (const p of (m[2] as string).matchAll(params)) {
      const raw = p[2] as string;
      let value: unknown = raw;
      if (/^\s*([[{]|-?\d|true$|false$|null$)/.test(raw)) {
        try {
          value = JSON.parse(raw);
        } catch {
          value = raw;
        }
      }
      args[p[1] as string] = value;
    }
    calls.push({ name: (m[1] as string).trim(), args, raw: m[0] });
  }
  return calls;
}

function scanJson(text: string): TextToolCall[] {
  const calls: TextToolCall[] = [];
  for (let i = text.indexOf("{"); i >= 0; i = text.indexOf("{", i + 1)) {
    const end = matchBrace(text, i);
    if (end < 0) break;
    const raw = text.slice(i, end);
    const obj = recoverJson(raw);
    if (!obj) continue;
    const name = obj["tool_call"] ?? obj["tool"] ?? obj["name"];
    const args = obj["args"] ?? obj["arguments"] ?? obj["input"] ?? obj["parameters"];
    if (
      typeof name === "string" &&
      (args === undefined || typeof args === "object" || typeof args === "string")
    ) {
      if ("url" in obj && !("args" in obj)) continue;
      const parsed =
        typeof args === "string" ? parseArgs(args) : ((args ?? {}) as Record<string, unknown>);
      calls.push({ name: name.trim(), args: parsed, raw });
      i = end - 1;
    }
  }
  return calls;
}

function scanBrackets(text: string): TextToolCall[] {
  const calls: TextToolCall[] = [];
  const re = /\[tool(?:_call)?:\s*@?([\w-]+)\s*([^\]]*)\]/gi;
  for (const m of text.matchAll(re)) {
    calls.push({ name: m[1] as string, args: parseArgs(m[2]), raw: m[0] });
  }
  return calls;
}

/**
 * Finds tool calls in assistant text, tolerant of messy output: `<tool_call name="x" args='{…}'/>`,
 * `<tool name="x">{…}</tool>` (any case, attributes in any order, `>` inside quoted args), then
 * `<invoke name="x"><parameter name="k">v</parameter></invoke>`, then
 * bare JSON calls (`{"tool_call":"x","args":{…}}`, `{"name":"x","arguments":{…}}`), then
 * `[tool: x {…}]`. Document order is kept.
 */
export function parseToolCalls(text: string, knownNames?: ReadonlySet<string>): TextToolCall[] {
  const xml = scanXml(text);
  if (xml.length) return xml;
  const invoke = scanInvoke(text);
  if (invoke.length) return invoke;
  const json = scanJson(text).filter(
    (c) => !knownNames || knownNames.has(normaliseToolName(c.name, {}, knownNames).name),
  );
  if (json.length) return json;
  return scanBrackets(text);
}

const CODER_CMDS: Record<string, string> = {
  read: "read_file",
  write: "write_file",
  patch: "patch_file",
  multipatch: "multipatch",
  tree: "list_directory",
  search: "search_files",
  exec: "run_command",
  test: "run_tests",
  "git-status": "git_status",
  "git-diff": "git_diff",
  "git-log": "git_log",
};

/**
 * Maps ChatCLI's names to ours: `@coder` + {cmd, args} → the matching tool, `@webfetch` → web_fetch,
 * `@memory` → memory; strips a leading `@`. Matching chatcli's own tools (`known`) ignores case; any
 * other name keeps its case (`updateIssueList` goes back to the model as it sent it).
 */
export function normaliseToolName(
  name: string,
  args: Record<string, unknown> = {},
  known?: ReadonlySet<string>,
): { name: string; args: Record<string, unknown> } {
  const given = name.trim().replace(/^@/, "");
  const bare = given.toLowerCase();
  if (bare === "coder" && typeof args["cmd"] === "string") {
    const tool = CODER_CMDS[args["cmd"] as string];
    const inner = args["args"];
    if (tool) {
      const mapped =
        inner && typeof inner === "object"
          ? (inner as Record<string, unknown>)
          : { ...args, cmd: undefined };
      if (
        tool === "run_command" &&
        mapped["cmd"] === undefined &&
        typeof mapped["command"] === "string"
      )
        mapped["cmd"] = mapped["command"];
      return { name: tool, args: mapped };
    }
  }
  if (bare === "webfetch") return { name: "web_fetch", args };
  if (bare === "memory" && args["args"] && typeof args["args"] === "object") {
    return {
      name: "memory",
      args: { cmd: args["cmd"], ...(args["args"] as Record<string, unknown>) },
    };
  }
  return { name: known && !known.has(bare) ? given : bare, args };
}
