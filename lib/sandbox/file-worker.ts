/**
 * The sandboxed file worker: chatcli's own binary, started inside the run's sandbox with the run's
 * layout (`chatcli __file-worker`), does the file tools' work (file-ops.ts) on requests sent over a
 * pipe. What the sandbox does not mount, or mounts read-only, no race and no bug in a tool can reach:
 * Codex applies patches inside its sandbox for the same reason.
 *
 * Wire: each message is one JSON line, followed by `n` raw bytes when it carries `n` (file contents
 * both ways, so a read or a write is one copy, not base64).
 */
import {
  directFileOps,
  type FileOps,
  type ListReply,
  type ReadReply,
  type WriteReply,
} from "./file-ops.ts";
import type { DisableReply, DisableRequest } from "./repo-disable.ts";
import type { WorkerSearchResult } from "./search-worker.ts";
import { type FileGuard, Refusal } from "./walk.ts";

type Header = Record<string, unknown>;
interface Frame {
  header: Header;
  payload: Uint8Array;
}

const EMPTY = new Uint8Array(0);

export function encodeFrame(header: Header, payload?: Uint8Array): Uint8Array {
  const line = `${JSON.stringify(payload?.length ? { ...header, n: payload.length } : header)}\n`;
  return payload?.length ? Buffer.concat([Buffer.from(line), payload]) : Buffer.from(line);
}

/** Splits a byte stream into frames; a payload is joined once, when all of it has arrived. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;
  private header: Header | undefined;
  private want = 0;

  push(chunk: Uint8Array): Frame[] {
    this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.size += chunk.byteLength;
    const frames: Frame[] = [];
    for (;;) {
      if (!this.header) {
        const buf = this.flat();
        const nl = buf.indexOf(10);
        if (nl < 0) break;
        const header = JSON.parse(buf.toString("utf8", 0, nl)) as Header;
        this.keep(buf.subarray(nl + 1));
        const n = typeof header["n"] === "number" ? header["n"] : 0;
        if (n === 0) {
          frames.push({ header, payload: EMPTY });
          continue;
        }
        this.header = header;
        this.want = n;
      }
      if (this.size < this.want) break;
      const buf = this.flat();
      frames.push({ header: this.header, payload: buf.subarray(0, this.want) });
      this.keep(buf.subarray(this.want));
      this.header = undefined;
      this.want = 0;
    }
    return frames;
  }

  private flat(): Buffer {
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0] as Buffer;
  }

  private keep(rest: Buffer): void {
    this.chunks = rest.length ? [rest] : [];
    this.size = rest.length;
  }
}

function errorFields(error: unknown): Header {
  if (error instanceof Refusal) return { refusal: error.message };
  const e = error as NodeJS.ErrnoException;
  return { error: { message: e?.message ?? String(error), code: e?.code } };
}

function errorOf(header: Header): Error {
  if (typeof header["refusal"] === "string") return new Refusal(header["refusal"]);
  const e = (header["error"] ?? {}) as { message?: string; code?: string };
  const error = new Error(e.message ?? "the file worker failed") as NodeJS.ErrnoException;
  if (e.code) error.code = e.code;
  return error;
}

/**
 * The worker's loop (inside the sandbox): the first frame is `init` with the guard, then requests.
 * Returns when its input ends (chatcli closed the pipe or went away).
 */
export async function serveFileWorker(
  input: AsyncIterable<Uint8Array>,
  out: (bytes: Uint8Array) => void,
): Promise<void> {
  let ops: FileOps | undefined;
  const searches = new Map<unknown, AbortController>();
  const inflight = new Set<Promise<void>>();
  const reader = new FrameReader();
  const handle = async ({ header, payload }: Frame): Promise<void> => {
    const id = header["id"];
    try {
      if (!ops) throw new Error("the file worker got a request before init");
      const args = header["args"] as never;
      switch (header["op"]) {
        case "read": {
          const { bytes, ...rest } = await ops.read(args);
          out(encodeFrame({ id, ok: true, result: rest }, bytes));
          return;
        }
        case "write":
          out(
            encodeFrame({
              id,
              ok: true,
              result: await ops.write({ ...(args as object), data: payload } as never),
            }),
          );
          return;
        case "list":
          out(encodeFrame({ id, ok: true, result: await ops.list(args) }));
          return;
        case "disable-repo":
          out(encodeFrame({ id, ok: true, result: await ops.disableRepository(args) }));
          return;
        case "search": {
          const controller = new AbortController();
          searches.set(id, controller);
          try {
            out(encodeFrame({ id, ok: true, result: await ops.search(args, controller.signal) }));
          } finally {
            searches.delete(id);
          }
          return;
        }
        default:
          throw new Error(`unknown file worker request ${JSON.stringify(header["op"])}`);
      }
    } catch (error) {
      out(encodeFrame({ id, ok: false, ...errorFields(error) }));
    }
  };
  for await (const chunk of input) {
    for (const frame of reader.push(chunk)) {
      const op = frame.header["op"];
      if (op === "init") ops = directFileOps(frame.header["guard"] as FileGuard);
      else if (op === "cancel") searches.get(frame.header["target"])?.abort();
      else {
        const p = handle(frame).finally(() => inflight.delete(p));
        inflight.add(p);
      }
    }
  }
  await Promise.all(inflight);
}

