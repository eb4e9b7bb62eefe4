import { afterEach, expect, test } from "bun:test";
import { localDateOf, localParts, useLocalZone } from "../../../lib/core/local-time.ts";

afterEach(() => useLocalZone(false));

const AT = new Date("2026-03-01T02:30:45.120Z");

test("without the UTC shortcut, local fields are the engine's", () => {
  useLocalZone(false);
  const p = localParts(AT);
  expect([p.year, p.month, p.day, p.hours, p.minutes, p.seconds, p.ms, p.weekday]).toEqual([
    AT.getFullYear(),
    AT.getMonth() + 1,
    AT.getDate(),
    AT.getHours(),
    AT.getMinutes(),
    AT.getSeconds(),
    AT.getMilliseconds(),
    AT.getDay(),
  ]);
  expect(p.offsetMinutes).toBe(-AT.getTimezoneOffset());
  expect(localDateOf(2026, 1, 29, 12).getTime()).toBe(new Date(2026, 1, 29, 12).getTime());
});

test("with a UTC zone, fields come from UTC maths and dates roll over as Date's do", () => {
  useLocalZone(true);
  const p = localParts(AT);
  expect([p.year, p.month, p.day, p.hours, p.weekday, p.offsetMinutes]).toEqual([
    2026, 3, 1, 2, 0, 0,
  ]);
  expect(localDateOf(2026, 1, 29, 12).toISOString()).toBe("2026-03-01T12:00:00.000Z");
  expect(localDateOf(2026, 0, 1 - 1).toISOString()).toBe("2025-12-31T00:00:00.000Z");
});

test("a zone given as a function is asked once, at the first local calendar call", () => {
  let asked = 0;
  useLocalZone(() => {
    asked++;
    return true;
  });
  expect(asked).toBe(0);
  expect(localParts(AT).offsetMinutes).toBe(0);
  expect(localDateOf(2026, 1, 29, 12).toISOString()).toBe("2026-03-01T12:00:00.000Z");
  expect(asked).toBe(1);
});
