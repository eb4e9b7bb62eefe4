/** Memory-poisoning scan (PITFALLS "Memory poisoning"; reference §1.3/§2.15 threatscan). */
export type ThreatKind = "prompt-injection" | "remote-exec" | "permission-widening";

const RULES: ReadonlyArray<{ kind: ThreatKind; re: RegExp }> = [
  {
    kind: "prompt-injection",
    re: /\bignore\s+(?:all\s+)?(?:the\s+|your\s+|any\s+)?(?:previous|prior|above|earlier)\s+(?:instructions|prompts?|rules)/i,
  },
  {
    kind: "prompt-injection",
    re: /\bdisregard\b.{0,40}\b(?:system\s+prompt|instructions|rules)/i,
  },
  { kind: "prompt-injection", re: /\bforget\s+(?:all\s+)?your\s+(?:previous\s+)?instructions/i },
  { kind: "prompt-injection", re: /<\/?system>|<\|im_start\|>|<\|im_end\|>/i },
  {
    kind: "prompt-injection",
    re: /\byou\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak|jailbroken)(?:\s+mode)?/i,
  },
  { kind: "remote-exec", re: /\b(?:curl|wget)\b[^|\n]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b/i },
  { kind: "remote-exec", re: /\bbase64\s+(?:-d|--decode)\b[^|\n]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b/i },
  { kind: "remote-exec", re: /\bbash\s+-i\s*>&\s*\/dev\/tcp\//i },
  { kind: "remote-exec", re: /\b(?:nc|ncat|netcat)\b[^\n]*\s-e\s/i },
  { kind: "remote-exec", re: />>?\s*\S*\.ssh\/authorized_keys/i },
  {
    kind: "remote-exec",
    re: /\b(?:crontab|\/etc\/cron)[^\n]*\b(?:curl|wget)\b|\b(?:curl|wget)\b[^\n]*\b(?:crontab|\/etc\/cron)/i,
  },
  {
    kind: "permission-widening",
    re: /\b(?:always|automatically)\s+(?:allow|approve|run|execute)\b[^\n]{0,60}\bwithout\s+(?:asking|confirmation|approval|permission)/i,
  },
  {
    kind: "permission-widening",
    re: /--permission-mode[ =]bypass|\bbypass\s+(?:the\s+)?permission/i,
  },
  {
    kind: "permission-widening",
    re: /\b(?:disable|turn\s+off)\s+(?:the\s+)?(?:sandbox|safety\s+checks|permission\s+(?:checks|policy))/i,
  },
];

/** The first threat found in the text, if any. */
export function scanThreat(text: string): ThreatKind | undefined {
  for (const { kind, re } of RULES) if (re.test(text)) return kind;
  return undefined;
}

/** Replaces every line carrying a threat with `[BLOCKED: <kind>]`; files on disk are untouched. */
export function neutralize(text: string): string {
  if (!text) return text;
  return text
    .split("\n")
    .map((line) => {
      const kind = scanThreat(line);
      return kind ? `[BLOCKED: ${kind}]` : line;
    })
    .join("\n");
}
