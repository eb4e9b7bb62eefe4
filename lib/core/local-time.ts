import { readlinkSync } from "node:fs";
import type { Env } from "./ctx.ts";

/**
 * Local calendar arithmetic that skips the JS engine's time zone database when local time is UTC
 * (issue 23, start-up). The engine's first local-time call — `getFullYear`, `getTimezoneOffset`,
 * `new Date(y, m, d)` — loads that database: about 5 ms of a 15–30 ms run, on every `bootstrap show`
 * or `memory facts` a script makes. CI runners are nearly all UTC.
 *
 * The local zone is a fact about the process (the engine reads TZ, else /etc/localtime), so it is
 * decided once, at the edge: main.ts calls `useLocalZone` with `localZoneIsUtc` of its environment. Until then —
 * in tests, say — the engine is asked, which is always right, only slower.
 */
let zoneIsUtc: boolean | (() => boolean) = false;

/**
 * Sets whether local time is UTC: a boolean, or a function asked on the first local calendar call
 * (main.ts passes one, so a command that never needs local time never reads /etc/localtime).
 */
export function useLocalZone(utc: boolean | (() => boolean)): void {
  zoneIsUtc = utc;
}

function isUtc(): boolean {
  if (typeof zoneIsUtc === "function") zoneIsUtc = zoneIsUtc();
  return zoneIsUtc;
}

const UTC_NAMES = /^:?(?:Etc\/)?(?:UTC|UCT|GMT|GMT[+-]?0|Universal|Zulu)$/;

/** /etc/localtime's zone, read once per process (the bootstrap context asks again). */
let etcLocaltimeIsUtc: boolean | undefined;

/** Whether local time is UTC, from TZ or the /etc/localtime link, without asking the engine. */
export function localZoneIsUtc(env: Env): boolean {
  const tz = env["TZ"];
  if (tz !== undefined) return tz === "" || UTC_NAMES.test(tz);
  etcLocaltimeIsUtc ??= linkNamesUtc();
  return etcLocaltimeIsUtc;
}

function linkNamesUtc(): boolean {
  try {
    const target = readlinkSync("/etc/localtime");
    const at = target.lastIndexOf("zoneinfo/");
    return UTC_NAMES.test(at < 0 ? target : target.slice(at + "zoneinfo/".length));
  } catch {
    return false;
  }
}

/** The local offset from UTC in minutes at `at` (−180 for São Paulo). */
export function localOffsetMinutes(at: Date): number {
  return isUtc() ? 0 : -at.getTimezoneOffset();
}

export interface LocalParts {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  hours: number;
  minutes: number;
  seconds: number;
  ms: number;
  /** 0 = Sunday */
  weekday: number;
  offsetMinutes: number;
}

/** The local calendar fields of an instant. */
export function localParts(at: Date | number): LocalParts {
  const d = typeof at === "number" ? new Date(at) : at;
  const offsetMinutes = localOffsetMinutes(d);
  const s = new Date(d.getTime() + offsetMinutes * 60_000);
  return {
    year: s.getUTCFullYear(),
    month: s.getUTCMonth() + 1,
    day: s.getUTCDate(),
    hours: s.getUTCHours(),
    minutes: s.getUTCMinutes(),
    seconds: s.getUTCSeconds(),
    ms: s.getUTCMilliseconds(),
    weekday: s.getUTCDay(),
    offsetMinutes,
  };
}

/** `new Date(year, monthIndex, day, …)` in local time (fields roll over as Date's do). */
export function localDateOf(
  year: number,
  monthIndex: number,
  day: number,
  hours = 0,
  minutes = 0,
  seconds = 0,
  ms = 0,
): Date {
  return isUtc()
    ? new Date(Date.UTC(year, monthIndex, day, hours, minutes, seconds, ms))
    : new Date(year, monthIndex, day, hours, minutes, seconds, ms);
}
