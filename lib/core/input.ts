import type { Stdin } from "./ctx.ts";
import { ChatcliError, UsageError } from "./errors.ts";

export interface StdinOptions {
  /** A prompt was given as an argument: stdin (if any) is context, and a silent pipe is not waited on. */
  hasPrompt: boolean;
  noStdin?: boolean;
  /** How long to wait for the first byte of a pipe (CONTRACT §4.3). */
  firstByteTimeoutMs: number;
  /**
   * Without a prompt, stdin is read to EOF however long the first byte takes (`slow-build | chatcli
   * ask`). Set this for text that is never slow to produce (a fact, an export, a conversation): a pipe
   * silent for firstByteTimeoutMs then counts as no input instead of hanging the command.
   */
  giveUpOnSilentPipe?: boolean;
  maxBytes: number;
  truncate?: boolean;
  /**
   * SIGINT/SIGTERM or --timeout: stops the read at once (a producer that never closes the pipe must
   * not keep a cancelled run alive). Its reason is thrown when it is a ChatcliError, else `cancelled`.
   */
  signal?: AbortSignal;
}

export interface StdinResult {
  /** undefined when stdin was not read or had no data. */
  text: string | undefined;
  bytes: number;
  warnings: Array<{ code: string; message: string }>;
}

/** Reads stdin under the contract's rules: never hang, cap the size, refuse binary. */
export async function readStdin(stdin: Stdin, options: StdinOptions): Promise<StdinResult> {
  const warnings: StdinResult["warnings"] = [];
  if (options.noStdin || stdin.kind === "tty" || stdin.kind === "null") {
    return { text: undefined, bytes: 0, warnings };
  }
  const chunks = stdin.chunks()[Symbol.asyncIterator]();
  const iterator: AsyncIterator<Uint8Array> = {
    next: () => untilAborted(chunks.next(), options.signal, () => void chunks.return?.()),
    return: (value?: unknown) =>
      chunks.return?.(value) ?? Promise.resolve({ done: true as const, value: undefined }),
  };
  const parts: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  // Without a prompt, stdin IS the prompt: wait for it to EOF (`slow-build | chatcli ask`). With a
  // prompt, a pipe that stays silent past the first-byte timeout is skipped (CONTRACT §4.2–3).
  const waitMs =
    stdin.kind === "file" || !(options.hasPrompt || options.giveUpOnSilentPipe)
      ? 0
      : options.firstByteTimeoutMs;
  const first = await firstChunk(iterator, waitMs);
  if (first === "timeout") {
    void iterator.return?.();
    if (options.hasPrompt) {
      warnings.push({
        code: "stdin_no_data",
        message: `stdin is an open pipe with no data after ${options.firstByteTimeoutMs} ms; continuing without it (a slow producer needs a larger --stdin-timeout; --no-stdin skips the wait)`,
      });
    }
    return { text: undefined, bytes: 0, warnings };
  }
  let next: IteratorResult<Uint8Array> = first;
  while (!next.done) {
    const chunk = next.value;
    if (total + chunk.length > options.maxBytes) {
      if (!options.truncate) {
        void iterator.return?.();
        throw new UsageError(`input is larger than --max-input-bytes (${options.maxBytes} bytes)`, {
          reason: "input_too_large",
          hint: "pass --truncate-input to cut it, or raise --max-input-bytes",
        });
      }
      parts.push(chunk.subarray(0, options.maxBytes - total));
      total = options.maxBytes;
      truncated = true;
      void iterator.return?.();
      break;
    }
    parts.push(chunk);
    total += chunk.length;
    next = await iterator.next();
  }
  const bytes = concat(parts, total);
  if (bytes.includes(0)) {
    throw new UsageError("stdin contains NUL bytes (binary input)", {
      reason: "bad_input",
      hint: "pipe text, or extract the text first (e.g. strings FILE)",
    });
  }
  const kept = truncated ? cutUtf8(bytes) : bytes;
  let text = new TextDecoder("utf-8", { fatal: false }).decode(kept);
  if (text.trim() === "" && options.hasPrompt && stdin.kind === "pipe") {
    warnings.push({
      code: "stdin_no_data",
      message: `stdin is a pipe that closed with ${total === 0 ? "no data" : "only blank lines"}; continuing with the prompt alone`,
    });
  }
  if (text.includes("\uFFFD") && !isUtf8(kept)) {
    warnings.push({
      code: "invalid_utf8",
      message: "stdin is not valid UTF-8: the invalid bytes were replaced with U+FFFD (�)",
    });
  }
  if (truncated) {
    warnings.push({
      code: "input_truncated",
      message: `stdin was cut to ${options.maxBytes} bytes (--truncate-input)`,
    });
  }
  if (text.length === 0) text = "";
  return { text: text.trim() === "" ? undefined : text, bytes: total, warnings };
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Resolves like `promise`, or rejects as soon as `signal` aborts (after calling `onAbort`). */
function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort: () => void,
): Promise<T> {
  if (!signal) return promise;
  const stopped = () => {
    onAbort();
    const reason: unknown = signal.reason;
    return reason instanceof ChatcliError
      ? reason
      : new ChatcliError("cancelled", "cancelled while reading stdin");
  };
  if (signal.aborted) return Promise.reject(stopped());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(stopped());
    signal.addEventListener("abort", abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", abort);
        reject(error);
      },
    );
  });
}

async function firstChunk(
  iterator: AsyncIterator<Uint8Array>,
  timeoutMs: number,
): Promise<IteratorResult<Uint8Array> | "timeout"> {
  if (timeoutMs <= 0) return iterator.next();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    return await Promise.race([iterator.next(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Drops a trailing partial UTF-8 sequence so a cut never splits a character. */
export function cutUtf8(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  let i = end - 1;
  while (i >= 0 && i >= end - 4 && ((bytes[i] as number) & 0xc0) === 0x80) i--;
  if (i < 0) return bytes;
  const lead = bytes[i] as number;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (end - i < need) end = i;
  return bytes.subarray(0, end);
}

/** CONTRACT §4.5: `<stdin bytes="N">\n…\n</stdin>\n\n<instruction>`. */
export function composePrompt(prompt: string | undefined, stdin: StdinResult): string | undefined {
  const p = prompt?.trim() ? prompt : undefined;
  if (stdin.text === undefined) return p;
  if (p === undefined) return stdin.text;
  const body = stdin.text.endsWith("\n") ? stdin.text.slice(0, -1) : stdin.text;
  return `<stdin bytes="${stdin.bytes}">\n${body}\n</stdin>\n\n${p}`;
}

/**
 * The prompt of a one-shot run: the argument and/or stdin under CONTRACT §4, composed; throws
 * no_prompt (exit 2) when there is neither. `what` names it in the error ("prompt", "task").
 */
export async function readPromptInput(
  stdin: Stdin,
  prompt: string | undefined,
  options: Omit<StdinOptions, "hasPrompt"> & { what?: string },
): Promise<{ text: string; warnings: StdinResult["warnings"] }> {
  const result = await readStdin(stdin, { ...options, hasPrompt: prompt !== undefined });
  const text = composePrompt(prompt, result);
  if (text === undefined) {
    const what = options.what ?? "prompt";
    throw new UsageError(`no ${what}: pass it as an argument or pipe it on stdin`, {
      reason: "no_prompt",
      hint:
        what === "task"
          ? 'chatcli agent "fix the failing tests", or pipe the task on stdin'
          : 'chatcli ask "why did the build fail" < build.log',
    });
  }
  return { text, warnings: result.warnings };
}
