import { appendFile, mkdir, readdir, rm, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { readTextIfExists } from "../core/fs.ts";
import { localDateOf, localParts } from "../core/local-time.ts";
import { redact } from "../core/redact.ts";
import { localDate, localHHMM } from "./gotime.ts";
import { lockStore, type Memory } from "./store.ts";

const pad = (n: number) => String(n).padStart(2, "0");

/** `<memoryDir>/YYYYMM/YYYYMMDD.md` for a local date. */
export function dailyPath(mem: Memory, day: Date): string {
  const d = localParts(day);
  const ym = `${d.year}${pad(d.month)}`;
  return join(mem.cfg.dir, ym, `${ym}${pad(d.day)}.md`);
}

/** Appends `\n## HH:MM\n\n<entry>\n` to today's note (redacted, under a lock). */
export async function appendDaily(mem: Memory, entry: string): Promise<void> {
  const text = redact(entry.trim(), mem.cfg.secrets);
  if (!text) return;
  const now = mem.now();
  const path = dailyPath(mem, now);
  await mkdir(join(path, ".."), { recursive: true, mode: 0o750 });
  await lockStore(mem, "daily", async () => {
    await appendFile(path, `\n## ${localHHMM(now)}\n\n${text}\n`, { mode: 0o600 });
  });
}

/** The note of one local day (trimmed), or undefined when missing or blank. */
export async function readDaily(mem: Memory, day: Date): Promise<string | undefined> {
  const text = (await readTextIfExists(dailyPath(mem, day)))?.trim();
  return text ? text : undefined;
}

export interface DailyNote {
  date: string;
  content: string;
}

/** Notes of today and the previous `days−1` days, oldest first. */
export async function recentNotes(mem: Memory, days: number): Promise<DailyNote[]> {
  const now = localParts(mem.now());
  const out: DailyNote[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const day = localDateOf(now.year, now.month - 1, now.day - i, 12);
    const content = await readDaily(mem, day);
    if (content) out.push({ date: localDate(day), content });
  }
  return out;
}

/** Relative paths of every daily note (`YYYYMM/YYYYMMDD.md`), sorted. */
export async function listDailyFiles(mem: Memory): Promise<string[]> {
  const out: string[] = [];
  let months: string[] = [];
  try {
    months = await readdir(mem.cfg.dir);
  } catch {
    return [];
  }
  for (const m of months.filter((d) => /^\d{6}$/.test(d))) {
    const files = await readdir(join(mem.cfg.dir, m)).catch(() => [] as string[]);
    for (const f of files) if (/^\d{8}\.md$/.test(f)) out.push(`${m}/${f}`);
  }
  return out.sort();
}

/** Deletes daily notes older than the retention; removes emptied month dirs. Returns the count. */
export async function cleanupDaily(mem: Memory): Promise<number> {
  const now = localParts(mem.now());
  const cutoff = localParts(localDateOf(now.year, now.month - 1, now.day - mem.cfg.retentionDays));
  const cut = `${cutoff.year}${pad(cutoff.month)}${pad(cutoff.day)}`;
  let removed = 0;
  for (const rel of await listDailyFiles(mem)) {
    const base = rel.slice(7, 15);
    if (base < cut) {
      await rm(join(mem.cfg.dir, rel), { force: true });
      removed++;
      await rmdir(join(mem.cfg.dir, rel.slice(0, 6))).catch(() => {});
    }
  }
  return removed;
}

/** Parses `YYYY-MM-DD`, `YYYYMMDD`, `DD/MM/YYYY`, `today`, `yesterday` into a local date. */
export function parseFlexibleDate(text: string, now: Date): Date | undefined {
  const t = text.trim().toLowerCase();
  if (t === "today") return now;
  if (t === "yesterday") {
    const d = localParts(now);
    return localDateOf(d.year, d.month - 1, d.day - 1, 12);
  }
  let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t) ?? /^(\d{4})(\d{2})(\d{2})$/.exec(t);
  if (m) return validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(t);
  if (m) return validDate(Number(m[3]), Number(m[2]), Number(m[1]));
  return undefined;
}

function validDate(y: number, mo: number, d: number): Date | undefined {
  const date = localDateOf(y, mo - 1, d, 12);
  const back = localParts(date);
  return back.month === mo && back.day === d ? date : undefined;
}
