import { randomBytes } from "node:crypto";
import { readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileAgeMs, readTextIfExists, writeFileAtomic } from "../core/fs.ts";
import { redactDeep } from "../core/redact.ts";
import type { ChatMessage } from "../llm/types.ts";
import { PENDING_CAP } from "./config.ts";
import { formatGoTime } from "./gotime.ts";
import type { Memory } from "./store.ts";

/** A failed-extraction segment waiting in `pending/` (compact JSON). */
export interface PendingSegment {
  /** The claimed file (renamed so no other process drains it meanwhile). */
  path: string;
  /** Where it goes back if the extraction fails. */
  original: string;
  messages: ChatMessage[];
  /** The workspace the conversation happened in (our key; Go ignores it, Go's segments lack it). */
  workspace?: string;
}

const CLAIM_STALE_MS = 10 * 60_000;

function pendingDir(mem: Memory): string {
  return join(mem.cfg.dir, "pending");
}

/** Unix nanoseconds, zero-padded to 20 digits so lexical order is chronological. */
function unixNano(ms: number, seq: bigint): string {
  return (BigInt(Math.floor(ms)) * 1_000_000n + seq).toString().padStart(20, "0");
}

/** Writes a segment to `pending/seg-<unixnano>.json` (redacted, atomic), then enforces the cap. */
export async function queueSegment(mem: Memory, messages: readonly ChatMessage[]): Promise<string> {
  const now = mem.now();
  const dir = pendingDir(mem);
  const body = JSON.stringify({
    created_at: formatGoTime(now),
    messages: redactDeep(messages, mem.cfg.secrets),
    ...(mem.workspace ? { workspace: mem.workspace } : {}),
  });
  const existing = new Set(await listSegments(mem));
  let seq = BigInt(Math.floor(Math.random() * 1000)) * 1000n;
  let name = `seg-${unixNano(now.getTime(), seq)}.json`;
  while (existing.has(name)) {
    seq += 1n;
    name = `seg-${unixNano(now.getTime(), seq)}.json`;
  }
  const path = join(dir, name);
  await writeFileAtomic(path, body);
  const all = await listSegments(mem);
  for (const old of all.slice(0, Math.max(0, all.length - PENDING_CAP))) {
    await rm(join(dir, old), { force: true });
  }
  return path;
}

/** Segment file names, oldest first; claims abandoned by a crashed process are put back first. */
export async function listSegments(mem: Memory): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(pendingDir(mem));
  } catch {
    return [];
  }
  for (const name of names) {
    const m = /^(seg-\d+\.json)\.claim-[0-9a-f]+$/.exec(name);
    if (!m) continue;
    const path = join(pendingDir(mem), name);
    const info = await stat(path).catch(() => undefined);
    if (info && (await fileAgeMs(path, info.mtimeMs)) > CLAIM_STALE_MS) {
      await rename(path, join(pendingDir(mem), m[1] as string)).catch(() => {});
      names.push(m[1] as string);
    }
  }
  return [...new Set(names.filter((f) => /^seg-\d+\.json$/.test(f)))].sort();
}

/**
 * Claims one segment (atomic rename, so concurrent runs never extract it twice) and reads it.
 * Corrupt or empty segments are deleted; undefined when gone, taken or corrupt.
 */
export async function readSegment(mem: Memory, name: string): Promise<PendingSegment | undefined> {
  const original = join(pendingDir(mem), name);
  const path = `${original}.claim-${randomBytes(4).toString("hex")}`;
  try {
    await rename(original, path);
  } catch {
    return undefined;
  }
  const text = await readTextIfExists(path);
  try {
    const value = JSON.parse(text ?? "") as { messages?: unknown; workspace?: unknown };
    const messages = Array.isArray(value.messages)
      ? (value.messages.filter(
          (m) => m && typeof m === "object" && typeof (m as ChatMessage).content === "string",
        ) as ChatMessage[])
      : [];
    const workspace = typeof value.workspace === "string" ? value.workspace : undefined;
    if (messages.length > 0)
      return { path, original, messages, ...(workspace ? { workspace } : {}) };
  } catch {
    // fall through: corrupt
  }
  await rm(path, { force: true });
  return undefined;
}

/** Puts a claimed segment back after a failed extraction (it is retried later). */
export async function releaseSegment(segment: PendingSegment): Promise<void> {
  await rename(segment.path, segment.original).catch(() => {});
}

/** Removes a processed segment. */
export async function dropSegment(segment: PendingSegment): Promise<void> {
  await rm(segment.path, { force: true });
}
