/**
 * The stderr side of every format: progress, warnings and errors, rendered from the run's events
 * (the engine prints nothing itself). Tool lines and other details show in text mode only; the
 * REPL uses the same lines for its activity area.
 */
import { ChatcliError, formatError } from "../core/errors.ts";
import type { CompactPhase } from "../history/compact.ts";
import { describePhase, grouped } from "../history/progress.ts";
import { denialSummary } from "./denials.ts";
import type { Emitted, EventOf } from "./events.ts";
import { quotedLine, stripControl } from "./terminal.ts";

export interface ProgressOptions {
  /** Text mode: one line per tool call, microcompaction and other details. */
  details: boolean;
  /** `chatcli compact` indents its phase lines under the command. */
  phasePrefix?: string;
  /**
   * `chatcli compact` reports every compaction, however small: the conversation is what the user
   * asked about. A run's one-message compaction (a one-shot prompt cut to fit) is one warning only.
   */
  reportEveryCompaction?: boolean;
}

function shortSubject(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > 60 ? `${one.slice(0, 57)}…` : one;
}

/** The line for one finished tool call, or undefined when it never ran (skipped). */
export function toolLine(e: EventOf<"tool.completed">): string | undefined {
  if (e.summary === null) return undefined;
  const subject = e.subject === null ? "" : ` ${shortSubject(e.subject)}`;
  if (e.status === "denied" || e.subject === null) return `▸ ${e.name}${subject} → ${e.summary}`;
  return `▸ ${e.name}${subject} → ${e.summary} (${(e.duration_ms / 1000).toFixed(1)} s)`;
}

/** The line for a retry or a fallback (a fallback's first time is a warning instead). */
export function retryLine(e: EventOf<"retry">, seen: Set<string>): string | undefined {
  const what = e.error.status ? `HTTP ${e.error.status}` : e.error.code;
  if (!e.fallback)
    return `chatcli: ${what} from ${e.provider} — retrying in ${(e.delay_ms / 1000).toFixed(1)} s (attempt ${e.attempt})`;
  const target = `${e.provider}/${e.model}`;
  const first = !seen.has(target);
  seen.add(target);
  return first ? undefined : `chatcli: ${what} (${e.error.message}) — falling back to ${target}`;
}

/** The one-line summary of a finished compaction. */
export function compactionLine(e: EventOf<"compaction.completed">): string | undefined {
  if (e.status === "cancelled") return undefined;
  const tokens = (n: number) => `~${grouped(n)} tokens`; // not toLocaleString: its locale data costs ~2 ms
  if (e.status === "unchanged")
    return `unchanged: ${e.messages_before} messages, ${tokens(e.tokens_before)} already fit (budget ${tokens(e.budget_tokens)})`;
  return `compacted: ${e.messages_before} → ${e.messages_after} messages, ${tokens(e.tokens_before)} → ${tokens(e.tokens_after)} (levels ${e.levels_run.join(", ")}; budget ${tokens(e.budget_tokens)})`;
}

/** The error line(s) of an `error` event (none for `| head` closing stdout). */
export function errorText(e: EventOf<"error">): string {
  if (e.exit_code === 141) return "";
  const error = new ChatcliError(e.terminal_reason, e.message, { hint: e.hint ?? undefined });
  return quotedLine(formatError(error));
}

/** A stateful renderer: feed it every event; it returns the stderr text for each (maybe ""). */
export function createProgress(options: ProgressOptions): {
  render(event: Emitted): string;
  /** At the end: the denial summary, unless the error already came with it. */
  finish(denials: Parameters<typeof denialSummary>[0]): string;
} {
  const seen = new Set<string>();
  const labels = new Map<string, string>();
  let summarised = false;
  // one message (a one-shot prompt) is not a history: cutting it is said by one warning, no report
  let quietCompaction = false;
  const lines = (text: string | undefined, parent: string | null = null) => {
    if (!text) return "";
    const label = parent === null ? undefined : (labels.get(parent) ?? "sub-agent");
    const shown = label ? `  ↳ ${label} ${text}` : text;
    return `${stripControl(shown)}\n`;
  };
  const denials: Array<Parameters<typeof denialSummary>[0][number]> = [];
  return {
    render(e) {
      switch (e.type) {
        case "note":
          return e.detail && !options.details ? "" : lines(e.text, e.parent_id);
        case "warning":
          return `chatcli: warning: ${quotedLine(e.message)}\n`;
        case "retry":
          return lines(retryLine(e, seen));
        case "tool.completed":
          return options.details ? lines(toolLine(e), e.parent_id) : "";
        case "permission.decided":
          if (e.decision === "deny" && e.parent_id === null)
            denials.push({
              tool: e.name,
              input: e.input,
              reason: e.reason,
              suggestion: e.suggestion,
            });
          return "";
        case "compaction.started":
          quietCompaction = e.messages <= 1 && options.reportEveryCompaction !== true;
          return "";
        case "compaction.phase": {
          if (quietCompaction) return "";
          const info = Object.fromEntries(Object.entries(e).filter(([, v]) => v !== null));
          const line = describePhase(e.phase as CompactPhase, info);
          return line ? lines(`${options.phasePrefix ?? ""}${line}`) : "";
        }
        case "compaction.completed":
          if (quietCompaction) {
            quietCompaction = false;
            return "";
          }
          return lines(compactionLine(e));
        case "subagent.started":
          labels.set(e.parent_id, e.role ? `@${e.role}` : "sub-agent");
          return "";
        case "error": {
          const summary = denials.length && !summarised ? denialSummary(denials) : "";
          summarised = true;
          return summary + errorText(e);
        }
        default:
          return "";
      }
    },
    finish(all) {
      if (summarised || all.length === 0) return "";
      summarised = true;
      return denialSummary(all);
    },
  };
}
