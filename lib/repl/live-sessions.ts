import { cp, rm, stat } from "node:fs/promises";
import type { Env } from "../core/ctx.ts";
import type { Session } from "../history/session.ts";
import { sessionDataDir } from "../history/session-file.ts";
import type { CheckpointInfo } from "./services.ts";

/**
 * `/session save NAME`: the conversation's checkpoints go with it, so the rewind menu keeps
 * working after the save and never shows what an earlier session called NAME had.
 */
export async function carryCheckpoints(env: Env, from: Session, to: string): Promise<void> {
  if (from.name === to) return;
  const target = sessionDataDir(env, to);
  await rm(target, { recursive: true, force: true });
  if (from.ephemeral || from.name === null) return;
  await cp(sessionDataDir(env, from.name), target, { recursive: true }).catch((error) => {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  });
}

/** The rewind menu's rows: the session's checkpoints, newest first, numbered from 1. */
export class CheckpointList {
  private rows: Array<CheckpointInfo & { id: number }> = [];
  /**
   * A fresh unnamed session until this REPL takes its first checkpoint: anything already in its
   * store is a leftover of an earlier run, not this conversation's.
   */
  unseen = true;

  async refresh(session: Session): Promise<void> {
    const list = this.unseen ? [] : await session.listCheckpoints();
    const n = list.length;
    this.rows = list
      .map((c, i) => ({
        index: n - i,
        id: c.id,
        time: new Date(c.created_at),
        messages: c.message_count,
        label: c.label || "(start)",
      }))
      .reverse();
  }

  clear(): void {
    this.rows = [];
  }

  list(): CheckpointInfo[] {
    return this.rows.map(({ index, time, messages, label }) => ({ index, time, messages, label }));
  }

  find(index: number): (CheckpointInfo & { id: number }) | undefined {
    return this.rows.find((c) => c.index === index);
  }
}

/** A file's mtime in ms; undefined when there is no file (or no path). */
export async function mtimeOf(path: string | null): Promise<number | undefined> {
  if (path === null) return undefined;
  return stat(path).then(
    (s) => s.mtimeMs,
    () => undefined,
  );
}
