/**
 * The wire between the network bridge inside the sandbox (net-bridge.ts) and chatcli's proxy on the
 * host (net-proxy.ts): many TCP connections over one inherited pipe. The bridge knows nothing about
 * HTTP; it opens a stream per accepted connection and moves bytes. Every decision is the host's.
 *
 * Frame: type (1 byte), stream id (4 bytes, big-endian), payload length (4 bytes), payload.
 * Flow control per stream: a side sends at most WINDOW bytes the other has not acknowledged; the
 * receiver acknowledges a chunk once its socket has taken it, so a slow reader holds up only its
 * own connection and no side buffers more than WINDOW per stream.
 */
import type { Socket } from "node:net";

export const FRAME = { open: 1, data: 2, end: 3, close: 4, ack: 5 } as const;
type FrameType = (typeof FRAME)[keyof typeof FRAME];

const HEADER = 9;
export const WINDOW = 256 * 1024;
const MAX_CHUNK = 64 * 1024;
/** A frame longer than this is a broken peer: the link is dropped. */
const MAX_FRAME = MAX_CHUNK * 2;

export function encodeMuxFrame(type: FrameType, id: number, payload?: Uint8Array): Buffer {
  const head = Buffer.alloc(HEADER);
  head.writeUInt8(type, 0);
  head.writeUInt32BE(id >>> 0, 1);
  head.writeUInt32BE(payload?.length ?? 0, 5);
  return payload?.length ? Buffer.concat([head, payload]) : head;
}

export interface MuxFrame {
  type: number;
  id: number;
  payload: Buffer;
}

/** Splits a byte stream into frames, whatever the chunking (each byte is copied once). */
export class MuxReader {
  private chunks: Buffer[] = [];
  private size = 0;

  push(chunk: Uint8Array): MuxFrame[] {
    if (chunk.length) {
      this.chunks.push(Buffer.from(chunk));
      this.size += chunk.length;
    }
    const frames: MuxFrame[] = [];
    while (this.size >= HEADER) {
      const head = this.front(HEADER);
      const len = head.readUInt32BE(5);
      if (len > MAX_FRAME) throw new Error(`network bridge: a frame of ${len} bytes`);
      if (this.size < HEADER + len) break;
      const type = head.readUInt8(0);
      const id = head.readUInt32BE(1);
      this.take(HEADER);
      frames.push({ type, id, payload: this.take(len) });
    }
    return frames;
  }

  /** The first n bytes as one buffer (merging only the chunks they span). */
  private front(n: number): Buffer {
    let first = this.chunks[0] as Buffer;
    if (first.length >= n) return first;
    let k = 1;
    let have = first.length;
    while (have < n) have += (this.chunks[k++] as Buffer).length;
    first = Buffer.concat(this.chunks.slice(0, k));
    this.chunks.splice(0, k, first);
    return first;
  }

  private take(n: number): Buffer {
    this.size -= n;
    const parts: Buffer[] = [];
    while (n > 0) {
      const c = this.chunks[0] as Buffer;
      if (c.length <= n) {
        parts.push(c);
        this.chunks.shift();
        n -= c.length;
      } else {
        parts.push(c.subarray(0, n));
        this.chunks[0] = c.subarray(n);
        n = 0;
      }
    }
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }
}

/** One connection's end of the link. The owner sets the handlers. */
export class MuxStream {
  /** A chunk from the other side; call `done` once it is consumed (that acknowledges it). */
  onData: (chunk: Buffer, done: () => void) => void = (_c, done) => done();
  /** The other side will send no more (half-close). */
  onEnd: () => void = () => {};
  /** The other side dropped the connection, or the link went away. */
  onClose: () => void = () => {};
  /** The window has room again after `write` returned false. */
  onDrain: () => void = () => {};
  private inflight = 0;
  private sentEnd = false;
  closed = false;

  constructor(
    readonly id: number,
    private readonly mux: Mux,
  ) {}

  /** Sends bytes; false when the window is full (stop reading until onDrain). */
  write(bytes: Uint8Array): boolean {
    if (this.closed || this.sentEnd) return false;
    for (let at = 0; at < bytes.length; at += MAX_CHUNK) {
      const part = bytes.subarray(at, Math.min(bytes.length, at + MAX_CHUNK));
      this.mux.send(FRAME.data, this.id, part);
      this.inflight += part.length;
    }
    return this.inflight < WINDOW;
  }

