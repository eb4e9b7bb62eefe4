import type { Env } from "../core/ctx.ts";
import { toChatcliError } from "../core/errors.ts";
import type { ChatMessage } from "../llm/types.ts";
import { applyExtraction } from "./extract-apply.ts";
import { buildExtractionPrompt, isNothingNew, parseExtraction } from "./extract-parse.ts";
import { renderMarkdown } from "./facts.ts";
import { dropSegment, listSegments, queueSegment, readSegment, releaseSegment } from "./pending.ts";
import { loadProfile } from "./profile.ts";
import { profileText } from "./profile-format.ts";
import {
  type Clock,
  loadFacts,
  lockStore,
  type Memory,
  openMemory,
  readStoreJson,
  writeStoreJson,
} from "./store.ts";
import { loadProjects, loadTopics, projectsText, recordUsage, topicsText } from "./tracking.ts";

/** An LLM call injected by the caller (one per provider of the fallback chain). */
export type ExtractLlm = (prompt: string, signal: AbortSignal) => Promise<string>;

export interface ExtractInput {
  env: Env;
  now?: Clock;
  cwd?: string;
  workspace?: string;
  messages: readonly ChatMessage[];
  /** Active provider first, then the fallbacks. */
  llm: readonly ExtractLlm[];
  /** Hard bound on the whole call (drain + live extraction). */
  timeoutMs: number;
  /** Per-attempt timeout; defaults to timeoutMs / number of providers. */
  attemptTimeoutMs?: number;
  stderr?: { write(text: string): unknown };
  /** usage_stats feature bucket: chat, agent, coder or run. */
  feature?: string;
  signal?: AbortSignal;
}

export interface ExtractResult {
  factsWritten: number;
  queued: boolean;
  drained: number;
  /** Why the live segment's reply was dropped unstored (not an extraction result), if it was. */
  dropped?: string;
}

const STATE = "chatcli_memory_state.json";

async function updateState(
  mem: Memory,
  fn: (s: Record<string, unknown>) => void,
): Promise<Record<string, unknown>> {
  return lockStore(mem, STATE, async () => {
    const raw = await readStoreJson(mem, STATE, "object");
    const s =
      raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    s["version"] = 1;
    fn(s);
    await writeStoreJson(mem, STATE, s);
    return s;
  });
}

/** Runs the chain: first success wins; each attempt has its own timeout within the deadline. */
async function callChain(
  input: ExtractInput,
  prompt: string,
  deadline: number,
): Promise<string | undefined> {
  const per = input.attemptTimeoutMs ?? Math.floor(input.timeoutMs / Math.max(1, input.llm.length));
  for (const llm of input.llm) {
    const budget = Math.min(per, deadline - Date.now());
    if (budget <= 0 || input.signal?.aborted) return undefined;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    input.signal?.addEventListener("abort", onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new Error("timeout"));
        }, budget);
      });
      return await Promise.race([llm(prompt, controller.signal), timeout]);
    } catch {
      // next provider
    } finally {
      clearTimeout(timer);
      input.signal?.removeEventListener("abort", onAbort);
    }
  }
  return undefined;
}

async function existingContext(mem: Memory): Promise<string> {
  const nowMs = mem.now().getTime();
  const [state, profile, topics, projects] = await Promise.all([
    loadFacts(mem),
    loadProfile(mem),
    loadTopics(mem),
    loadProjects(mem),
  ]);
  const parts: string[] = [];
  const md = renderMarkdown(state.facts.values(), nowMs, mem.cfg.maxSize);
  if (md) parts.push(`EXISTING LONG-TERM MEMORY (do NOT duplicate these facts):\n\n${md}`);
  const pt = profileText(profile, "");
  if (pt) parts.push(`EXISTING USER PROFILE:\n\n${pt}`);
  const tt = topicsText(topics, nowMs, 15);
  if (tt) parts.push(`KNOWN TOPICS:\n\n${tt}`);
  const pj = projectsText(projects);
  if (pj) parts.push(`KNOWN PROJECTS:\n\n${pj}`);
  return parts.join("\n\n---\n\n");
}

async function extractOnce(
  mem: Memory,
  input: ExtractInput,
  messages: readonly ChatMessage[],
  deadline: number,
): Promise<{ ok: boolean; facts: number; summary: string; dropped?: string }> {
  const prompt = buildExtractionPrompt(messages, mem.workspace, await existingContext(mem));
  const response = await callChain(input, prompt, deadline);
  if (response === undefined) return { ok: false, facts: 0, summary: "" };
  if (isNothingNew(response)) return { ok: true, facts: 0, summary: "" };
  const parsed = parseExtraction(response);
  if (parsed.rejected) {
    // The model answered, so retrying gives the same: the segment counts as done, nothing stored.
    mem.warn(`memory: extraction reply dropped, nothing stored (${parsed.rejected})`);
    return { ok: true, facts: 0, summary: "", dropped: parsed.rejected };
  }
  const applied = await applyExtraction(mem, parsed, messages);
  return { ok: true, ...applied };
}

