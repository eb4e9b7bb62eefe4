import { cp, rm } from "node:fs/promises";
import type { Env } from "../core/ctx.ts";
import type { Session } from "../history/session.ts";
import { sessionDataDir } from "../history/session-file.ts";

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
