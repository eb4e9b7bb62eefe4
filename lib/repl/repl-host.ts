import type { Ctx } from "../core/ctx.ts";
import type { style } from "../output/terminal.ts";
import type { Cancellable, CancellableFn } from "./cancel.ts";
import type { ReplServices } from "./services.ts";
import type { KeyReader, Screen } from "./tty.ts";

/**
 * What the slash-command handlers, the rewind menu and `!command` use of the REPL (repl.ts
 * implements it): they depend on this, not on the REPL, so no file imports back the one that calls it.
 */
export interface ReplHost {
  readonly ctx: Ctx;
  readonly services: ReplServices;
  readonly options: { color: boolean };
  readonly screen: Screen;
  readonly keys: KeyReader;
  readonly style: ReturnType<typeof style>;
  readonly pendingContext: string[];
  /** What the next prompt starts with (a rewound turn's input, put back). */
  nextDraft: string | undefined;
  say(text: string): void;
  agentRun(mode: "agent" | "coder", task: string): Promise<void>;
  reportFailure(result: Cancellable<unknown> & { ok: false }, what: string): void;
  rewindMenu(): Promise<void>;
  menuOptions(signal?: AbortSignal): { color: boolean; now: () => Date; signal: AbortSignal };
  cancellable<T>(fn: CancellableFn<T>): Promise<Cancellable<T>>;
  /** Recomputes the status row (after /compact, after a rewind). */
  updateStatus(): Promise<void>;
}
