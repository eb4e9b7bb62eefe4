/**
 * The one place a run gets its extensions — MCP servers, skills and hooks (lib/extensions) — and the
 * one adapter between their events and the run's: every `fire()` shows what ran as `hook` events and
 * its warnings as warnings. The run calls them at their points (lib/run/open.ts, run.ts, the loop):
 * contextFor → skillEffects → tools() → systemBlocks(); newTools() before each request; SessionStart,
 * UserPromptSubmit, PreToolUse (a block is a denial), PostToolUse(Failure), PreCompact/PostCompact,
 * Notification, SessionEnd; servers() in session.started; close() before the result is printed.
 */
import type { Ctx, Env } from "../core/ctx.ts";
import type { HookOutcome, RunExtensions } from "../extensions/types.ts";
import { noExtensions } from "../extensions/types.ts";
import { type Emit, ev } from "../output/events.ts";

export interface ExtensionsInput {
  ctx: Pick<Ctx, "cwd" | "fetch" | "version" | "signal">;
  env: Env;
  workspaceRoot: string;
  /** Whether the workspace's own files (.mcp.json, its hooks and skills) count. */
  trusted: boolean;
  /** `--bare`: no skills, hooks or MCP servers (only --mcp-config's). */
  bare: boolean;
  /** `--mcp-config FILE` (repeatable) and `--strict-mcp-config`. */
  mcpConfig?: readonly string[];
  strictMcpConfig?: boolean;
  /**
   * Whether this run has extensions of its own: agent and coder do; ask does not (no tools: a skills
   * index would name a tool it cannot call); the REPL opens one set for its session (shareExtensions).
   */
  enabled: boolean;
}

/** The extensions of one run (lazily started: a run that offers no tools starts no server). */
export async function openRunExtensions(input: ExtensionsInput): Promise<RunExtensions> {
  if (!input.enabled) return noExtensions();
  // loaded on demand: ask and every other command never pay for lib/extensions
  const { openExtensions } = await import("../extensions/open.ts");
  return openExtensions(input.ctx, {
    env: input.env,
    workspaceRoot: input.workspaceRoot,
    trusted: input.trusted,
    mcpConfig: input.mcpConfig,
    strictMcpConfig: input.strictMcpConfig,
    bare: input.bare,
  });
}

/** What firing one hook event showed: a `hook` event per hook that ran, then its warnings. */
export function emitHookOutcome(
  emit: Emit,
  outcome: HookOutcome,
  context: { tool?: string; parentId?: string | null } = {},
): void {
  for (const r of outcome.ran)
    emit(
      ev("hook", {
        event: r.event,
        name: r.name,
        status: r.status,
        duration_ms: r.duration_ms,
        tool: context.tool ?? null,
        reason: r.status === "blocked" ? (outcome.reason ?? null) : null,
        parent_id: context.parentId ?? null,
      }),
    );
  for (const w of outcome.warnings) emit(ev("warning", w));
}

/** The extensions' warnings since the last call (a server that failed, a skill over budget). */
export function drainWarnings(extensions: RunExtensions, emit: Emit): void {
  for (const w of extensions.warnings()) emit(ev("warning", w));
}

/**
 * Extensions that outlive one run: the REPL's session opens them once (servers start on the first
 * `/agent`, not on every line) and lends a view to each run. SessionStart fires on the session's first
 * run, SessionEnd when the session ends; a run's close() stops nothing. A chat line gets no tools and
 * no index (it cannot call `skill`); the skill bodies its words or `/name` activate come from
 * `skillContext`, for the REPL's own system prompt.
 */
export interface SessionExtensions {
  forRun(kind: "chat" | "agent"): RunExtensions;
  skillContext(input: string): Array<{ id: string; text: string }>;
  /** SessionEnd hooks, then every server stops; what ran goes to `emit`. */
  end(
    emit: Emit,
    event: { sessionId: string | null; workingDir: string; timestamp: string },
  ): Promise<void>;
}

export function shareExtensions(inner: RunExtensions): SessionExtensions {
  let started = false;
  let ended = false;
  const none: HookOutcome = { blocked: false, ran: [], warnings: [] };
  return {
    forRun(kind) {
      const chat = kind === "chat";
      return {
        ...inner,
        systemBlocks: () => (chat ? [] : inner.systemBlocks()),
        tools: () => (chat ? Promise.resolve([]) : inner.tools()),
        newTools: () => (chat ? [] : inner.newTools()),
        contextFor: (input, paths) => (chat ? [] : inner.contextFor(input, paths)),
        async fire(event) {
          if (event.type === "SessionEnd") return none;
          if (event.type === "SessionStart") {
            if (started) return none;
            started = true;
          }
          return inner.fire(event);
        },
        close: async () => {},
      };
    },
    skillContext: (input) => inner.contextFor(input, []),
    async end(emit, event) {
      if (ended) return;
      ended = true;
      if (started) emitHookOutcome(emit, await inner.fire({ type: "SessionEnd", ...event }));
      await inner.close();
      drainWarnings(inner, emit);
    },
  };
}