/**
 * After a run: drains up to 3 pending segments (oldest first), then extracts `messages`. If every
 * provider fails the segment is queued in `pending/`. Never takes longer than `timeoutMs`.
 */
export async function extractAfterRun(input: ExtractInput): Promise<ExtractResult> {
  const mem = openMemory({ ...input, warn: (l) => input.stderr?.write(`${l}\n`) });
  if (!mem.cfg.enabled) return { factsWritten: 0, queued: false, drained: 0 };
  // LLM calls honour the deadline themselves; the grace covers file IO stuck behind another
  // process's lock. If even that runs out, the segment is queued so nothing is lost.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), input.timeoutMs + GRACE_MS);
  });
  const flags = { late: false };
  const work = run(mem, input, Date.now() + input.timeoutMs, flags);
  const first = await Promise.race([work, late]).finally(() => clearTimeout(timer));
  if (first !== "late") return first;
  flags.late = true;
  const live = liveMessages(input.messages);
  let queued = false;
  if (live.length) {
    queued = await queueSegment(mem, live).then(
      () => true,
      (error: unknown) => {
        const why = toChatcliError(error).message;
        mem.warn(`memory: this run's facts were lost: could not queue them (${why})`);
        return false;
      },
    );
  }
  return { factsWritten: 0, queued, drained: 0 };
}

const GRACE_MS = 1000;

function liveMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.filter((m) => m.role !== "system" && m.content.trim() !== "");
}

async function run(
  mem: Memory,
  input: ExtractInput,
  deadline: number,
  flags: { late: boolean },
): Promise<ExtractResult> {
  const result: ExtractResult = { factsWritten: 0, queued: false, drained: 0 };
  const live = liveMessages(input.messages);
  // One usage event per extraction pass, whatever its outcome (Go does the same).
  if (live.length > 0) await recordUsage(mem, live.length, input.feature ?? "run");
  let failed = false;
  for (const name of await listSegments(mem)) {
    if (result.drained >= 3) break;
    const seg = await readSegment(mem, name);
    if (!seg) continue;
    // A segment queued in another project is extracted for that project (prompt and source_project).
    const owner =
      seg.workspace && seg.workspace !== mem.workspace
        ? openMemory({ ...input, workspace: seg.workspace, warn: mem.warn })
        : mem;
    const r = await extractOnce(owner, input, seg.messages, deadline);
    if (!r.ok) {
      await releaseSegment(seg);
      failed = true;
      break;
    }
    await dropSegment(seg);
    result.drained++;
    result.factsWritten += r.facts;
    if (r.summary) input.stderr?.write(`memory: ${r.summary}\n`);
  }
  if (live.length > 0) {
    const r = failed
      ? { ok: false, facts: 0, summary: "" }
      : await extractOnce(mem, input, live, deadline);
    if (r.ok) {
      result.factsWritten += r.facts;
      if ("dropped" in r && r.dropped) result.dropped = r.dropped;
      if (r.summary) input.stderr?.write(`memory: ${r.summary}\n`);
    } else if (!flags.late) {
      await queueSegment(mem, live);
      result.queued = true;
    }
  }
  if (result.queued || failed) {
    const s = await updateState(mem, (s) => {
      s["extraction_failures"] = Number(s["extraction_failures"] ?? 0) + 1;
    });
    const n = Number(s["extraction_failures"]);
    if (n >= 2 && s["failure_notified"] !== true) {
      input.stderr?.write(
        `memory: extraction failing (${n} in a row) — recent facts are queued on disk and will be retried automatically\n`,
      );
      await updateState(mem, (s) => {
        s["failure_notified"] = true;
      });
    }
  } else if (live.length > 0 || result.drained > 0) {
    await updateState(mem, (s) => {
      s["extraction_failures"] = 0;
      s["failure_notified"] = false;
    });
  }
  return result;
}

/**
 * Queues messages for a later extraction without calling any model — for callers about to drop
 * history that extraction has not seen (conversation compaction, rewind). Redacted, atomic, capped.
 */
export async function queueForExtraction(
  options: { env: Env; now?: Clock },
  messages: readonly ChatMessage[],
): Promise<boolean> {
  const mem = openMemory(options);
  const live = liveMessages(messages);
  if (!mem.cfg.enabled || live.length === 0) return false;
  await queueSegment(mem, live);
  return true;
}
