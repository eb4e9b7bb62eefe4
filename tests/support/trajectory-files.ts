// Agent trajectories from files, for the microcompact replay (tests/support/replay.ts) on data that is
// not ours: `bun scripts/replay-trajectories.ts DIR…` scores real runs the way docs/bench.md scores
// the generated dev set. Reads what agents and their harnesses write:
// - a JSON array of messages, OpenAI-style (`tool_calls`, role `tool`) or Anthropic-style
//   (`tool_use` / `tool_result` blocks); content as a string or an array of parts;
// - an object with `messages` (a request body, mini-SWE-agent's `.traj.json`) or `history`
//   (SWE-agent's `.traj`, whose tool messages carry `tool_call_ids`), or a ChatCLI session
//   (`chat_history`);
// - JSONL: one message per line, or one such object per line (several runs).
// A run whose scaffold sends commands as text (no tool calls: the observation comes back as a user
// message, as mini-SWE-agent does) is replayed as chatcli would run it: the command in the reply's
// last fenced block becomes a `bash` call and the observation its result.
import { isObject, parseArgs, textOf } from "../../lib/history/formats.ts";
import { messageTokens } from "../../lib/history/tokens.ts";
import type { ChatMessage, ToolCall } from "../../lib/llm/types.ts";
import type { Trajectory } from "./replay.ts";

type Wire = Record<string, unknown>;

/** A call's arguments as chatcli keeps them (what did not parse as `raw`). */
function callArgs(value: unknown): Pick<ToolCall, "arguments" | "raw"> {
  const { args, raw } = parseArgs(value);
  return raw ? { arguments: args, raw } : { arguments: args };
}

const str = (v: unknown, fallback = "") => (typeof v === "string" ? v : fallback);

/** One wire message as chatcli's messages (an Anthropic user turn may hold several results). */
function fromWire(m: Wire, index: number): ChatMessage[] {
  const role = m["role"] === "developer" ? "system" : str(m["role"]);
  const content = m["content"];
  if (Array.isArray(content) && content.some((b) => isObject(b) && b["type"] === "tool_result")) {
    const out: ChatMessage[] = [];
    const text: unknown[] = [];
    for (const b of content) {
      if (isObject(b) && b["type"] === "tool_result")
        out.push({
          role: "tool",
          tool_call_id: str(b["tool_use_id"]),
          content: textOf(b["content"]),
        });
      else text.push(b);
    }
    if (textOf(text)) out.push({ role: "user", content: textOf(text) });
    return out;
  }
  const msg: ChatMessage = {
    role: (role === "function" ? "tool" : role) as ChatMessage["role"],
    content: textOf(content),
  };
  const calls: ToolCall[] = [];
  if (Array.isArray(m["tool_calls"])) {
    for (const [i, c] of (m["tool_calls"] as unknown[]).entries()) {
      if (!isObject(c)) continue;
      const fn = isObject(c["function"]) ? c["function"] : c;
      calls.push({
        id: str(c["id"], `call_${index}_${i}`),
        type: "function",
        name: str(fn["name"]),
        ...callArgs(fn["arguments"] ?? fn["input"]),
      });
    }
  }
  if (Array.isArray(content)) {
    for (const b of content) {
      if (isObject(b) && b["type"] === "tool_use")
        calls.push({
          id: str(b["id"]),
          type: "function",
          name: str(b["name"]),
          ...callArgs(b["input"]),
        });
    }
  }
  if (calls.length > 0) msg.tool_calls = calls;
  const ids = m["tool_call_ids"];
  if (typeof m["tool_call_id"] === "string") msg.tool_call_id = m["tool_call_id"];
  else if (Array.isArray(ids) && typeof ids[0] === "string") msg.tool_call_id = ids[0];
  return [msg];
}

/** The command a text scaffold's reply runs: its last fenced block, else the whole reply. */
function commandIn(text: string): { command: string; rest: string } {
  const fences = [...text.matchAll(/```[a-zA-Z]*\n([\s\S]*?)```/g)];
  const last = fences.at(-1);
  if (!last || last.index === undefined) return { command: text.trim(), rest: "" };
  return {
    command: (last[1] as string).trim(),
    rest: (text.slice(0, last.index) + text.slice(last.index + last[0].length)).trim(),
  };
}

/** Text-scaffold replies as tool calls, their observations as the calls' results. */
function asToolCalls(messages: ChatMessage[], firstReply: number): ChatMessage[] {
  const out = messages.slice(0, firstReply);
  for (let i = firstReply; i < messages.length; i++) {
    const m = messages[i] as ChatMessage;
    const next = messages[i + 1];
    if (m.role === "assistant" && next?.role === "user") {
      const { command, rest } = commandIn(m.content);
      const id = `text_call_${i}`;
      out.push(
        {
          role: "assistant",
          content: rest,
          tool_calls: [{ id, type: "function", name: "bash", arguments: { command } }],
        },
        { role: "tool", tool_call_id: id, content: next.content },
      );
      i++;
    } else out.push(m);
  }
  return out;
}

