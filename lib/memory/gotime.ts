import { localOffsetMinutes, localParts } from "../core/local-time.ts";
/** Go `time.Time` JSON: RFC 3339 with 0–9 fractional digits, any offset; the zero time means unset. */
export const ZERO_TIME = "0001-01-01T00:00:00Z";

const RE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(Z|z|[+-]\d{2}:?\d{2})$/;

/**
 * RFC 3339 as Go writes it — `2026-07-24T12:00:00Z`, `…:00.518233101-03:00` — which the engine's
 * own parser reads: several times are parsed per fact at every `memory facts`, cold, and the regex
 * with seven Number() calls costs about twice as much (issue 23). Years below 100 (which Date.UTC
 * maps to 19xx) and whatever the engine rejects go to the regex; a test holds the two to the same
 * result, field ranges, rollovers and fractions included.
 */
const QUICK = /^(?!00)\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)$/;

/** Parses a Go timestamp to epoch ms; undefined for missing, malformed or the zero time. */
export function parseGoTime(value: unknown): number | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  // the quick path inline: a call per fact costs about as much as the parse, cold (issue 23)
  if (QUICK.test(value)) {
    const at = Date.parse(value);
    if (!Number.isNaN(at)) return at;
  }
  const m = RE.exec(value.trim());
  if (!m) return undefined;
  const year = Number(m[1]);
  if (year <= 1) return undefined;
  const frac = (m[7] ?? "").padEnd(3, "0").slice(0, 3);
  const base = Date.UTC(
    year,
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6]),
    Number(frac),
  );
  const zone = m[8] as string;
  if (zone === "Z" || zone === "z") return base;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const offset = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4));
  return base - sign * offset * 60_000;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** Formats like Go's RFC3339Nano in the local zone: trailing zeros trimmed, `Z` at offset 0. */
export function formatGoTime(at: Date | number): string {
  const d = typeof at === "number" ? new Date(at) : at;
  const offsetMin = localOffsetMinutes(d);
  const local = new Date(d.getTime() + offsetMin * 60_000);
  const ms = local.getUTCMilliseconds();
  const frac = ms === 0 ? "" : `.${pad(ms, 3).replace(/0+$/, "")}`;
  const zone =
    offsetMin === 0
      ? "Z"
      : `${offsetMin < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(offsetMin) / 60))}:${pad(Math.abs(offsetMin) % 60)}`;
  return `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${frac}${zone}`;
}

/** Local calendar date `YYYY-MM-DD`. */
export function localDate(at: Date | number): string {
  const d = localParts(at);
  return `${d.year}-${pad(d.month)}-${pad(d.day)}`;
}

/** Local `HH:MM`. */
export function localHHMM(at: Date): string {
  const d = localParts(at);
  return `${pad(d.hours)}:${pad(d.minutes)}`;
}
