import { asText } from "../../core/as-text.ts";
import { originOf } from "../../memory/provenance.ts";
import { unverifiedSource } from "../../memory/source.ts";
import { MEMORY_TOOL_ALIASES } from "../../memory/tool.ts";
import { holdReason, supportedBy } from "../../memory/trust.ts";
import type { Tool } from "../types.ts";
import { str, toolError } from "./common.ts";

const ALIASES = MEMORY_TOOL_ALIASES;

function stringifyFields(value: unknown): Record<string, string> | undefined {
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      return undefined;
    }
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === undefined) continue;
    out[k] = Array.isArray(x)
      ? x.map(asText).join(", ")
      : typeof x === "object"
        ? JSON.stringify(x)
        : String(x);
  }
  return out;
}

/** Whether a memory call writes (remember/profile/forget and their aliases). */
export function isMemoryWrite(args: Record<string, unknown>): boolean {
  const cmd = ALIASES[asText(args["cmd"]).toLowerCase()];
  return cmd !== undefined && cmd !== "recall";
}

/** memory: remember / profile / forget / recall against the injected MemoryBackend (ChatCLI's @memory). */
export const memoryTool: Tool = {
  name: "memory",
  description:
    "Long-term memory across sessions: remember {content, category?} a durable fact; recall {query?}; forget {id} one fact by its id (a {match} text only lists matching facts with their ids); profile {fields} of the user.",
  input_schema: {
    type: "object",
    properties: {
      cmd: { type: "string", description: "remember | recall | forget | profile" },
      content: { type: "string" },
      category: { type: "string" },
      id: { type: "string", description: "forget: the fact's id" },
      match: { type: "string" },
      query: { type: "string" },
      fields: { type: "object" },
    },
    required: ["cmd"],
  },
  kind: "memory",
  subject: (args) => str(args, "cmd") ?? "",
  async execute(args, ctx) {
    const cmd = ALIASES[(str(args, "cmd") ?? "").toLowerCase()];
    if (!ctx.memory || ctx.memoryMode === "off")
      return toolError("memory is not enabled in this session");
    if (!cmd) return toolError("memory: cmd must be remember, profile, forget or recall");
    if (cmd !== "recall" && ctx.memoryMode === "read") {
      return toolError(`memory ${cmd}: memory is read-only in this run (--memory read)`);
    }
    switch (cmd) {
      case "remember": {
        const content = str(args, "content")?.trim();
        if (!content) return toolError('memory remember: "content" is required');
        // The user's fact only when the user's words support it (lib/memory/trust.ts); anything else
        // the model writes is unverified, labelled by the tool output it was lifted from, if any.
        const origins = ctx.origins;
        const source =
          origins && supportedBy(content, [origins.userText])
            ? undefined
            : unverifiedSource(
                (origins && originOf(content, origins.list, origins.userText)) ?? "agent",
              );
        return { output: await ctx.memory.remember(content, str(args, "category"), source) };
      }
      case "profile": {
        const fields = stringifyFields(args["fields"]);
        if (!fields || Object.keys(fields).length === 0)
          return toolError('memory profile: "fields" object is required');
        // the profile is injected as the user's: a field the user's words do not support may not
        // ask the agent to act (lib/memory/trust.ts)
        const user = ctx.origins ? [ctx.origins.userText] : [];
        const refused = Object.entries(fields).filter(
          ([k, v]) => !supportedBy(v, user) && holdReason(`${k} ${v}`, "general") !== undefined,
        );
        if (refused.length)
          return toolError(
            `memory profile: refused ${refused.map(([k]) => k).join(", ")}: not the user's own words, and it asks the agent to act (the user can set it with chatcli memory profile set)`,
          );
        return { output: await ctx.memory.profile(fields) };
      }
      case "forget": {
        // By id only: a text never removes facts (it lists the candidates and their ids).
        const target = (str(args, "id") ?? str(args, "match"))?.trim();
        if (!target) return toolError('memory forget: "id" is required');
        if (target.length < 3)
          return toolError('memory forget: "id" must be a fact id (24 hex characters)');
        return { output: await ctx.memory.forget(target) };
      }
      default:
        return { output: await ctx.memory.recall(str(args, "query")) };
    }
  },
};
