import type { Env } from "../core/ctx.ts";

/** What replaces a neutralised line (the Go tool's marker). */
export const BLOCKED_LINE = "[BLOCKED: prompt-injection]";

// The "context" scope of the Go threatscan: instruction-override phrases and chat-template tokens.
const INJECTION = [
  /\bignore\s+(?:all\s+)?(?:the\s+)?(?:previous|prior|above)\s+instructions\b/i,
  /\bdisregard\b.{0,40}\bsystem\s+prompt\b/i,
  /\bforget\s+(?:all\s+)?(?:your|the)\s+(?:previous|prior)\s+instructions\b/i,
  /<\/?system>|<\|im_start\|>|<\|im_end\|>/i,
  /\byou\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak)\s+mode\b/i,
];

/** Threat scanning is on unless CHATCLI_THREATSCAN is false/0/off/no. */
export function threatscanEnabled(env: Env): boolean {
  const v = env["CHATCLI_THREATSCAN"]?.trim().toLowerCase();
  return !(v === "false" || v === "0" || v === "off" || v === "no");
}

/** Whether any of the patterns is in `text` (a loop, not some(): see neutralizeInjections). */
function looksInjected(text: string): boolean {
  for (const re of INJECTION) if (re.test(text)) return true;
  return false;
}

/**
 * Replaces every line that looks like a prompt injection; the files on disk are untouched. Plain
 * loops where some() would do: that builtin's first call costs every `bootstrap show` ~70 µs.
 */
export function neutralizeInjections(text: string): { text: string; blocked: number } {
  if (!looksInjected(text)) return { text, blocked: 0 };
  let blocked = 0;
  const lines = text.split("\n").map((line) => {
    if (!looksInjected(line)) return line;
    blocked++;
    return BLOCKED_LINE;
  });
  return { text: blocked === 0 ? text : lines.join("\n"), blocked };
}