export interface LoadedRun {
  name: string;
  trajectory: Trajectory;
  /** Its replies were text commands, replayed as tool calls. */
  converted: boolean;
}

/**
 * A run's messages as a replay trajectory: what precedes the first reply is the cached prefix
 * (system prompt, demonstrations) and the task (the last user message before the first reply);
 * each reply with the results and messages after it is a round. `toolTokens` is added to the
 * prefix (tool definitions are rarely in a trajectory file).
 */
export function trajectoryOf(messages: ChatMessage[], name: string, toolTokens = 0): LoadedRun {
  let firstReply = messages.findIndex((m) => m.role === "assistant");
  if (firstReply < 0) firstReply = messages.length;
  const textScaffold =
    !messages.some((m) => m.role === "tool" || (m.tool_calls?.length ?? 0) > 0) &&
    messages.slice(firstReply).some((m) => m.role === "user");
  const all = textScaffold ? asToolCalls(messages, firstReply) : messages;
  const head = all.slice(0, firstReply);
  let taskAt = -1;
  for (let i = head.length - 1; i >= 0; i--) {
    if (head[i]?.role === "user") {
      taskAt = i;
      break;
    }
  }
  const task = taskAt >= 0 ? (head[taskAt] as ChatMessage) : { role: "user" as const, content: "" };
  let prefixTokens = toolTokens;
  for (const [i, m] of head.entries()) if (i !== taskAt) prefixTokens += messageTokens(m);
  const rounds: ChatMessage[][] = [];
  for (const m of all.slice(firstReply)) {
    if (m.role === "assistant" || rounds.length === 0) rounds.push([m]);
    else (rounds.at(-1) as ChatMessage[]).push(m);
  }
  return {
    name,
    trajectory: { prefixTokens, task, rounds: uniqueIds(rounds) },
    converted: textScaffold,
  };
}

/**
 * Rounds whose call ids repeat an earlier round's (replayed demonstrations reuse theirs) get fresh
 * ones, their results with them: a provider's ids are unique in a run, and results are found by id.
 */
function uniqueIds(rounds: ChatMessage[][]): ChatMessage[][] {
  const seen = new Set<string>();
  return rounds.map((round) => {
    const renamed = new Map<string, string>();
    for (const call of round[0]?.tool_calls ?? []) {
      let id = call.id;
      for (let n = 2; seen.has(id); n++) id = `${call.id}_${n}`;
      seen.add(id);
      if (id !== call.id) renamed.set(call.id, id);
    }
    if (renamed.size === 0) return round;
    return round.map((m) => {
      if (m.tool_calls)
        return {
          ...m,
          tool_calls: m.tool_calls.map((c) => ({ ...c, id: renamed.get(c.id) ?? c.id })),
        };
      const to = m.tool_call_id === undefined ? undefined : renamed.get(m.tool_call_id);
      return to ? { ...m, tool_call_id: to } : m;
    });
  });
}

/** The message lists in one parsed document (several for a JSONL of runs). */
function runsIn(value: unknown): unknown[][] {
  if (Array.isArray(value)) {
    if (value.every((v) => isObject(v) && typeof v["role"] === "string")) return [value];
    return value.flatMap(runsIn);
  }
  if (!isObject(value)) return [];
  for (const key of ["messages", "history", "chat_history"]) {
    const list = value[key];
    if (Array.isArray(list) && list.some((v) => isObject(v) && typeof v["role"] === "string"))
      return [
        typeof value["system"] === "string" || Array.isArray(value["system"])
          ? [{ role: "system", content: textOf(value["system"]) }, ...list]
          : list,
      ];
  }
  return [];
}

/** Every run in a file's text (JSON, or JSONL of messages or of runs). */
export function runsInText(text: string, name: string, toolTokens = 0): LoadedRun[] {
  let docs: unknown[];
  try {
    docs = [JSON.parse(text)];
  } catch {
    docs = [];
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    const parsed = lines.map((l) => JSON.parse(l) as unknown);
    if (parsed.every((v) => isObject(v) && typeof v["role"] === "string")) docs = [parsed];
    else docs = parsed;
  }
  const lists = docs.flatMap(runsIn);
  return lists.map((list, i) => {
    const wires = list.filter((m): m is Wire => isObject(m) && typeof m["role"] === "string");
    // SWE-agent's demonstrations are sent before the task, replies included: prefix, not rounds
    let demoTokens = 0;
    for (const m of wires)
      if (m["is_demo"] === true) for (const d of fromWire(m, 0)) demoTokens += messageTokens(d);
    const messages = wires.filter((m) => m["is_demo"] !== true).flatMap((m, k) => fromWire(m, k));
    const label = lists.length > 1 ? `${name}#${i + 1}` : name;
    return trajectoryOf(messages, label, toolTokens + demoTokens);
  });
}
