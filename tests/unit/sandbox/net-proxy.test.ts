/**
 * The network proxy and its wire, in-process: a stand-in for the bridge (a TCP listener whose
 * connections go over a Mux) talks to a real NetProxy, which talks to real servers on 127.0.0.1.
 */
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { parseNetAllow } from "../../../lib/sandbox/net-hosts.ts";
import { encodeMuxFrame, FRAME, joinSocket, Mux, MuxReader } from "../../../lib/sandbox/net-mux.ts";
import { type NetEvent, type NetLookup, NetProxy } from "../../../lib/sandbox/net-proxy.ts";
import { startHitServer } from "../../support/hit-server.ts";

interface Harness extends AsyncDisposable {
  port: number;
  events: NetEvent[];
  proxy: NetProxy;
}

/** A bridge in-process: connections to `port` are carried to the proxy over a Mux, as in the sandbox. */
async function harness(
  allow: string[],
  options: { secrets?: Array<{ name: string; value: string }>; lookup?: NetLookup } = {},
): Promise<Harness> {
  const events: NetEvent[] = [];
  // the pipe: each side's bytes reach the other on a later tick, as through a socketpair
  let proxy: NetProxy | undefined;
  const bridge = new Mux((b) => setImmediate(() => proxy?.feed(b)), undefined, 1);
  proxy = new NetProxy(
    {
      entries: parseNetAllow(allow, "test"),
      secrets: options.secrets ?? [],
      lookup: options.lookup,
    },
    (b) => setImmediate(() => bridge.feed(b)),
    (e) => events.push(e),
  );
  const server: Server = createServer({ allowHalfOpen: true }, (s) => joinSocket(bridge.open(), s));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    events,
    proxy,
    async [Symbol.asyncDispose]() {
      proxy?.close();
      bridge.shutdown();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Sends `request` to the bridge and reads until the connection ends. */
function exchange(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: "127.0.0.1", port });
    const got: Buffer[] = [];
    s.on("data", (c: Buffer) => got.push(c));
    s.on("error", () => {});
    s.on("close", () => resolve(Buffer.concat(got).toString("latin1")));
    s.write(request);
  });
}

describe("the mux wire", () => {
  test("frames survive any chunking", () => {
    const big = randomBytes(70_000);
    const bytes = Buffer.concat([
      encodeMuxFrame(FRAME.open, 1),
      encodeMuxFrame(FRAME.data, 1, big),
      encodeMuxFrame(FRAME.end, 7),
    ]);
    for (const size of [1, 5, 9, 4096, bytes.length]) {
      const reader = new MuxReader();
      const frames = [];
      for (let i = 0; i < bytes.length; i += size)
        frames.push(...reader.push(bytes.subarray(i, i + size)));
      expect(frames.map((f) => [f.type, f.id])).toEqual([
        [FRAME.open, 1],
        [FRAME.data, 1],
        [FRAME.end, 7],
      ]);
      expect(frames[1]?.payload.equals(big)).toBe(true);
    }
  });

  test("a frame longer than any chunk drops the link instead of buffering it", () => {
    const mux = new Mux(() => {});
    const stream = mux.open();
    let closed = false;
    stream.onClose = () => {
      closed = true;
    };
    const head = Buffer.alloc(9);
    head.writeUInt8(FRAME.data, 0);
    head.writeUInt32BE(1, 1);
    head.writeUInt32BE(0xffffffff, 5);
    mux.feed(head);
    expect(closed).toBe(true);
  });
});

