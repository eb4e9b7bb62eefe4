import { localDate, parseGoTime } from "./gotime.ts";
import { type Profile, profileToJson } from "./profile.ts";
import { directiveScope, isHardDirective, isSensitiveKey } from "./profile-text.ts";

const list = (p: Profile, k: string): string[] =>
  Array.isArray(p[k]) ? (p[k] as unknown[]).filter((x): x is string => typeof x === "string") : [];
const dict = (p: Profile, k: string): Record<string, unknown> =>
  p[k] && typeof p[k] === "object" && !Array.isArray(p[k]) ? (p[k] as Record<string, unknown>) : {};
const STALE_MS = 120 * 86400_000;
const str = (v: unknown) => (typeof v === "string" ? v : "");

/** Whether the profile carries user data (top_commands alone does not count). */
export function hasProfileData(p: Profile): boolean {
  return Object.keys(profileToJson(p)).some(
    (k) => !["last_updated", "field_meta", "top_commands"].includes(k),
  );
}

/** The profile as prompt text (§2.10 FormatForPromptScoped); "" when empty. */
/** The profile's scalar fields and their display labels, in display order. */
export const PROFILE_LABELS: ReadonlyArray<readonly [string, string]> = [
  ["name", "Name"],
  ["role", "Role"],
  ["expertise_level", "Expertise"],
  ["preferred_language", "Language"],
  ["communication_style", "Style"],
  ["company", "Company"],
  ["location", "Location"],
];

export function profileText(p: Profile, workspace: string, nowMs?: number): string {
  if (!hasProfileData(p)) return "";
  const lines: string[] = [];
  for (const [k, label] of PROFILE_LABELS) if (str(p[k])) lines.push(`${label}: ${str(p[k])}`);
  for (const [k, label] of [
    ["certifications", "Certifications"],
    ["skills", "Skills"],
    ["goals", "Goals"],
    ["interests", "Interests"],
  ] as const) {
    if (list(p, k).length) lines.push(`${label}: ${list(p, k).join(", ")}`);
  }
  const segments = workspace.toLowerCase().split(/[\\/]/).filter(Boolean);
  const hard: string[] = [];
  const soft: string[] = [];
  for (const d of list(p, "directives")) {
    const { scope, text } = directiveScope(d);
    if (scope && workspace && !segments.includes(scope.toLowerCase())) continue;
    const shown = scope ? `[${scope}] ${text}` : text;
    (isHardDirective(text) ? hard : soft).push(shown);
  }
  if (hard.length) lines.push(`Directives — hard rules (MUST follow): ${hard.join("; ")}`);
  if (soft.length) lines.push(`Directives — preferences: ${soft.join("; ")}`);
  const stances = (
    Array.isArray(p["stances"]) ? (p["stances"] as Array<Record<string, unknown>>) : []
  )
    .map((s) =>
      str(s["reason"]) ? `${str(s["position"])} (why: ${str(s["reason"])})` : str(s["position"]),
    )
    .filter(Boolean);
  if (stances.length)
    lines.push(
      `Stances (positions the user holds — apply their reasoning to new cases): ${stances.join("; ")}`,
    );
  const env = dict(p, "environment");
  const envKeys = Object.keys(env).sort();
  if (envKeys.length)
    lines.push(`Environment: ${envKeys.map((k) => `${k}=${str(env[k])}`).join(", ")}`);
  const ms = (
    Array.isArray(p["milestones"]) ? (p["milestones"] as Array<Record<string, unknown>>) : []
  ).slice(-8);
  if (ms.length)
    lines.push(
      `Milestones: ${ms.map((m) => `[${dateOf(m["date"])}] ${str(m["text"])}`).join("; ")}`,
    );
  const meta = dict(p, "field_meta");
  const prefs = dict(p, "preferences");
  let sensitive = Object.values(meta).some(
    (m) => (m as Record<string, unknown>)?.["sensitive"] === true,
  );
  for (const k of Object.keys(prefs).sort()) {
    const flagged =
      (meta[`pref:${k}`] as Record<string, unknown> | undefined)?.["sensitive"] === true ||
      isSensitiveKey(k);
    sensitive ||= flagged;
    lines.push(`${k}${flagged ? " [sensitive]" : ""}: ${str(prefs[k])}`);
  }
  if (nowMs !== undefined) {
    const stale: string[] = [];
    for (const field of Object.keys(meta).sort()) {
      const m = meta[field] as Record<string, unknown> | undefined;
      const t = parseGoTime(m?.["confirmed_at"]) ?? parseGoTime(m?.["updated_at"]);
      if (t !== undefined && nowMs - t > STALE_MS) stale.push(`${field} (${localDate(t)})`);
    }
    if (stale.length)
      lines.push(
        `Possibly stale (not re-confirmed since): ${stale.join(", ")} — when naturally relevant, casually re-confirm instead of asserting.`,
      );
  }
  if (sensitive)
    lines.push(
      "Privacy: fields tagged [sensitive] are private context — use them to inform answers, but NEVER quote them into code, tests, examples, commits, documents or any generated artifact.",
    );
  return lines.join("\n");
}

function dateOf(v: unknown): string {
  const t = parseGoTime(v);
  return t === undefined ? "" : localDate(t);
}
