/**
 * Scripted replies: the format of `--fake-responses FILE.jsonl` (mock:script) and of the test mock server.
 *
 * One JSON object per line (blank lines are skipped), consumed in order, one per model request:
 *
 *   {"text": "Hello"}                                         a plain answer
 *   {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.ts"}}]}
 *                                                             tool calls (`id` optional: call_<n>_<i>)
 *   {"text": "…", "usage": {"input_tokens": 10}}              override parts of the reported usage
 *   {"error": {"status": 429, "message": "slow down", "retry_after": 2}}
 *                                                             an HTTP error (retry_after in seconds)
 *   {"text": "partial", "error": {"status": 529, "message": "Overloaded"}}
 *                                                             the answer starts, then fails mid-stream
 *   {"delay_ms": 50, "text": "late"}                          wait before answering
 *   {"stall": true}                                           start answering, then never finish
 *   {"text": "…", "stop": "max_tokens"}                       force a stop reason (end|tool_use|max_tokens|other)
 *   {"reasoning": "let me think", "text": "4"}                reasoning (thinking) before the answer
 *
 * A tool call may carry `raw_arguments` (a string sent verbatim instead of the JSON of `arguments`)
 * to script a model that emits broken JSON.
 */
import { ConfigError } from "../../core/errors.ts";
import type { StopReason, Usage } from "../types.ts";

export interface ScriptToolCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Sent verbatim as the arguments text (e.g. invalid JSON) instead of JSON of `arguments`. */
  raw_arguments?: string;
}

export interface ScriptError {
  status: number;
  message: string;
  /** Seconds, sent as a `retry-after` header. */
  retry_after?: number;
}

export interface ScriptReply {
  text?: string;
  tool_calls?: ScriptToolCall[];
  usage?: Partial<Usage>;
  error?: ScriptError;
  delay_ms?: number;
  stall?: boolean;
  stop?: StopReason;
  /** Reasoning the model streams before its answer (thinking blocks, thought parts, reasoning items). */
  reasoning?: string;
}

const STOPS: readonly string[] = ["end", "tool_use", "max_tokens", "other"];
const KEYS = new Set([
  "text",
  "tool_calls",
  "usage",
  "error",
  "delay_ms",
  "stall",
  "stop",
  "reasoning",
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Validates one decoded reply; returns a problem description or undefined. */
export function validateScriptReply(value: unknown): string | undefined {
  if (!isObject(value)) return "a reply must be a JSON object";
  for (const key of Object.keys(value)) {
    if (!KEYS.has(key)) return `unknown key ${JSON.stringify(key)}`;
  }
  if (value["text"] !== undefined && typeof value["text"] !== "string")
    return `"text" must be a string`;
  if (value["reasoning"] !== undefined && typeof value["reasoning"] !== "string")
    return `"reasoning" must be a string`;
  const calls = value["tool_calls"];
  if (calls !== undefined) {
    if (!Array.isArray(calls)) return `"tool_calls" must be an array`;
    for (const call of calls) {
      if (!isObject(call) || typeof call["name"] !== "string" || !call["name"]) {
        return `each tool call needs a "name"`;
      }
      if (call["arguments"] !== undefined && !isObject(call["arguments"])) {
        return `tool call "arguments" must be an object`;
      }
      if (call["id"] !== undefined && typeof call["id"] !== "string")
        return `tool call "id" must be a string`;
    }
  }
  const error = value["error"];
  if (error !== undefined) {
    if (!isObject(error) || typeof error["status"] !== "number")
      return `"error" needs a numeric "status"`;
    if (error["message"] !== undefined && typeof error["message"] !== "string") {
      return `"error.message" must be a string`;
    }
  }
  if (value["usage"] !== undefined && !isObject(value["usage"])) return `"usage" must be an object`;
  if (value["delay_ms"] !== undefined && typeof value["delay_ms"] !== "number") {
    return `"delay_ms" must be a number`;
  }
  if (value["stop"] !== undefined && !STOPS.includes(value["stop"] as string)) {
    return `"stop" must be one of ${STOPS.join(", ")}`;
  }
  return undefined;
}

/** Normalises a valid reply: tool calls get ids and argument objects, errors get a message. */
export function normalizeScriptReply(value: Record<string, unknown>, index: number): ScriptReply {
  const reply = { ...value } as ScriptReply;
  if (reply.tool_calls) {
    reply.tool_calls = reply.tool_calls.map((call, i) => ({
      id: call.id ?? `call_${index + 1}_${i + 1}`,
      name: call.name,
      arguments: call.arguments ?? {},
      ...(call.raw_arguments === undefined ? {} : { raw_arguments: call.raw_arguments }),
    }));
  }
  if (reply.error)
    reply.error = { ...reply.error, message: reply.error.message ?? "scripted error" };
  return reply;
}

/** Parses a whole `.jsonl` script; a bad line is a ConfigError naming the file and line. */
export function parseScript(text: string, fileName: string): ScriptReply[] {
  const replies: ScriptReply[] = [];
  const lines = text.split("\n");
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new ConfigError(`${fileName}:${i + 1}: not valid JSON (${(error as Error).message})`, {
        hint: 'one JSON object per line, e.g. {"text": "hello"}',
      });
    }
    const problem = validateScriptReply(value);
    if (problem) {
      throw new ConfigError(`${fileName}:${i + 1}: ${problem}`, {
        hint: `keys: ${[...KEYS].join(", ")}`,
      });
    }
    replies.push(normalizeScriptReply(value as Record<string, unknown>, replies.length));
  }
  return replies;
}

/** The usage a scripted reply reports: chars/4 estimates overridden by the reply's own `usage`. */
export function scriptUsage(reply: ScriptReply, inputChars: number, outputChars: number): Usage {
  return {
    input_tokens: Math.ceil(inputChars / 4),
    output_tokens: Math.ceil(outputChars / 4),
    reasoning_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    ...reply.usage,
  };
}

/** The arguments text a scripted tool call sends on the wire. */
export function scriptArgumentsText(call: ScriptToolCall): string {
  return call.raw_arguments ?? JSON.stringify(call.arguments ?? {});
}

/** The stop reason a scripted reply ends with. */
export function scriptStop(reply: ScriptReply): StopReason {
  if (reply.stop) return reply.stop;
  return reply.tool_calls?.length ? "tool_use" : "end";
}
