import { basename, relative } from "node:path";
import { type AttachedFile, attachmentSummary, loadAttachments } from "../bootstrap/attachments.ts";
import type { Env } from "../core/ctx.ts";
import type { Session } from "../history/session.ts";

/**
 * `/context attach|detach|list`: files kept in the cached part of the system prompt for the rest of
 * the conversation. The list lives in the session's state (it survives `--session NAME` restarts);
 * contents are re-read each turn, so an edited file is seen as it is now.
 */
export class Attachments {
  constructor(
    private readonly cwd: string,
    private readonly env: Env,
  ) {}

  private async paths(session: Session): Promise<string[]> {
    return (await session.store.read()).attachments ?? [];
  }

  private async save(session: Session, paths: string[]): Promise<void> {
    await session.store.update((state) => {
      state.attachments = paths;
    });
  }

  /** The attached files as they are now (a file that vanished is dropped with a note). */
  async files(session: Session): Promise<{ files: AttachedFile[]; summary: string }> {
    const paths = await this.paths(session);
    const files: AttachedFile[] = [];
    const missing: string[] = [];
    for (const path of paths) {
      try {
        files.push(...loadAttachments([path], this.cwd, { env: this.env }).files);
      } catch {
        missing.push(path);
      }
    }
    const notes = missing.map((p) => `(missing, skipped: ${relative(this.cwd, p) || p})`);
    return { files, summary: [attachmentSummary(files), ...notes].join("\n") };
  }

  /** Adds the files `pattern` names (a path or glob); binary or unreadable files are refused. */
  async attach(session: Session, pattern: string): Promise<string> {
    const loaded = loadAttachments([pattern], this.cwd, { env: this.env });
    const paths = await this.paths(session);
    for (const file of loaded.files) if (!paths.includes(file.path)) paths.push(file.path);
    await this.save(session, paths);
    const warnings = loaded.warnings.map((w) => `warning: ${w.message}`);
    return [...warnings, (await this.files(session)).summary].join("\n");
  }

  /** Removes attachments whose file name or path matches `name`. */
  async detach(session: Session, name: string): Promise<string> {
    const paths = await this.paths(session);
    const keep = paths.filter(
      (p) => basename(p) !== name && p !== name && relative(this.cwd, p) !== name,
    );
    if (keep.length === paths.length)
      throw new Error(`no attached file named ${JSON.stringify(name)}`);
    await this.save(session, keep);
    return (await this.files(session)).summary;
  }
}
