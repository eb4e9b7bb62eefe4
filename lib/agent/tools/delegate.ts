import { toChatcliError } from "../../core/errors.ts";
import { runSubagent, type SubagentDeps, SubagentRefused, subagentTools } from "../subagent.ts";
import type { AgentInput, Tool, ToolOutcome } from "../types.ts";
import { num, str, toolError } from "./common.ts";

/** The Go tool's name for the same tool (accepted, not offered). */
export const DELEGATE_ALIAS = "delegate_subagent";

function catalogue(deps: SubagentDeps): string {
  if (deps.roles.length === 0) return "";
  const lines = deps.roles.map((r) => `- ${r.name}: ${r.summary || "(no description)"}`);
  return ` Roles (\`role\`):\n${lines.join("\n")}`;
}

/**
 * delegate: runs a sub-agent on a self-contained task in a fresh context and returns only its final
 * answer (plus files changed and usage). Its own tool calls go through the run's permission policy,
 * so the tool itself is judged as a read; independent delegate calls of one turn run in parallel.
 */
export function delegateTools(deps: SubagentDeps): Tool[] {
  let calls = 0;
  const tool: Tool = {
    name: "delegate",
    // lean: every agent request carries this definition (description/max_turns are accepted too)
    description:
      "Run a sub-agent on a self-contained task in a fresh context (it sees only `prompt`); returns just its answer. Calls in one turn run in parallel." +
      catalogue(deps),
    input_schema: {
      type: "object",
      properties: {
        prompt: { type: "string" },
        ...(deps.roles.length ? { role: { type: "string" } } : {}),
        tools: { type: "array", items: { type: "string" } },
        read_only: { type: "boolean" },
        max_turns: { type: "integer", minimum: 1 },
      },
      required: ["prompt"],
    },
    // its work is judged call by call inside the sub-agent; the delegation itself reads nothing
    kind: "read",
    subject: (args) => {
      const role = str(args, "role");
      const what = str(args, "description") ?? str(args, "prompt") ?? "";
      return role ? `@${role.replace(/^@/, "")} ${what}` : what;
    },
    validate(args) {
      if (!(str(args, "prompt") ?? "").trim())
        return '"prompt" is empty: write the task for the sub-agent';
      const role = str(args, "role")?.replace(/^@/, "");
      if (role && !deps.roles.some((r) => r.name === role)) {
        const known =
          deps.roles.map((r) => r.name).join(", ") ||
          "none (AGENTS.md defines no ## @name sections)";
        return `unknown role ${JSON.stringify(role)}; known roles: ${known}`;
      }
      const tools = args["tools"];
      if (
        tools !== undefined &&
        !(Array.isArray(tools) && tools.every((t) => typeof t === "string"))
      )
        return '"tools" must be an array of tool names';
      return undefined;
    },
    async execute(args, ctx): Promise<ToolOutcome> {
      const roleName = str(args, "role")?.replace(/^@/, "");
      const role = deps.roles.find((r) => r.name === roleName);
      const wanted = args["tools"] as string[] | undefined;
      const request = {
        role,
        tools: wanted,
        readOnly: args["read_only"] === true,
      };
      const { tools, unknown } = subagentTools(deps.tools, request);
      if (unknown.length && wanted?.some((t) => unknown.includes(t)))
        return toolError(
          `tools not available to you (a sub-agent never gets more than its parent): ${unknown.join(", ")}`,
        );
      if (tools.length === 0)
        return toolError("the sub-agent would have no tools left; widen `tools`");
      try {
        const { result, record, filesChanged } = await runSubagent(deps, {
          ...request,
          id: ctx.callId ?? `sub_${++calls}`,
          task: str(args, "prompt") as string,
          description: str(args, "description"),
          maxTurns: num(args, "max_turns"),
          parentLeft: ctx.left?.(),
          signal: ctx.signal,
        });
        const label = role ? `@${role.name}` : "sub-agent";
        const files = record.files_changed.map((f) => `${f.path} (${f.change})`).join(", ");
        const footer = `[${label}: ${record.turns} turn${record.turns === 1 ? "" : "s"}, ${record.total_tokens} tokens${files ? `; files changed: ${files}` : ""}]`;
        if (result.error) {
          const partial = result.finalText ? `\nIts last message:\n${result.finalText}` : "";
          return {
            ...toolError(
              `${label} failed (${result.terminalReason}): ${result.error.message}${partial}\n${footer}`,
            ),
            filesChanged,
          };
        }
        return {
          output: `${result.finalText || "(the sub-agent gave no final answer)"}\n\n${footer}`,
          summary: `${record.turns} turns, ${record.total_tokens} tokens`,
          filesChanged,
        };
      } catch (error) {
        if (error instanceof SubagentRefused) return toolError(error.message);
        return toolError(`sub-agent failed: ${toChatcliError(error).message}`);
      }
    },
  };
  return [tool, { ...tool, name: DELEGATE_ALIAS }];
}

/**
 * The delegate tools of one run, bound to the run's input once it is built: sub-agents inherit its
 * provider, system blocks, policy and limits, and get at most the tools offered to it.
 */
export function createDelegation(
  roles: SubagentDeps["roles"],
  providerFor?: SubagentDeps["providerFor"],
): { tools: Tool[]; records: SubagentDeps["records"]; bind(input: AgentInput): void } {
  const deps: SubagentDeps = {
    parent: undefined as unknown as SubagentDeps["parent"],
    tools: [],
    roles,
    providerFor,
    records: [],
  };
  const tools = delegateTools(deps);
  const own = new Set(tools.map((t) => t.name));
  return {
    tools,
    records: deps.records,
    bind(input) {
      const { task: _task, history: _history, tools: all, offered, ...parent } = input;
      deps.parent = parent;
      const shown = new Set(offered ?? all.map((t) => t.name));
      deps.tools = all.filter((t) => shown.has(t.name) && !own.has(t.name));
    },
  };
}

/**
 * Whether a run offers delegate: when AGENTS.md defines roles, or CHATCLI_AGENT_DELEGATE=true
 * (`false` turns it off even with roles). Off otherwise: a plain run's first request stays lean.
 */
export function delegationEnabled(
  env: Record<string, string | undefined>,
  roles: readonly unknown[],
): boolean {
  const flag = env["CHATCLI_AGENT_DELEGATE"]?.trim().toLowerCase();
  if (flag && ["1", "true", "on", "yes"].includes(flag)) return true;
  if (flag && ["0", "false", "off", "no"].includes(flag)) return false;
  return roles.length > 0;
}