/** A started worker process, as the host sees it (lib/sandbox/spawn.ts starts it). */
export interface WorkerProcess {
  write(bytes: Uint8Array): void;
  /** Keeps chatcli's event loop alive while a request is out (and lets it go when idle). */
  hold(on: boolean): void;
  kill(): void;
}

export type StartWorker = (events: {
  data: (chunk: Uint8Array) => void;
  exit: (why: string) => void;
}) => WorkerProcess;

interface Pending {
  resolve: (frame: Frame) => void;
  reject: (error: Error) => void;
}

/** chatcli's side of the pipe: FileOps whose work happens in the worker, started on first use. */
export class FileWorkerClient implements FileOps {
  private proc: WorkerProcess | undefined;
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  /** The frames of the requests still out, to send again to a worker started over. */
  private readonly sent = new Map<number, Uint8Array>();
  /** Set-up failures started over (once: a path that changed under bwrap while it mounted). */
  private restarts = 0;

  constructor(
    private readonly start: StartWorker,
    private readonly guard: FileGuard,
  ) {}

  async read(req: Parameters<FileOps["read"]>[0]): Promise<ReadReply> {
    const frame = await this.call("read", req);
    return { ...(frame.header["result"] as Omit<ReadReply, "bytes">), bytes: frame.payload };
  }

  async write(req: Parameters<FileOps["write"]>[0]): Promise<WriteReply> {
    const { data, ...args } = req;
    return (await this.call("write", args, data)).header["result"] as WriteReply;
  }

  async list(req: Parameters<FileOps["list"]>[0]): Promise<ListReply> {
    return (await this.call("list", req)).header["result"] as ListReply;
  }

  async disableRepository(req: DisableRequest): Promise<DisableReply> {
    return (await this.call("disable-repo", req)).header["result"] as DisableReply;
  }

  async search(
    req: Parameters<FileOps["search"]>[0],
    signal: AbortSignal,
  ): Promise<WorkerSearchResult> {
    return (await this.call("search", req, undefined, signal)).header[
      "result"
    ] as WorkerSearchResult;
  }

  /** Stops the worker (the run is over). */
  close(): void {
    this.proc?.kill();
    this.proc = undefined;
    this.fail(new Error("the run's file worker was stopped"));
  }

  private ensure(): WorkerProcess {
    if (this.proc) return this.proc;
    const reader = new FrameReader();
    let answered = false;
    const proc = this.start({
      data: (chunk) => {
        answered = true;
        for (const frame of reader.push(chunk)) {
          const id = frame.header["id"] as number;
          const p = this.pending.get(id);
          if (!p) continue;
          this.pending.delete(id);
          this.sent.delete(id);
          if (this.pending.size === 0) proc.hold(false);
          if (frame.header["ok"] === true) p.resolve(frame);
          else p.reject(errorOf(frame.header));
        }
      },
      exit: (why) => {
        if (this.proc === proc) this.proc = undefined;
        // bwrap failed to set the sandbox up (a path it mounts changed under it: a checkout that
        // swaps links): nothing ran yet, so start once more and send the requests again
        if (!answered && /\bbwrap: /.test(why) && this.restarts < 1 && this.pending.size) {
          this.restarts++;
          const again = this.ensure();
          for (const frame of this.sent.values()) again.write(frame);
          again.hold(true);
          return;
        }
        this.fail(new Error(`the sandboxed file worker stopped: ${why}`));
      },
    });
    this.proc = proc;
    proc.write(encodeFrame({ op: "init", guard: this.guard as unknown as Header }));
    return proc;
  }

  private fail(error: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    this.sent.clear();
    for (const p of all) p.reject(error);
  }

  private call(op: string, args: object, payload?: Uint8Array, signal?: AbortSignal) {
    const proc = this.ensure();
    const id = this.next++;
    return new Promise<Frame>((resolve, reject) => {
      const onAbort = () => this.proc?.write(encodeFrame({ op: "cancel", target: id }));
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onAbort);
      this.pending.set(id, {
        resolve: (f) => {
          done();
          resolve(f);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      proc.hold(true);
      const frame = encodeFrame({ id, op, args: args as Header }, payload);
      this.sent.set(id, frame);
      proc.write(frame);
      if (signal?.aborted) onAbort();
    });
  }
}
