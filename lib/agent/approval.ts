import { type Decision, decide, type PermissionPolicy } from "../policy/permissions.ts";
import { actionOf } from "./action.ts";
import type { AskRequest, Tool } from "./types.ts";

export type { AskRequest };

/**
 * Turns the policy's verdict into an answer: ask a human on a TTY, else resolve by --on-ask
 * (dangerous actions are denied without a TTY, never failed). Nothing here ever waits without a TTY.
 */
export async function judge(
  policy: PermissionPolicy,
  tool: Tool,
  args: Record<string, unknown>,
  ask: ((request: AskRequest) => Promise<boolean>) | undefined,
): Promise<{
  decision: Decision;
  allowed: boolean;
  fail: boolean;
  source: "policy" | "user" | "on_ask";
}> {
  const decision = decide(policy, actionOf(tool, args));
  if (decision.verdict === "allow")
    return { decision, allowed: true, fail: false, source: "policy" };
  if (decision.verdict === "ask") {
    const input = tool.subject(args);
    if (ask) {
      const yes = await ask({
        tool: tool.name,
        input,
        reason: decision.reason,
        dangerous: decision.dangerous,
        args,
      });
      const answered = yes
        ? decision
        : { ...decision, reason: `${decision.reason} (declined on the terminal)` };
      return { decision: answered, allowed: yes, fail: false, source: "user" };
    }
    if (!decision.dangerous && policy.onAsk === "fail") {
      return {
        decision: { ...decision, reason: `${decision.reason} (no TTY; --on-ask fail)` },
        allowed: false,
        fail: true,
        source: "on_ask",
      };
    }
    const why = decision.dangerous ? "no TTY to confirm it" : "no TTY; --on-ask deny";
    return {
      decision: { ...decision, reason: `${decision.reason} (${why})` },
      allowed: false,
      fail: false,
      source: "on_ask",
    };
  }
  return { decision, allowed: false, fail: false, source: "policy" };
}
