/**
 * The MCP tool catalog as the model sees it: Claude Code's names (`mcp__<server>__<tool>`, Go's
 * `mcp_<tool>` as an alias), and deferred loading — over CHATCLI_MCP_TOOL_BUDGET tokens of
 * definitions, the first request carries only `tool_search` and one line per server; what a search
 * finds is offered from the next request on.
 */
import type { Env } from "../../core/ctx.ts";
import { envInt } from "../../core/settings.ts";

export interface CatalogEntry {
  /** As offered: `mcp__<server>__<tool>`. */
  name: string;
  server: string;
  /** The server's own name for it. */
  tool: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Go's `mcp_<tool>`, when no other server has a tool of that name. */
  alias?: string;
}

/** CHATCLI_MCP_TOOL_BUDGET: tokens of MCP tool definitions sent up front (default 1,000). */
export function toolBudget(env: Env): number {
  const n = envInt(env, "CHATCLI_MCP_TOOL_BUDGET", 1000);
  return n < 0 ? 1000 : n;
}

const CHARS_PER_TOKEN = 4;
const NAME_MAX = 64; // the providers' limit on a function name

function clean(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** `mcp__<server>__<tool>` within 64 characters (a long one keeps a hash of the whole). */
export function offeredName(server: string, tool: string): string {
  const full = `mcp__${clean(server)}__${clean(tool)}`;
  if (full.length <= NAME_MAX) return full;
  const hash = Bun.hash(full).toString(36).slice(0, 6);
  return `${full.slice(0, NAME_MAX - 7)}_${hash}`;
}

/** Entries for every visible tool of every server, with Go aliases where unambiguous. */
export function catalogOf(
  servers: ReadonlyArray<{
    server: string;
    tools: ReadonlyArray<{
      name: string;
      description: string;
      inputSchema: Record<string, unknown>;
    }>;
  }>,
): CatalogEntry[] {
  const count = new Map<string, number>();
  for (const s of servers) for (const t of s.tools) count.set(t.name, (count.get(t.name) ?? 0) + 1);
  const out: CatalogEntry[] = [];
  for (const s of servers)
    for (const t of s.tools) {
      const alias = `mcp_${clean(t.name)}`;
      out.push({
        name: offeredName(s.server, t.name),
        server: s.server,
        tool: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        ...(count.get(t.name) === 1 && alias.length <= NAME_MAX ? { alias } : {}),
      });
    }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What the definitions cost, in the estimate chatcli uses everywhere (4 chars a token). */
export function definitionTokens(entries: readonly CatalogEntry[]): number {
  let chars = 0;
  for (const e of entries)
    chars += JSON.stringify({
      name: e.name,
      description: e.description,
      input_schema: e.inputSchema,
    }).length;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

const STOP = new Set(
  "a an and the of for to in on with by from or is are be it its this that tool tools mcp get find use".split(
    " ",
  ),
);

function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !STOP.has(w))
    .map((w) => (w.length > 3 && w.endsWith("s") ? w.slice(0, -1) : w));
}

/**
 * Ranks entries for a `tool_search` query: keyword hits in the tool's name (3), its server's name
 * (2) and its description (1), prefixes counting; `select:a,b` picks tools by exact name.
 */
export function searchCatalog(
  entries: readonly CatalogEntry[],
  query: string,
  limit: number,
): CatalogEntry[] {
  const q = query.trim();
  if (q.toLowerCase().startsWith("select:")) {
    const wanted = new Set(
      q
        .slice(7)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    );
    return entries.filter(
      (e) => wanted.has(e.name) || wanted.has(e.tool) || (e.alias && wanted.has(e.alias)),
    );
  }
  const exact = entries.filter((e) => e.name === q || e.tool === q || e.alias === q);
  if (exact.length) return exact.slice(0, limit);
  const terms = [...new Set(words(q))];
  if (!terms.length) return [];
  const hit = (list: string[], term: string) =>
    list.some(
      (w) =>
        w === term ||
        (term.length >= 3 && (w.startsWith(term) || (term.startsWith(w) && w.length >= 3))),
    );
  const scored = entries.map((e) => {
    const name = words(e.tool);
    const server = words(e.server);
    const desc = words(e.description);
    let score = 0;
    for (const t of terms) {
      if (hit(name, t)) score += 3;
      if (hit(server, t)) score += 2;
      if (hit(desc, t)) score += 1;
    }
    return { e, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || (a.e.name < b.e.name ? -1 : 1))
    .slice(0, limit)
    .map((s) => s.e);
}

/** `tool_search`'s definition (Claude Code's MCP tool search is the anchor). */
export const TOOL_SEARCH_SPEC = {
  name: "tool_search",
  description:
    "Find tools of the MCP servers listed in the system prompt. Give a few keywords (or select:NAME,NAME); the tools found can be called from your next step on.",
  input_schema: {
    type: "object",
    properties: {
      query: { type: "string", description: "keywords for what the tool should do" },
      max_results: { type: "integer", minimum: 1, maximum: 10, description: "default 5" },
    },
    required: ["query"],
  },
} as const;

/** The text tool_search returns. */
export function searchResultText(query: string, found: readonly CatalogEntry[]): string {
  if (!found.length)
    return `No MCP tool matches ${JSON.stringify(query)}. Try other keywords, or finish without it.`;
  const lines = found.map((e) => {
    const props = Object.keys(
      ((e.inputSchema["properties"] ?? {}) as Record<string, unknown>) || {},
    );
    const desc = e.description.replace(/\s+/g, " ").trim();
    return `- ${e.name}: ${desc.length > 200 ? `${desc.slice(0, 197)}…` : desc}${props.length ? ` (args: ${props.join(", ")})` : ""}`;
  });
  return `Found ${found.length} tool${found.length === 1 ? "" : "s"}, available from your next step:\n${lines.join("\n")}`;
}

/** One line per server for the cached prefix, when its tools are deferred. */
export function serverLines(
  servers: ReadonlyArray<{ server: string; tools: number; hint?: string; names: string[] }>,
): string {
  if (!servers.length) return "";
  const lines = servers.map((s) => {
    const about = (s.hint ?? "").replace(/\s+/g, " ").trim();
    const summary = about
      ? about.length > 120
        ? `${about.slice(0, 117)}…`
        : about
      : s.names.slice(0, 6).join(", ") + (s.names.length > 6 ? ", …" : "");
    return `- ${s.server} (${s.tools} tools): ${summary}`;
  });
  return `## MCP servers\n\nTheir tools are loaded on demand: call tool_search with a few keywords first.\n${lines.join("\n")}`;
}
