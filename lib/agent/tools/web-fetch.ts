import { tmpdir } from "node:os";
import { envInt } from "../../core/settings.ts";
import { compileUntrustedPattern, isPatternError } from "../../policy/patterns.ts";
import type { Tool, ToolContext } from "../types.ts";
import { num, str, toolError } from "./common.ts";
import { fetchChecked } from "./web-request.ts";
import { saveFetched } from "./web-save.ts";

const MAX_BODY = 10 * 1024 * 1024;
const TIMEOUT_MS = 30_000;
const DEFAULT_MAX_LENGTH = 20_000;

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/** HTML → readable text: drops script/style/head, turns blocks into lines, decodes entities. */
export function htmlToText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(script|style|noscript|head|svg|template)\b[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<li\b[^>]*>/gi, "\n- ")
    .replace(
      /<\/?(p|div|section|article|header|footer|nav|main|h[1-6]|ul|ol|table|tr|pre|blockquote)\b[^>]*>/gi,
      "\n",
    )
    .replace(/<\/t[dh]>/gi, "\t")
    .replace(/<[^>]+>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === "#") {
        const code =
          e[1] === "x" || e[1] === "X" ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
        return Number.isFinite(code) && code > 0 && code < 0x110000
          ? String.fromCodePoint(code)
          : m;
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/[ \t\f\v]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{2,}/g, "\n")
    .trim();
}

async function readCapped(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    total += value.length;
    if (total >= MAX_BODY) {
      await reader.cancel();
      break;
    }
  }
  return new TextDecoder().decode(Buffer.concat(parts).subarray(0, MAX_BODY));
}

function scratchDir(ctx: ToolContext): string {
  return ctx.env["CHATCLI_AGENT_TMPDIR"] || ctx.scratchDir || tmpdir();
}

function selectLines(text: string, args: Record<string, unknown>): string | { error: string } {
  let lines = text.split("\n");
  const from = num(args, "from_line");
  const to = num(args, "to_line");
  if (from !== undefined || to !== undefined)
    lines = lines.slice((from ?? 1) - 1, to ?? lines.length);
  // the model's patterns: RE2, linear in the page whatever the pattern (`(a+)+$` included)
  for (const key of ["filter", "exclude"] as const) {
    const source = str(args, key);
    if (!source) continue;
    const re = compileUntrustedPattern(source, { ignoreCase: true });
    if (isPatternError(re)) return { error: `invalid ${key} regex: ${re.error}` };
    lines = lines.filter((l) => re.test(l) === (key === "filter"));
  }
  return lines.join("\n");
}

/** web_fetch: GET a URL as text; big bodies are saved to the scratch dir with a preview and the path. */
export const webFetchTool: Tool = {
  name: "web_fetch",
  description:
    "Fetch an http(s) URL as text (HTML converted unless raw). A large page is saved to a file and previewed: read it with read_file, or narrow with filter/exclude (regexes) and from_line/to_line.",
  input_schema: {
    type: "object",
    properties: {
      url: { type: "string" },
      max_length: {
        type: "integer",
        minimum: 100,
        description: `chars inline (default ${DEFAULT_MAX_LENGTH})`,
      },
      raw: { type: "boolean" },
      filter: { type: "string" },
      exclude: { type: "string" },
      from_line: { type: "integer", minimum: 1 },
      to_line: { type: "integer", minimum: 1 },
      save_to_file: {
        type: "boolean",
        description: "save the full text to the scratch dir (save_path: its name)",
      },
      save_path: { type: "string" },
    },
    required: ["url"],
  },
  kind: "network",
  subject: (args) => str(args, "url") ?? "",
  validate(args) {
    const url = str(args, "url") ?? "";
    if (!/^https?:\/\//i.test(url)) return "url must start with http:// or https://";
    return undefined;
  },
  async execute(args, ctx) {
    const url = str(args, "url") as string;
    const maxLength = num(args, "max_length") ?? DEFAULT_MAX_LENGTH;
    const threshold = Math.max(1, envInt(ctx.env, "CHATCLI_WEBFETCH_AUTOSAVE_BYTES", 10_000));
    let response: Response;
    let finalUrl: string;
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(TIMEOUT_MS)]);
    try {
      const fetched = await fetchChecked(ctx, url, signal);
      if (typeof fetched === "string") return toolError(fetched);
      response = fetched.response;
      finalUrl = fetched.url;
    } catch (error) {
      return toolError(`fetch failed: ${(error as Error).message}`);
    }
    const type = response.headers.get("content-type") ?? "";
    if (type && !/text|json|xml|javascript|yaml|csv|markdown/i.test(type)) {
      await response.body?.cancel();
      return toolError(`${url} is ${type.split(";")[0]}, not text; web_fetch only reads text`);
    }
    const body = await readCapped(response);
    if (!response.ok)
      return toolError(`HTTP ${response.status} from ${url}\n${body.slice(0, 500)}`);
    const isHtml =
      /html/i.test(response.headers.get("content-type") ?? "") ||
      /^\s*<(!doctype|html)/i.test(body);
    const full = args["raw"] === true || !isHtml ? body : htmlToText(body);
    const selected = selectLines(full, args);
    if (typeof selected !== "string") return toolError(selected.error);
    const bytes = Buffer.byteLength(full);
    const narrowed = ["filter", "exclude", "from_line", "to_line"].some(
      (k) => args[k] !== undefined,
    );
    const explicitSave = args["save_to_file"] === true || str(args, "save_path") !== undefined;
    const autoSave = !explicitSave && !narrowed && bytes > threshold;
    let text = selected;
    let prefix = finalUrl !== new URL(url).href ? `[redirected to ${finalUrl}]\n` : "";
    if (explicitSave || autoSave) {
      const saved = await saveFetched(
        scratchDir(ctx),
        str(args, "save_path"),
        `webfetch_${ctx.now().getTime()}.txt`,
        full,
      );
      const path = saved.path;
      if (saved.note) prefix += `[${saved.note}]\n`;
      if (autoSave) {
        const preview = Math.max(2000, Math.floor(maxLength / 4));
        text = `${Buffer.from(full).subarray(0, preview).toString("utf8")}\n...(auto-truncated — full body saved to disk)`;
        prefix += `[auto-saved: response was ${bytes} bytes — too large to inline. Full body is at ${path}. Preview below; use read_file with start/end or rerun with filter/from_line/to_line for specific ranges.]\n\n`;
      } else if (text.length > maxLength) {
        prefix += `[response truncated inline at ${maxLength} chars; full response saved to ${path} — ${bytes} bytes. Use read_file with start/end to examine specific ranges.]\n\n`;
      } else {
        prefix += `[full response saved to ${path} — ${bytes} bytes. Use read_file with start/end to examine specific ranges.]\n\n`;
      }
    }
    if (text.length > maxLength) text = `${text.slice(0, maxLength)}\n...(truncated)`;
    return {
      output: prefix + text,
      summary: `HTTP ${response.status}, ${bytes} bytes${autoSave ? ", saved" : ""}`,
    };
  },
};
