import { lstat, mkdir, realpath, rm, rmdir, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { ChatcliError, UsageError } from "../core/errors.ts";
import { writeFileAtomic } from "../core/fs.ts";
import type { CheckpointRecord, FileSnapshot } from "./checkpoints.ts";
import type { Session } from "./session.ts";
import { fileHash } from "./session-merge.ts";

export type RewindScope = "conversation" | "code" | "both";

/** What a rewind does (or would do) to one file. */
export interface FileAction {
  path: string;
  /** `unrestorable`: the snapshot could not hold it (FileSnapshot.unrestorable says why). */
  action: "restore" | "delete" | "unchanged" | "unrestorable";
  /** The change the restore makes to the working tree. */
  change: "created" | "modified" | "deleted" | null;
  /** The file changed since chatcli last left it (someone else edited it). */
  conflict: boolean;
  snapshot: FileSnapshot;
}

export interface RewindPlan {
  checkpoint: CheckpointRecord;
  scope: RewindScope;
  messagesBefore: number;
  /** History length after the rewind (null when the conversation is not restored). */
  messagesAfter: number | null;
  files: FileAction[];
  /** Ids of the checkpoints the rewind removes (those after the chosen one). */
  removedCheckpoints: number[];
}

/** Works out a rewind to checkpoint `id` without touching anything. */
export async function planRewind(
  session: Session,
  id: number,
  scope: RewindScope,
): Promise<RewindPlan> {
  const state = await session.store.read();
  const checkpoint = state.checkpoints.find((c) => c.id === id);
  if (!checkpoint) {
    const ids = state.checkpoints.map((c) => c.id);
    throw new UsageError(
      ids.length === 0
        ? `session ${JSON.stringify(session.name)} has no checkpoints`
        : `no checkpoint ${id} in session ${JSON.stringify(session.name)} (have ${ids.join(", ")})`,
      { hint: "list them with: chatcli rewind --list" },
    );
  }
  const files: FileAction[] = [];
  if (scope !== "conversation") {
    const seen = new Set<string>();
    for (const cp of state.checkpoints) {
      if (cp.id < id) continue;
      for (const snap of cp.files) {
        if (seen.has(snap.path)) continue;
        seen.add(snap.path);
        const moved = await parentMoved(snap.directory ? snap.path : dirname(snap.path));
        if (moved) {
          files.push({
            path: snap.path,
            action: "unrestorable",
            change: null,
            conflict: false,
            snapshot: { ...snap, unrestorable: moved },
          });
          continue;
        }
        if (snap.directory) {
          const there = (await stat(snap.path).catch(() => undefined))?.isDirectory() === true;
          files.push({
            path: snap.path,
            action: there ? "unchanged" : "restore",
            change: there ? null : "created",
            conflict: false,
            snapshot: snap,
          });
          continue;
        }
        if (snap.unrestorable) {
          files.push({
            path: snap.path,
            action: "unrestorable",
            change: null,
            conflict: false,
            snapshot: snap,
          });
          continue;
        }
        const current = await fileHash(snap.path);
        const target = snap.existed ? snap.hash : null;
        if (current === target) {
          files.push({
            path: snap.path,
            action: "unchanged",
            change: null,
            conflict: false,
            snapshot: snap,
          });
          continue;
        }
        const left = state.tracked[snap.path];
        files.push({
          path: snap.path,
          action: target === null ? "delete" : "restore",
          change: target === null ? "deleted" : current === null ? "created" : "modified",
          conflict: left === undefined || left !== current,
          snapshot: snap,
        });
      }
    }
  }
  return {
    checkpoint,
    scope,
    messagesBefore: session.messages.length,
    messagesAfter: scope === "code" ? null : checkpoint.message_count,
    files,
    removedCheckpoints: state.checkpoints.filter((c) => c.id > id).map((c) => c.id),
  };
}

/**
 * Why a restore under `dir` would leave the place it was snapshotted in: a directory on the way was
 * replaced by a link since (a sandboxed command may point `src` at `~` or `/etc`; creating a link
 * needs no access to its target). Rewind runs unconfined, so it never writes or deletes through one.
 */
async function parentMoved(dir: string): Promise<string | undefined> {
  let existing = dir;
  for (;;) {
    if (
      await lstat(existing).then(
        () => true,
        () => false,
      )
    )
      break;
    const up = dirname(existing);
    if (up === existing) return undefined;
    existing = up;
  }
  const real = await realpath(existing).catch(() => existing);
  if (real === existing) return undefined;
  return `${existing} is now a link to ${real}; not followed`;
}

async function writePreservingMode(path: string, bytes: Uint8Array, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // A file snapshotted as a file comes back as one: a link a command put in its place since (to
  // ~/.bashrc, say) is replaced, never written through.
  if ((await lstat(path).catch(() => undefined))?.isSymbolicLink()) await unlink(path);
  await writeFileAtomic(path, bytes, { mode });
}

/**
 * Applies a plan: refuses with rewind_conflict when a file changed since chatcli left it (unless
 * `force`), restores files (only deleting files chatcli created), restores the history, and removes
 * the later checkpoints.
 */
export async function applyRewind(
  session: Session,
  plan: RewindPlan,
  options: { force?: boolean } = {},
): Promise<RewindPlan> {
  const conflicts = plan.files.filter(
    (f) => f.conflict && f.action !== "unchanged" && f.action !== "unrestorable",
  );
  if (conflicts.length > 0 && !options.force) {
    throw new ChatcliError(
      "rewind_conflict",
      `${conflicts.length} file(s) changed since checkpoint ${plan.checkpoint.id}: ${conflicts.map((f) => f.path).join(", ")}`,
      {
        hint: "nothing was restored; pass --force to overwrite them, or --conversation to restore only the conversation",
      },
    );
  }
  for (const file of plan.files) {
    if (file.action === "restore" && file.snapshot.directory) {
      await mkdir(file.path, { recursive: true });
    } else if (file.action === "restore" && file.snapshot.hash) {
      const bytes = await session.store.getObject(file.snapshot.hash);
      await writePreservingMode(file.path, bytes, file.snapshot.mode ?? 0o644);
    } else if (file.action === "delete") {
      await rm(file.path, { force: true });
      // Directories made for the file go too, but only while empty (rmdir never removes content).
      for (const dir of file.snapshot.created_dirs ?? []) {
        if (
          !(await rmdir(dir).then(
            () => true,
            () => false,
          ))
        )
          break;
      }
    }
  }
  if (plan.scope !== "code") {
    session.replaceMessages(await session.store.loadMessages(plan.checkpoint));
    session.title = plan.checkpoint.title;
  }
  await session.store.update(async (state) => {
    state.checkpoints = state.checkpoints.filter((c) => c.id <= plan.checkpoint.id);
    for (const file of plan.files)
      if (file.action !== "unrestorable" && !file.snapshot.directory)
        state.tracked[file.path] = file.snapshot.existed ? file.snapshot.hash : null;
    await session.store.collectGarbage(state);
  });
  if (plan.scope !== "code") await session.save();
  return plan;
}
