/**
 * attachExtensions: today's agent/coder run (lib/agent/headless.ts) wired to one RunExtensions —
 * until the run engine (lib/run) calls it at its own points. Everything the orchestrator needs is
 * here: the extension tools as agent tools (MCP ones are outbound channels for the policy), the
 * prompt blocks (index and server lines cached, triggered skill bodies volatile), the hooks at
 * SessionStart / UserPromptSubmit / PreToolUse / PostToolUse(Failure) / PreCompact / PostCompact /
 * Notification / SessionEnd (each a `hook` stream event), and the servers for the envelope.
 */
import type { Ctx } from "../core/ctx.ts";
import { openExtensions } from "../extensions/open.ts";
import type {
  ExtensionTool,
  HookEvent,
  HookEventName,
  RunExtensions,
  SkillEffects,
} from "../extensions/types.ts";
import type { ChatMessage, SystemBlock } from "../llm/types.ts";
import type { Reporter } from "../output/reporter.ts";
import type { AgentHooks, Tool } from "./types.ts";

export interface AttachOptions {
  ctx: Pick<Ctx, "cwd" | "fetch" | "version" | "signal" | "now">;
  env: Ctx["env"];
  workspaceRoot: string;
  trusted: boolean;
  task: string;
  bare: boolean;
  mcpConfig?: readonly string[];
  strictMcpConfig?: boolean;
  /** The effort the user chose (an untrusted skill may only lower it). */
  effort?: string;
}

export interface Attached {
  ext: RunExtensions;
  /** The skills the task activated: their allowed-tools, model and effort. */
  effects: SkillEffects;
  /** Wraps the reporter so compaction and on-ask denials fire their hooks. */
  tap(reporter: Reporter): Reporter;
  /** Starts the servers; the extension tools as agent tools, and which to offer first. */
  tools(): Promise<{ tools: Tool[]; offered: string[] }>;
  /** The system blocks with the extensions' cached blocks after the last cached one, skills last. */
  system(blocks: SystemBlock[]): SystemBlock[];
  /** moreTools / beforeTool / afterTool for the loop. */
  hooks(): Pick<AgentHooks, "moreTools" | "beforeTool" | "afterTool">;
  /** SessionStart, then UserPromptSubmit with the task. */
  start(sessionId: string | null): Promise<void>;
  servers(): ReturnType<RunExtensions["servers"]>;
  /** Tool results an extension marked untrusted are never memory's source. */
  withoutUntrusted(messages: readonly ChatMessage[]): ChatMessage[];
  /** SessionEnd, pending hooks, every server stopped. Safe to call twice. */
  close(): Promise<void>;
}

function agentTool(t: ExtensionTool): Tool {
  return {
    name: t.name,
    description: t.description,
    input_schema: t.input_schema,
    kind: t.origin === "mcp" ? "network" : "read",
    ...(t.aliases ? { aliases: t.aliases } : {}),
    ...(t.untrustedOutput ? { untrustedOutput: true } : {}),
    subject: (args) => JSON.stringify(args),
    async execute(args, toolCtx) {
      const r = await t.call(args, toolCtx.signal);
      return { output: r.output, ...(r.isError ? { isError: true } : {}) };
    },
  };
}

