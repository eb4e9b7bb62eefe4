import { readFile, stat } from "node:fs/promises";
import { isNotFound } from "../core/fs.ts";
import { redactDeep } from "../core/redact.ts";
import type { ChatMessage } from "../llm/types.ts";
import { contentHash } from "./checkpoints.ts";

/** Hash of a file's bytes, null when it does not exist. */
export async function fileHash(path: string): Promise<string | null> {
  try {
    return contentHash(new Uint8Array(await readFile(path)));
  } catch {
    return null;
  }
}

/** Identity of a file's current version (inode, size, mtime in ns); undefined when there is none. */
export async function fileStamp(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path, { bigint: true });
    return `${info.ino}:${info.size}:${info.mtimeNs}`;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Three-way merge of a history that another process saved meanwhile (two `ask --session s` at once).
 * `base` is what this process last read or wrote, `ours` what it holds now, `disk` what is on disk.
 * When both sides only appended to `base`, the result is `disk` followed by what only we added;
 * otherwise (a compaction or rewind on either side) undefined: the caller keeps its own history.
 */
export function mergeHistories(
  base: readonly ChatMessage[],
  ours: readonly ChatMessage[],
  disk: readonly ChatMessage[],
  secrets: readonly string[],
): ChatMessage[] | undefined {
  const key = (m: ChatMessage) => JSON.stringify(redactDeep(m, secrets));
  const baseKeys = base.map(key);
  const ourKeys = ours.map(key);
  const diskKeys = disk.map(key);
  const extends_ = (keys: string[]) => baseKeys.every((k, i) => keys[i] === k);
  if (!extends_(ourKeys) || !extends_(diskKeys)) return undefined;
  let common = baseKeys.length;
  while (common < ourKeys.length && ourKeys[common] === diskKeys[common]) common++;
  return [...disk, ...ours.slice(common)];
}
