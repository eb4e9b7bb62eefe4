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
   * Whether this run has extensions: agent and coder do; ask (no tools: a skills index would name a
   * tool it cannot call) and the REPL's runs (servers would start and stop on every line) do not.
   */
  enabled: boolean;
}

/** The extensions of one run (lazily started: a run that offers no tools starts no server). */
export async function openRunExtensions(input: ExtensionsInput): Promise<RunExtensions> {
  if (!input.enabled) return noExtensions();
  // loaded on demand: ask, the REPL and every other command never pay for lib/extensions
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
