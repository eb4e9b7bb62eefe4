import type { Ctx } from "../core/ctx.ts";
import { envBool } from "../core/settings.ts";
import { loadSessionDoc, openSession, type Session } from "../history/session.ts";
import { deleteSession, listSessions } from "../history/session-list.ts";
import { CheckpointList, carryCheckpoints, mtimeOf } from "./live-sessions.ts";
import type { SessionEntry } from "./services.ts";

/**
 * The REPL's conversation on disk: the open session (named, or an autosave one), its checkpoints
 * for the rewind menu, `/session save|load|new|rm`, write-through for named sessions and the save
 * at exit.
 */
export class SessionBinding {
  session!: Session;
  /** The session name the user chose (`--session`, `/session save|load`); undefined for autosave. */
  bound: string | undefined;
  readonly checkpoints = new CheckpointList();
  /** Lines from opening sessions (a corrupt file moved aside), printed before the next prompt. */
  readonly notices: string[] = [];
  /** mtime of the session file when we last wrote or read it. */
  private synced: number | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly workspaceRoot: string,
  ) {}

  private get env() {
    return this.ctx.env;
  }

  async open(name?: string, mustExist = false): Promise<void> {
    // Unnamed and autosave off: nothing may reach disk (no session file, no checkpoint folder).
    const ephemeral = name === undefined && !envBool(this.env, "CHATCLI_SESSION_AUTOSAVE", true);
    const session = await openSession(this.ctx, {
      name,
      workspace: this.workspaceRoot,
      ephemeral,
    });
    if (mustExist && session.isNew) throw new Error(`session '${name}' not found`);
    this.session = session;
    this.bound = name;
    this.synced = await mtimeOf(session.path);
    this.checkpoints.unseen = name === undefined;
    this.notices.push(...session.warnings.map((w) => w.message));
    await this.refresh();
  }

  /** Re-reads the checkpoints for the rewind menu. */
  async refresh(): Promise<void> {
    await this.checkpoints.refresh(this.session);
  }

  /** Takes a checkpoint of the conversation as it is now; returns its id. */
  async checkpoint(label: string): Promise<number> {
    const record = await this.session.checkpoint(label);
    this.checkpoints.unseen = false;
    return record.id;
  }

  /** Saves the session and remembers the file's mtime (to notice another process writing it). */
  async persist(): Promise<void> {
    await this.session.save();
    this.synced = await mtimeOf(this.session.path);
  }

  /**
   * Write-through binding (reference §5.4): before a turn on a named session, a file another
   * chatcli wrote since our last save or load is read again (last writer wins, whole file).
   */
  async reloadIfChanged(notice: (line: string) => void): Promise<void> {
    if (!this.bound || !envBool(this.env, "CHATCLI_SESSION_WRITETHROUGH", true)) return;
    const mtime = await mtimeOf(this.session.path);
    if (mtime === undefined || mtime === this.synced) return;
    const doc = await loadSessionDoc(this.ctx, this.bound).catch(() => undefined);
    this.synced = mtime;
    if (!doc) return;
    this.session.replaceMessages(doc.messages);
    notice(
      `session '${this.bound}' was updated by another chatcli; continuing from it (${doc.messages.length} messages)`,
    );
  }

  /** `/session save NAME`: the conversation, its checkpoints and the binding move to NAME. */
  async saveAs(name: string): Promise<void> {
    const messages = this.session.messages;
    // An unbound conversation is autosaved as it goes; once it has a name, that copy goes.
    const autosaved = this.bound === undefined ? this.session.name : null;
    await carryCheckpoints(this.env, this.session, name);
    await this.open(name);
    this.session.replaceMessages(messages);
    await this.persist();
    if (autosaved?.startsWith("autosave-") && autosaved !== name) {
      await deleteSession(this.ctx, autosaved).catch(() => false);
    }
  }

  async list(): Promise<SessionEntry[]> {
    return (await listSessions(this.ctx)).map((s) => ({ name: s.name, title: s.title }));
  }

  /** `/session new`: a fresh unnamed conversation. */
  async fresh(): Promise<void> {
    this.bound = undefined;
    this.checkpoints.clear();
    await this.open();
  }

  /** `/session rm NAME`; true when it was the current one (then a fresh conversation starts). */
  async remove(name: string): Promise<boolean> {
    const existed = await deleteSession(this.ctx, name);
    if (!existed) throw new Error(`session '${name}' not found`);
    if (this.bound !== name) return false;
    await this.open();
    return true;
  }

  /** At exit: save the named session, else autosave; returns the line to print, if any. */
  async close(): Promise<string | undefined> {
    if (this.bound) {
      // Every change was saved as it happened: a file another chatcli wrote since is left alone.
      const mtime = await mtimeOf(this.session.path);
      if (mtime !== undefined && mtime !== this.synced) {
        return `Session '${this.bound}' was saved by another chatcli since; left as it is.`;
      }
      await this.persist();
      return `Session '${this.bound}' saved.`;
    }
    const turns = this.session.messages.filter((m) => m.role !== "system").length;
    // rewound to the start: an autosave with nothing in it is not left behind
    if (turns === 0 && this.session.name?.startsWith("autosave-") && this.session.path)
      await deleteSession(this.ctx, this.session.name).catch(() => false);
    if (turns < 2 || !envBool(this.env, "CHATCLI_SESSION_AUTOSAVE", true)) return undefined;
    await this.persist();
    return `session auto-saved as ${this.session.name} (disable with CHATCLI_SESSION_AUTOSAVE=false)`;
  }
}
