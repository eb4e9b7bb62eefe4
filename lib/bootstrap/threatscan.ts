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

/** Replaces every line that looks like a prompt injection; the files on disk are untouched. */
export function neutralizeInjections(text: string): { text: string; blocked: number } {
  if (!INJECTION.some((re) => re.test(text))) return { text, blocked: 0 };
  let blocked = 0;
  const lines = text.split("\n").map((line) => {
    if (!INJECTION.some((re) => re.test(line))) return line;
    blocked++;
    return BLOCKED_LINE;
  });
  return { text: blocked === 0 ? text : lines.join("\n"), blocked };
}
