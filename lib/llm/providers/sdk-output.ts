/**
 * What an SDK prints by itself (the Anthropic SDK's `console.warn` deprecation notice inside
 * `messages.create`) must not reach stderr raw: it becomes a typed warning.
 */

type ConsoleMethod = "warn" | "error" | "log" | "info";
const METHODS: readonly ConsoleMethod[] = ["warn", "error", "log", "info"];

/**
 * Runs `fn` (synchronous: the SDK prints before its first await) with the console's print methods
 * collecting into a list, restored before returning whatever happens. Nothing else can run meanwhile,
 * so no other output is caught.
 */
export function captureConsole<T>(fn: () => T): { value: T; lines: string[] } {
  const lines: string[] = [];
  const out = globalThis.console as unknown as Record<ConsoleMethod, (...args: unknown[]) => void>;
  const saved = METHODS.map((m) => [m, out[m]] as const);
  for (const m of METHODS) {
    out[m] = (...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === "string" ? a : safeJson(a))).join(" "));
    };
  }
  try {
    return { value: fn(), lines };
  } finally {
    for (const [m, original] of saved) out[m] = original;
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/** Routes captured lines: a deprecation notice is `model_deprecated` (first line only), others `sdk_warning`. */
export function reportSdkLines(
  lines: readonly string[],
  warn: ((code: string, message: string) => void) | undefined,
): void {
  for (const line of lines) {
    const first = line.split("\n")[0]?.trim() ?? "";
    if (!first) continue;
    const url = /https?:\/\/\S+/.exec(line)?.[0]?.replace(/[.,)]+$/, "");
    const where = url && !first.includes(url) ? ` (${url})` : "";
    if (/deprecated/i.test(first)) warn?.("model_deprecated", `${first}${where}`);
    else warn?.("sdk_warning", first);
  }
}