/** Opens the run's extensions and adapts them to today's agent loop. */
export async function attachExtensions(o: AttachOptions): Promise<Attached> {
  const ext = await openExtensions(o.ctx, {
    env: o.env,
    workspaceRoot: o.workspaceRoot,
    trusted: o.trusted,
    mcpConfig: o.mcpConfig,
    strictMcpConfig: o.strictMcpConfig,
    bare: o.bare,
  });
  const skillBlocks = ext.contextFor(o.task, []);
  const effects = ext.skillEffects({ effort: o.effort });
  let reporter: Reporter | undefined;
  let sessionId: string | null = null;
  const pending = new Set<Promise<unknown>>();
  const untrusted = new Set<string>();
  const flushWarnings = () => {
    for (const w of ext.warnings()) reporter?.warn(w.code, w.message);
  };
  const fire = async (type: HookEventName, extra: Partial<HookEvent> = {}) => {
    const event: HookEvent = {
      type,
      timestamp: o.ctx.now().toISOString(),
      sessionId,
      workingDir: o.ctx.cwd,
      ...extra,
    };
    const outcome = await ext.fire(event);
    for (const r of outcome.ran)
      reporter?.event("hook", {
        ...r,
        ...(extra.toolName ? { tool: extra.toolName } : {}),
        ...(r.status === "blocked" && outcome.reason ? { reason: outcome.reason } : {}),
      });
    for (const w of outcome.warnings) reporter?.warn(w.code, w.message);
    return outcome;
  };
  const later = (p: Promise<unknown>) => {
    const tracked = p.catch(() => {}).finally(() => pending.delete(tracked));
    pending.add(tracked);
  };
  let closed = false;
  return {
    ext,
    effects,
    tap(r) {
      reporter = r;
      flushWarnings();
      const tapped = new Proxy(r, {
        get(target, prop) {
          if (prop === "event")
            return (type: string, data: Record<string, unknown> = {}) => {
              target.event(type, data);
              if (type === "compaction.started")
                later(
                  fire("PreCompact", {
                    trigger: data["trigger"] === "threshold" ? "auto" : "recovery",
                  }),
                );
              else if (type === "compaction.completed")
                later(fire("PostCompact", { trigger: "auto" }));
              else if (type === "permission.decided" && data["source"] === "on_ask")
                later(
                  fire("Notification", {
                    toolName: String(data["name"] ?? ""),
                    error: `needs approval, denied unattended: ${String(data["reason"] ?? "")}`,
                  }),
                );
            };
          const value = Reflect.get(target, prop, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      reporter = tapped;
      return tapped;
    },
    async tools() {
      const list = await ext.tools();
      flushWarnings();
      for (const t of list) if (t.untrustedOutput) untrusted.add(t.name);
      return {
        tools: list.map(agentTool),
        offered: list.filter((t) => !t.deferred).map((t) => t.name),
      };
    },
    system(blocks) {
      const cached = ext.systemBlocks().map((b) => ({ id: b.id, text: b.text, cache: true }));
      const at = blocks.findLastIndex((b) => b.cache) + 1;
      return [
        ...blocks.slice(0, at),
        ...cached,
        ...blocks.slice(at),
        ...skillBlocks.map((b) => ({ id: b.id, text: b.text, cache: false })),
      ];
    },
    hooks() {
      return {
        moreTools() {
          const fresh = ext.newTools();
          for (const t of fresh) if (t.untrustedOutput) untrusted.add(t.name);
          flushWarnings();
          return fresh.map(agentTool);
        },
        async beforeTool(tool, args) {
          const outcome = await fire("PreToolUse", { toolName: tool.name, toolArgs: args });
          return outcome.blocked
            ? { reason: outcome.reason ?? "blocked by a PreToolUse hook" }
            : undefined;
        },
        afterTool(tool, args, outcome) {
          later(
            fire(outcome.isError ? "PostToolUseFailure" : "PostToolUse", {
              toolName: tool.name,
              toolArgs: args,
              ...(outcome.isError ? { error: outcome.output.slice(0, 4000) } : {}),
              toolOutput: outcome.output.slice(0, 20_000),
            }),
          );
        },
      };
    },
    async start(id) {
      sessionId = id;
      await fire("SessionStart");
      await fire("UserPromptSubmit", { userPrompt: o.task });
    },
    servers: () => ext.servers(),
    withoutUntrusted(messages) {
      const ids = new Set<string>();
      for (const m of messages)
        for (const c of m.tool_calls ?? [])
          if (untrusted.has(c.name) || c.name.startsWith("mcp_")) ids.add(c.id);
      return messages.filter(
        (m) => !(m.role === "tool" && m.tool_call_id && ids.has(m.tool_call_id)),
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(pending);
      await fire("SessionEnd").catch(() => {});
      await ext.close();
      flushWarnings();
    },
  };
}
