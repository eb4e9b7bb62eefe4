import { readdir, readFile, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { asText } from "../core/as-text.ts";
import type { Ctx } from "../core/ctx.ts";
import { withLock } from "../core/fs.ts";
import { sessionsDir } from "../core/paths.ts";
import type { SessionState } from "./checkpoints.ts";
import { deriveTitle, parseSessionDoc, sessionDataDir, sessionFilePath } from "./session-file.ts";

type SessionCtx = Pick<Ctx, "env" | "cwd" | "now">;

/** A saved session as `sessions list` shows it. */
export interface SessionSummary {
  name: string;
  title: string;
  messages: number;
  updated_at: string;
  bytes: number;
  workspace: string | null;
  checkpoints: number;
}

async function readState(ctx: SessionCtx, name: string): Promise<SessionState | undefined> {
  try {
    return JSON.parse(
      await readFile(join(sessionDataDir(ctx.env, name), "state.json"), "utf8"),
    ) as SessionState;
  } catch {
    return undefined;
  }
}

/**
 * Every `*.json` session in the sessions dir, name-sorted. Files that are not sessions are skipped;
 * those that cannot be read or parsed are also named in `skipped` (path and reason) when given.
 */
export async function listSessions(ctx: SessionCtx, skipped?: string[]): Promise<SessionSummary[]> {
  const dir = sessionsDir(ctx.env);
  const names = (
    await readdir(dir).catch((error: unknown) => {
      if ((error as { code?: string }).code !== "ENOENT") skipped?.push(`${dir}: ${reason(error)}`);
      return [] as string[];
    })
  )
    .filter((f) => f.endsWith(".json"))
    .sort();
  const out: SessionSummary[] = [];
  for (const file of names) {
    const path = join(dir, file);
    let doc: ReturnType<typeof parseSessionDoc>;
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(path);
      if (!info.isFile()) continue;
      doc = parseSessionDoc(JSON.parse(await readFile(path, "utf8")));
    } catch (error) {
      skipped?.push(`${path}: ${reason(error)}`);
      continue;
    }
    if (!doc) continue;
    const name = file.slice(0, -".json".length);
    const state = await readState(ctx, name);
    out.push({
      name,
      title: doc.title || deriveTitle(doc.messages),
      messages: doc.messages.length,
      updated_at: info.mtime.toISOString(),
      bytes: info.size,
      workspace: state?.workspace ?? null,
      checkpoints: state?.checkpoints?.length ?? 0,
    });
  }
  return out;
}

function reason(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  return code && typeof message === "string"
    ? (message.split(",")[0] ?? code)
    : asText(message ?? error);
}

/** Deletes a session's file and chatcli's folder beside it; false when there was nothing. */
export async function deleteSession(ctx: SessionCtx, name: string): Promise<boolean> {
  const path = sessionFilePath(ctx.env, name);
  const data = sessionDataDir(ctx.env, name);
  const existed = (await stat(path).catch(() => undefined)) !== undefined;
  const hadData = (await stat(data).catch(() => undefined)) !== undefined;
  await withLock(path, () => rm(path, { force: true }));
  await rm(data, { recursive: true, force: true });
  return existed || hadData;
}

/** The most recently saved session whose workspace is `workspace`, if any. */
export async function latestSessionForWorkspace(
  ctx: SessionCtx,
  workspace: string,
): Promise<string | undefined> {
  const dir = sessionsDir(ctx.env);
  const target = resolve(ctx.cwd, workspace);
  let best: { name: string; at: string } | undefined;
  for (const entry of await readdir(dir).catch(() => [] as string[])) {
    if (!entry.endsWith(".chatcli")) continue;
    const name = entry.slice(0, -".chatcli".length);
    const state = await readState(ctx, name);
    if (!state || state.workspace !== target || !state.updated_at) continue;
    if (!(await stat(sessionFilePath(ctx.env, name)).catch(() => undefined))) continue;
    if (!best || state.updated_at > best.at) best = { name, at: state.updated_at };
  }
  return best?.name;
}
