import { asText } from "../core/as-text.ts";
import type { ToolSpec } from "../llm/types.ts";
import { forget, markAccessed, profileSet, remember, selectFacts } from "./ops.ts";
import { retrieveText } from "./prompt.ts";
import { loadFacts, type MemoryOptions, openMemory } from "./store.ts";
import { extractKeywords } from "./text.ts";
import { neutralize } from "./threatscan.ts";

/** The native `memory` tool (reference §2.20): remember | profile | forget | recall. */
export const MEMORY_TOOL_SPEC: ToolSpec = {
  name: "memory",
  description:
    "Long-term memory across sessions. cmd=recall {query} pulls relevant facts, profile, projects and notes; cmd=remember {content, category?} stores a durable fact; cmd=forget {id} removes one fact by its id (a {match} text only lists the matching facts with their ids); cmd=profile {fields} updates the user profile.",
  input_schema: {
    type: "object",
    properties: {
      cmd: { type: "string", enum: ["recall", "remember", "forget", "profile"] },
      args: {
        type: "object",
        properties: {
          query: { type: "string" },
          content: { type: "string" },
          category: { type: "string" },
          id: { type: "string" },
          match: { type: "string" },
          fields: { type: "object" },
        },
      },
    },
    required: ["cmd"],
  },
};

/** Command names the memory tool accepts (ChatCLI's aliases included) → the command. */
export const MEMORY_TOOL_ALIASES: Record<string, "remember" | "profile" | "forget" | "recall"> = {
  remember: "remember",
  add: "remember",
  store: "remember",
  note: "remember",
  profile: "profile",
  profile_set: "profile",
  user: "profile",
  forget: "forget",
  remove: "forget",
  delete: "forget",
  recall: "recall",
  read: "recall",
  get: "recall",
  search: "recall",
  // Go's timeline (dated episodes): recall answers with them (its `## Recent Episodes` section)
  timeline: "recall",
  history: "recall",
  episodes: "recall",
  chronology: "recall",
};

export interface ToolOutcome {
  text: string;
  isError: boolean;
  /** The call changed the store (callers invalidate prompt caches). */
  wrote: boolean;
}

/** Parses `{cmd,args}`, flat `{cmd,…}`, or argv `remember --content "…"` into cmd + args. */
export function parseToolInput(input: unknown): { cmd: string; args: Record<string, unknown> } {
  if (typeof input === "string") {
    const trimmed = input.trim();
    if (trimmed.startsWith("{")) {
      try {
        return parseToolInput(JSON.parse(trimmed));
      } catch {
        // fall through to argv
      }
    }
    const words = [...trimmed.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map(
      (m) => m[1] ?? m[2] ?? m[3] ?? "",
    );
    const args: Record<string, unknown> = {};
    const rest: string[] = [];
    for (let i = 1; i < words.length; i++) {
      const w = words[i] as string;
      if (w.startsWith("--")) {
        const next = words[i + 1];
        if (next !== undefined && !next.startsWith("--")) {
          args[w.slice(2)] = next;
          i++;
        } else args[w.slice(2)] = true;
      } else rest.push(w);
    }
    if (
      rest.length &&
      args["content"] === undefined &&
      args["query"] === undefined &&
      args["match"] === undefined
    ) {
      args["_"] = rest.join(" ");
    }
    return { cmd: (words[0] ?? "").toLowerCase(), args };
  }
  const obj = input && typeof input === "object" ? (input as Record<string, unknown>) : {};
  const cmd = asText(obj["cmd"]).toLowerCase();
  if (obj["args"] && typeof obj["args"] === "object")
    return { cmd, args: obj["args"] as Record<string, unknown> };
  const { cmd: _c, ...flat } = obj;
  return { cmd, args: flat };
}

const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");

/**
 * Runs one memory tool call and returns the model-facing result. `source` is where a remembered fact
 * came from as the caller judged it (lib/agent/tools/memory.ts); a `source` in the model's input is
 * never read, so a model cannot call its own words the user's.
 */
export async function runMemoryTool(
  options: MemoryOptions,
  input: unknown,
  judged: { source?: string } = {},
): Promise<ToolOutcome> {
  const mem = openMemory(options);
  if (!mem.cfg.enabled)
    return { text: "@memory: memory is not enabled in this session", isError: true, wrote: false };
  const { cmd: raw, args } = parseToolInput(input);
  const cmd = MEMORY_TOOL_ALIASES[raw] ?? raw;
  if (cmd === "remember") {
    const content = text(args["content"]) || text(args["_"]);
    if (!content)
      return { text: '@memory remember: "content" is required', isError: true, wrote: false };
    const r = await remember(mem, content, text(args["category"]) || undefined, {
      source: judged.source,
    });
    if (r.status === "rejected")
      return { text: `@memory remember: refused (${r.reason})`, isError: true, wrote: false };
    if (r.status === "held")
      return {
        text: `Held for the user's review (${r.reason}): not the user's own words, so later runs do not see it unless the user accepts it (chatcli memory review).`,
        isError: false,
        wrote: true,
      };
    return r.status === "added"
      ? { text: `Remembered: ${r.content}`, isError: false, wrote: true }
      : { text: "Already in memory (no change).", isError: false, wrote: true };
  }
  if (cmd === "forget") {
    // The model forgets by id only: a text (`match`) lists the candidates and removes nothing.
    const target = text(args["id"]) || text(args["match"]) || text(args["_"]);
    if (!target) return { text: '@memory forget: "id" is required', isError: true, wrote: false };
    const r = await forget(mem, target, { byId: true });
    if (r.removed.length > 0)
      return { text: `Removed 1 fact (${target}).`, isError: false, wrote: true };
    const state = await loadFacts(mem);
    const like = selectFacts(state.facts.values(), target, mem.now().getTime()).slice(0, 10);
    const list = like.map(
      (f) => `- ${f.id}: [${f.category || "general"}] ${neutralize(f.content)}`,
    );
    return {
      text: like.length
        ? `@memory forget: nothing removed — forget takes a fact id. Facts matching "${target}":\n${list.join("\n")}\nCall forget with {"id":"<id>"} for each fact to remove.`
        : `@memory forget: no fact has the id "${target}" (nothing removed).`,
      isError: true,
      wrote: false,
    };
  }
  if (cmd === "profile") {
    let fields: unknown = args["fields"] ?? args;
    if (typeof fields === "string") {
      try {
        fields = JSON.parse(fields);
      } catch {
        fields = {};
      }
    }
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries((fields as Record<string, unknown>) ?? {})) {
      if (v === null || v === undefined || k === "_") continue;
      flat[k] = Array.isArray(v) ? v.map(asText).join(", ") : asText(v);
    }
    const changed = await profileSet(mem, flat);
    return changed.length
      ? { text: `Profile updated: ${changed.join(", ")}`, isError: false, wrote: true }
      : {
          text: "No profile change (values already set). List fields upsert by default; to rewrite use suffixes: goals_replace (overwrite all), goals_done/goals_remove (remove).",
          isError: false,
          wrote: false,
        };
  }
  if (cmd === "recall") {
    const query = text(args["query"]) || text(args["_"]);
    let hints = query ? extractKeywords([query]) : [];
    if (query && hints.length === 0) hints = query.split(/\s+/);
    const { text: found, factIds } = await retrieveText(mem, hints);
    await markAccessed(mem, factIds);
    return {
      text: found ? neutralize(found) : "No memory stored yet.",
      isError: false,
      wrote: false,
    };
  }
  return {
    text: `@memory: unknown cmd "${raw}" (use recall, remember, forget or profile)`,
    isError: true,
    wrote: false,
  };
}
