/**
 * A TCP server on 127.0.0.1 that records every connection and request it gets (the network
 * allowlist's tests count hits). It answers an HTTP request with `hello from NAME`, records a TLS
 * ClientHello as `TLS`, sends a POST to `/echo`'s body back, and with `hold` answers nothing (a connection that stays open until the
 * client goes). `until(pred)` waits on what it has seen, never on time.
 */
import { createServer, type Socket } from "node:net";

export interface HitServer extends AsyncDisposable {
  port: number;
  /** Request lines (`GET /x`, `TLS`) in order. */
  hits: string[];
  /** Connections accepted, and those still open. */
  accepted: number;
  open: number;
  /** Bytes each connection sent first (up to its head). */
  firstBytes: Buffer[];
  until(pred: () => boolean, what: string): Promise<void>;
}

export async function startHitServer(
  name: string,
  options: { hold?: boolean; body?: Buffer } = {},
) {
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  const changed = () => {
    for (const w of [...waiters]) w();
  };
  const state: Omit<HitServer, "port" | typeof Symbol.asyncDispose | "until"> = {
    hits: [],
    accepted: 0,
    open: 0,
    firstBytes: [],
  };
  const server = createServer((socket) => {
    sockets.add(socket);
    state.accepted++;
    state.open++;
    changed();
    let buf = Buffer.alloc(0);
    let seen = false;
    let echo: { want: number; got: Buffer[]; have: number } | undefined;
    const echoed = (chunk: Buffer) => {
      if (!echo) return;
      echo.got.push(chunk);
      echo.have += chunk.length;
      if (echo.have < echo.want) return;
      const all = Buffer.concat(echo.got).subarray(0, echo.want);
      echo = undefined;
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${all.length}\r\nConnection: close\r\n\r\n`);
      socket.end(all);
    };
    socket.on("data", (chunk: Buffer) => {
      if (echo) return echoed(chunk);
      if (seen) return;
      buf = Buffer.concat([buf, chunk]);
      if (buf[0] === 0x16) {
        seen = true;
        state.firstBytes.push(buf);
        state.hits.push("TLS");
        changed();
        socket.destroy();
        return;
      }
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      seen = true;
      state.firstBytes.push(buf.subarray(0, end + 4));
      const line = buf.toString("latin1", 0, buf.indexOf("\r\n"));
      state.hits.push(line.replace(/ HTTP\/1\.[01]$/, ""));
      changed();
      if (options.hold) return;
      // `/echo` sends the request's body back (Content-Length bodies)
      if (/^POST \/echo/.test(line)) {
        const want = Number(/content-length:\s*(\d+)/i.exec(buf.toString("latin1", 0, end))?.[1]);
        echo = { want, got: [], have: 0 };
        return echoed(buf.subarray(end + 4));
      }
      const body = options.body ?? Buffer.from(`hello from ${name}\n`);
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      );
      socket.end(body);
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      sockets.delete(socket);
      state.open--;
      changed();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const hit: HitServer = Object.assign(state, {
    port,
    until(pred: () => boolean, what: string) {
      if (pred()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pred()) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        // a bound for a broken test, not a synchronisation: the condition is what is waited on
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${name}: never saw ${what} (hits: ${JSON.stringify(state.hits)})`));
        }, 30_000);
        waiters.add(check);
      });
    },
    async [Symbol.asyncDispose]() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return hit;
}
