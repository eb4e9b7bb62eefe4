import type { ChatMessage } from "../llm/types.ts";
import { withContent } from "./blocks.ts";
import type { MicrocompactConfig } from "./microcompact-config.ts";
import { clearingGain, rewriteTokens } from "./microcompact-cost.ts";
import { DELTA } from "./microcompact-delta.ts";
import { clearedCalls, DUPLICATE, dueContent } from "./microcompact-forms.ts";
import { CHARS_PER_TOKEN, messageWeight } from "./tokens.ts";

/**
 * Past the cut point everything is written again anyway, so there a result this small is cleared
 * too (its summary line is ~70 chars); MIN_CONTENT only decides where a clearing may start.
 */
const REWRITTEN_MIN_CHARS = 256;

function isCandidate(m: ChatMessage): boolean {
  if (typeof m.content !== "string") return false;
  return m.role === "tool" || (m.role === "user" && m.meta?.agent_feedback === true);
}

/** Each message's age in assistant turns; a result pointed to (or built from) is as young as its youngest pointer. */
export function agesOf(messages: readonly ChatMessage[]): number[] {
  let total = 0;
  for (const m of messages) if (m.role === "assistant") total++;
  const ages: number[] = [];
  const byId = new Map<string, number>();
  let turn = 0;
  for (const [i, m] of messages.entries()) {
    if (m.role === "assistant") turn++;
    ages.push(total - turn);
    if (m.role === "tool" && m.tool_call_id) byId.set(m.tool_call_id, i);
  }
  for (const [i, m] of messages.entries()) {
    const id =
      m.role === "tool" ? (DUPLICATE.exec(m.content) ?? DELTA.exec(m.content))?.[1] : undefined;
    const original = id === undefined ? undefined : byId.get(id);
    if (original !== undefined)
      ages[original] = Math.min(ages[original] as number, ages[i] as number);
  }
  return ages;
}

export interface Plan {
  /** The rewrites, in history order; the first one is the cut point (`calls`: an old turn's arguments). */
  due: Array<{ index: number; content: string; calls: boolean }>;
  /** The history with them applied. */
  after: ChatMessage[];
  freedChars: number;
}

export interface PlanInput {
  messages: readonly ChatMessage[];
  ages: readonly number[];
  config: MicrocompactConfig;
  /** The seed's eager rewrite: MIN_CONTENT everywhere, nothing else cleared on the way. */
  eager: boolean;
}

interface Rewrite {
  index: number;
  content: string;
  /** An old turn whose tool calls' long arguments go (the message as it goes out). */
  message?: ChatMessage;
  /** At least MIN_CONTENT: a clearing may start here. */
  startable: boolean;
}

/** Every result a clearing could rewrite `shift` turns from now, and its new content. */
function rewritesDue(input: PlanInput, shift: number): Rewrite[] {
  const { messages, ages, config, eager } = input;
  const floor = eager ? config.minContent : Math.min(REWRITTEN_MIN_CHARS, config.minContent);
  const out: Rewrite[] = [];
  for (const [i, m] of messages.entries()) {
    if (!eager && m.role === "assistant" && (ages[i] as number) + shift >= config.summarizeTurns) {
      const message = clearedCalls(m);
      const freed = message ? messageWeight(m) - messageWeight(message) : 0;
      if (message && freed >= floor)
        out.push({ index: i, content: m.content, message, startable: freed >= config.minContent });
      continue;
    }
    if (!isCandidate(m)) continue;
    const content = dueContent(m.content, (ages[i] as number) + shift, config, floor);
    if (content === undefined) continue;
    const startable = dueContent(m.content, (ages[i] as number) + shift, config) !== undefined;
    out.push({ index: i, content, startable });
  }
  return out;
}

function planOf(input: PlanInput, due: Rewrite[]): Plan {
  const after = input.messages.slice();
  let freedChars = 0;
  for (const { index, content, message } of due) {
    const m = input.messages[index] as ChatMessage;
    after[index] = message ?? withContent(m, content);
    freedChars += messageWeight(m) - messageWeight(after[index] as ChatMessage);
  }
  const kinds = due.map(({ index, content, message }) => ({ index, content, calls: !!message }));
  return { due: kinds, after, freedChars };
}

/**
 * Every rewrite due `shift` turns from now, from the first result of at least MIN_CONTENT chars at
 * or after message `from` on: past it every result the summary line shortens (it is rewritten anyway).
 */
export function plan(input: PlanInput, from = 0, shift = 0): Plan {
  const due = rewritesDue(input, shift);
  const start = due.findIndex((r) => r.index >= from && r.startable);
  return planOf(input, start < 0 ? [] : due.slice(start));
}

export interface Clearing {
  plan: Plan;
  cut: number;
  freedTokens: number;
  rewriteTokens: number;
  gain: number;
}

export interface ClearingInput extends PlanInput {
  /** Messages the previous request carried. */
  sentBefore: number;
  /** Message counts of earlier requests whose cache entry is still a prefix. */
  entries: readonly number[];
  requestsLeft: number;
  /** strict: the most tokens a clearing may make the provider write again (what pointers saved). */
  budget?: number;
  /** The provider's cache has expired: the whole prompt is written again anyway. */
  cold?: boolean;
}

/**
 * The clearing that gains most: each result due of at least MIN_CONTENT chars is a possible cut
 * point (clearing it and everything due after it). The oldest cut frees most; a later one rewrites
 * less, and wins when the oldest lies beyond the provider's lookback (clearing there would rewrite
 * the whole history). Results before the cut stay as they are, byte for byte. A clearing that
 * would rewrite more tokens than it frees never gains (it would batch better a few turns later).
 * With a budget only the cuts it affords count.
 */
export function bestClearing(input: ClearingInput): Clearing | undefined {
  const due = rewritesDue(input, 0);
  let best: Clearing | undefined;
  for (const [k, r] of due.entries()) {
    if (!r.startable) continue;
    const p = planOf(input, due.slice(k));
    const freedTokens = Math.floor(p.freedChars / CHARS_PER_TOKEN);
    const rewrite = input.cold
      ? 0
      : rewriteTokens({
          after: p.after,
          cut: r.index,
          sentBefore: input.sentBefore,
          entries: input.entries,
        });
    if (input.budget !== undefined && rewrite > input.budget) continue;
    // never rewrite more than it frees, and pay for the rewrite over the requests expected
    const gain =
      freedTokens >= rewrite ? clearingGain(freedTokens, rewrite, input.requestsLeft) : -rewrite;
    if (!best || gain > best.gain) {
      best = { plan: p, cut: r.index, freedTokens, rewriteTokens: rewrite, gain };
    }
  }
  return best;
}