  /** No more bytes from this side. */
  end(): void {
    if (this.closed || this.sentEnd) return;
    this.sentEnd = true;
    this.mux.send(FRAME.end, this.id);
  }

  /** Drops the connection on both sides. */
  close(): void {
    if (this.closed) return;
    this.mux.send(FRAME.close, this.id);
    this.drop();
  }

  /** @internal */
  acked(n: number): void {
    const wasFull = this.inflight >= WINDOW;
    this.inflight = Math.max(0, this.inflight - n);
    if (wasFull && this.inflight < WINDOW) this.onDrain();
  }

  /** @internal */
  drop(): void {
    if (this.closed) return;
    this.closed = true;
    this.mux.forget(this.id);
    this.onClose();
  }
}

/** The link: frames in through `feed`, out through `out`. */
export class Mux {
  private readonly streams = new Map<number, MuxStream>();
  private readonly reader = new MuxReader();
  private next: number;
  private dead = false;

  /**
   * `out` writes bytes to the pipe; `onOpen` is called for a stream the other side opened (the
   * host's proxy); `firstId` 1 or 2 keeps the two sides' ids apart.
   */
  constructor(
    private readonly out: (bytes: Buffer) => void,
    private readonly onOpen?: (stream: MuxStream) => void,
    firstId = 1,
  ) {
    this.next = firstId;
  }

  get size(): number {
    return this.streams.size;
  }

  /** Opens a stream to the other side (the bridge, for an accepted connection). */
  open(): MuxStream {
    const id = this.next;
    this.next += 2;
    const stream = new MuxStream(id, this);
    this.streams.set(id, stream);
    this.send(FRAME.open, id);
    return stream;
  }

  feed(chunk: Uint8Array): void {
    if (this.dead) return;
    let frames: MuxFrame[];
    try {
      frames = this.reader.push(chunk);
    } catch {
      this.shutdown();
      return;
    }
    for (const f of frames) this.dispatch(f);
  }

  /** The pipe is gone (or the run ended): every stream is dropped. */
  shutdown(): void {
    this.dead = true;
    for (const s of [...this.streams.values()]) s.drop();
  }

  /** @internal */
  send(type: FrameType, id: number, payload?: Uint8Array): void {
    if (!this.dead) this.out(encodeMuxFrame(type, id, payload));
  }

  /** @internal */
  forget(id: number): void {
    this.streams.delete(id);
  }

  private dispatch(f: MuxFrame): void {
    if (f.type === FRAME.open) {
      if (this.streams.has(f.id) || !this.onOpen) {
        this.send(FRAME.close, f.id);
        return;
      }
      const stream = new MuxStream(f.id, this);
      this.streams.set(f.id, stream);
      this.onOpen(stream);
      return;
    }
    const stream = this.streams.get(f.id);
    if (!stream) return;
    if (f.type === FRAME.data) {
      const n = f.payload.length;
      let acked = false;
      stream.onData(f.payload, () => {
        if (acked || stream.closed) return;
        acked = true;
        const b = Buffer.alloc(4);
        b.writeUInt32BE(n, 0);
        this.send(FRAME.ack, f.id, b);
      });
    } else if (f.type === FRAME.ack && f.payload.length === 4)
      stream.acked(f.payload.readUInt32BE(0));
    else if (f.type === FRAME.end) stream.onEnd();
    else if (f.type === FRAME.close) stream.drop();
  }
}

/**
 * Joins a stream and a TCP socket both ways, with flow control: what the socket reads goes out as
 * DATA (the socket pauses while the window is full), what arrives is written to the socket and
 * acknowledged once written; half-closes pass through; either side dropping drops both.
 */
export function joinSocket(stream: MuxStream, socket: Socket): void {
  let gotEnd = false;
  let sentEnd = false;
  stream.onData = (chunk, done) => {
    if (socket.destroyed) return done();
    // a peer that ignores the window (only a broken or forged one would) is not buffered without end
    if (socket.writableLength > 4 * WINDOW) return stream.close();
    socket.write(chunk, () => done());
  };
  stream.onEnd = () => {
    gotEnd = true;
    socket.end();
  };
  stream.onClose = () => socket.destroy();
  stream.onDrain = () => socket.resume();
  socket.on("data", (chunk: Buffer) => {
    if (!stream.write(chunk)) socket.pause();
  });
  socket.on("end", () => {
    sentEnd = true;
    stream.end();
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    // both directions finished cleanly: nothing to tell; otherwise the other side drops its end
    if (gotEnd && sentEnd) stream.drop();
    else stream.close();
  });
}
