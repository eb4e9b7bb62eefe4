/** The events of one tool call that are not its result: the permission decision, the hooks that ran. */
import type { HookEvent, HookEventName, HookOutcome } from "../extensions/types.ts";
import { type Emit, ev } from "../output/events.ts";
import type { Tool } from "./types.ts";

/** What of a batch's state these events need. */
interface EventState {
  emit: Emit;
  parentId: string | null;
  fire?: (event: HookEvent) => Promise<HookOutcome>;
  toolCtx: { now: () => Date; cwd: string };
}

type BatchState = EventState;
type Planned = { call: { id: string }; args: Record<string, unknown> };

/** One permission decision as an event (every call that reached the policy, the sandbox or a hook). */
export function decided(
  state: BatchState,
  turn: number,
  p: Planned,
  tool: Tool,
  verdict: {
    allowed: boolean;
    reason: string;
    source: "policy" | "user" | "on_ask" | "sandbox" | "hook";
    suggestion?: string;
  },
): void {
  state.emit(
    ev("permission.decided", {
      turn,
      id: p.call.id,
      name: tool.name,
      input: tool.subject(p.args),
      decision: verdict.allowed ? "allow" : "deny",
      reason: verdict.reason,
      source: verdict.source,
      suggestion: verdict.allowed ? null : (verdict.suggestion ?? null),
      parent_id: state.parentId,
    }),
  );
}

/** Fires one hook event and shows what ran; never throws. */
export async function fireHook(
  state: BatchState,
  type: HookEventName,
  extra: Partial<HookEvent>,
): Promise<HookOutcome | undefined> {
  if (!state.fire) return undefined;
  const outcome = await state.fire({
    type,
    timestamp: state.toolCtx.now().toISOString(),
    sessionId: null,
    workingDir: state.toolCtx.cwd,
    ...extra,
  });
  for (const r of outcome.ran)
    state.emit(
      ev("hook", {
        event: r.event,
        name: r.name,
        status: r.status,
        duration_ms: r.duration_ms,
        tool: extra.toolName ?? null,
        reason: r.status === "blocked" ? (outcome.reason ?? null) : null,
        parent_id: state.parentId,
      }),
    );
  for (const w of outcome.warnings) state.emit(ev("warning", w));
  return outcome;
}