describe("the proxy", () => {
  test("an allowed host is reached (absolute URL and CONNECT); the body comes back whole", async () => {
    await using a = await startHitServer("A");
    await using h = await harness([`127.0.0.1:${a.port}`]);
    const plain = await exchange(
      h.port,
      `GET http://127.0.0.1:${a.port}/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    );
    expect(plain).toContain("hello from A");
    const tunnel = await exchange(
      h.port,
      `CONNECT 127.0.0.1:${a.port} HTTP/1.1\r\n\r\nGET /y HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(tunnel).toMatch(/^HTTP\/1\.1 200 Connection established\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(a.hits).toEqual(["GET /x", "GET /y"]);
    expect(h.events.map((e) => e.allowed)).toEqual([true, true]);
  });

  test("an unnamed host, another port, a name for a named address: 403 and never contacted", async () => {
    await using a = await startHitServer("A");
    await using b = await startHitServer("B");
    await using h = await harness([`127.0.0.1:${a.port}`], {
      lookup: async () => ["127.0.0.1"],
    });
    for (const target of [
      `CONNECT 127.0.0.1:${b.port} HTTP/1.1\r\n\r\n`,
      `GET http://127.0.0.1:${b.port}/ HTTP/1.1\r\n\r\n`,
      `CONNECT localhost:${a.port} HTTP/1.1\r\n\r\n`,
      `CONNECT 2130706433:${b.port} HTTP/1.1\r\n\r\n`,
    ]) {
      const r = await exchange(h.port, target);
      expect(r).toMatch(/^HTTP\/1\.1 403 Forbidden/);
      expect(r).toContain("to allow it: --allow-network");
    }
    expect(a.accepted + b.accepted).toBe(0);
    expect(h.events.every((e) => !e.allowed)).toBe(true);
    expect(h.events[0]?.flag).toBe(`--allow-network 127.0.0.1:${b.port}`);
  });

  test("a request carrying a secret is refused whatever its spelling, before any lookup", async () => {
    await using a = await startHitServer("A");
    let lookups = 0;
    const secret = "s3cr3t-value-0123456789";
    await using h = await harness(["localhost", "*.example"], {
      secrets: [{ name: "DEPLOY_TOKEN", value: secret }],
      lookup: async () => {
        lookups++;
        return ["127.0.0.1"];
      },
    });
    const b64 = Buffer.from(secret).toString("base64url");
    for (const req of [
      `GET http://localhost:${a.port}/?k=${secret} HTTP/1.1\r\n\r\n`,
      `GET http://localhost:${a.port}/${encodeURIComponent(encodeURIComponent(secret))} HTTP/1.1\r\n\r\n`,
      `GET http://localhost:${a.port}/?d=${b64} HTTP/1.1\r\n\r\n`,
      `CONNECT ${secret}.example:443 HTTP/1.1\r\n\r\n`,
    ]) {
      const r = await exchange(h.port, req);
      expect(r).toMatch(/^HTTP\/1\.1 403/);
      expect(r).toContain("DEPLOY_TOKEN");
      expect(r).not.toContain(secret);
    }
    expect(lookups).toBe(0);
    expect(a.accepted).toBe(0);
  });

  test("where a name leads is checked: a name that resolves to loopback or metadata is refused", async () => {
    await using a = await startHitServer("A");
    const table: Record<string, string[]> = {
      "rebind.example": ["127.0.0.1"],
      "meta.example": ["169.254.169.254"],
      "mixed.example": ["93.184.216.34", "127.0.0.1"],
      "lan.corp.example": ["10.9.9.9"],
      localhost: ["127.0.0.1"],
    };
    await using h = await harness(
      ["rebind.example", "meta.example", "mixed.example", "*.corp.example", "localhost"],
      {
        lookup: async (host) => table[host] ?? [],
      },
    );
    for (const host of ["rebind.example", "meta.example", "mixed.example", "lan.corp.example"]) {
      const r = await exchange(h.port, `CONNECT ${host}:${a.port} HTTP/1.1\r\n\r\n`);
      expect([host, r.slice(0, 22)]).toEqual([host, "HTTP/1.1 403 Forbidden"]);
    }
    expect(h.events.map((e) => e.why)).toEqual([
      expect.stringMatching(/loopback/),
      expect.stringMatching(/metadata/),
      expect.stringMatching(/loopback/),
      expect.stringMatching(/private address, through the wildcard/),
    ]);
    expect(a.accepted).toBe(0);
    // localhost names the host's loopback on purpose
    const ok = await exchange(h.port, `GET http://localhost:${a.port}/ok HTTP/1.1\r\n\r\n`);
    expect(ok).toContain("hello from A");
  });

  test("after CONNECT, a TLS hello for another server is cut off before it leaves", async () => {
    await using a = await startHitServer("A");
    await using h = await harness(["localhost", "other.example"], {
      lookup: async () => ["127.0.0.1"],
    });
    const hello = (servername: string) =>
      new Promise<string>((resolve) => {
        const s = connect({ host: "127.0.0.1", port: h.port });
        s.on("error", () => {});
        s.once("data", (d) => {
          const head = d.toString();
          const t = tlsConnect({ socket: s, servername, rejectUnauthorized: false });
          t.on("error", () => {});
          s.on("close", () => resolve(head));
        });
        s.write(`CONNECT localhost:${a.port} HTTP/1.1\r\n\r\n`);
      });
    expect(await hello("evil.example")).toContain("200 Connection established");
    expect(a.hits).toEqual([]);
    expect(h.events.at(-1)?.why).toMatch(/TLS hello asks for evil\.example, not localhost/);
    // the name the CONNECT asked for, or another allowed one, passes
    await hello("localhost");
    await hello("other.example");
    await a.until(() => a.hits.length === 2, "two TLS hellos");
    expect(a.hits).toEqual(["TLS", "TLS"]);
  });

  test("megabytes both ways, with a slow reader: nothing lost, nothing reordered", async () => {
    const payload = randomBytes(5 * 1024 * 1024);
    const echo = createServer({ allowHalfOpen: true }, (s: Socket) => {
      s.on("data", (c) => {
        if (!s.write(c)) s.pause();
      });
      s.on("drain", () => s.resume());
      s.on("end", () => s.end());
    });
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    const port = (echo.address() as { port: number }).port;
    try {
      await using h = await harness([`127.0.0.1:${port}`]);
      const back = await new Promise<Buffer>((resolve) => {
        const s = connect({ host: "127.0.0.1", port: h.port, allowHalfOpen: true });
        const got: Buffer[] = [];
        let header = true;
        s.on("data", (c: Buffer) => {
          if (header) {
            header = false;
            const at = c.indexOf("\r\n\r\n");
            c = c.subarray(at + 4);
            s.write(payload);
            s.end();
          }
          if (c.length) got.push(c);
          // read slowly: the window, not memory, absorbs it
          s.pause();
          setImmediate(() => s.resume());
        });
        s.on("end", () => resolve(Buffer.concat(got)));
        s.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`);
      });
      expect(back.length).toBe(payload.length);
      expect(back.equals(payload)).toBe(true);
    } finally {
      echo.close();
    }
  });

  test("a peer that ignores the window while the proxy decides is dropped, not buffered", () => {
    const frames: number[] = [];
    const reader = new MuxReader();
    const proxy = new NetProxy(
      // a lookup that never answers: the proxy is still deciding
      {
        entries: parseNetAllow(["slow.example"], "t"),
        secrets: [],
        lookup: () => new Promise(() => {}),
      },
      (b) => {
        for (const f of reader.push(b)) frames.push(f.type);
      },
      () => {},
    );
    proxy.feed(encodeMuxFrame(FRAME.open, 1));
    proxy.feed(
      encodeMuxFrame(FRAME.data, 1, Buffer.from("CONNECT slow.example:443 HTTP/1.1\r\n\r\n")),
    );
    const chunk = Buffer.alloc(64 * 1024);
    for (let i = 0; i < 7; i++) proxy.feed(encodeMuxFrame(FRAME.data, 1, chunk));
    expect(frames).not.toContain(FRAME.close);
    for (let i = 0; i < 4; i++) proxy.feed(encodeMuxFrame(FRAME.data, 1, chunk));
    expect(frames).toContain(FRAME.close);
    proxy.close();
  });

  test("close() drops every connection the command still had open", async () => {
    await using held = await startHitServer("held", { hold: true });
    await using h = await harness([`127.0.0.1:${held.port}`]);
    const client = connect({ host: "127.0.0.1", port: h.port });
    client.on("error", () => {});
    client.write(`GET http://127.0.0.1:${held.port}/slow HTTP/1.1\r\n\r\n`);
    await held.until(() => held.hits.length === 1, "the request");
    expect(held.open).toBe(1);
    h.proxy.close();
    await held.until(() => held.open === 0, "the upstream connection closed");
    client.destroy();
  });
});
