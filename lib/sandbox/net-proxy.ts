/**
 * chatcli's network proxy for one sandboxed command, on the host. The command's network namespace has
 * only its own loopback; the bridge inside it (net-bridge.ts) carries each connection to 127.0.0.1:PORT
 * here over an inherited pipe. For each one this decides, before anything is sent anywhere:
 *
 * - what it asks for: `CONNECT host:port` (https, and anything else tunnelled) or an absolute
 *   `http://` URL; anything else is refused (400);
 * - whether the request carries a value chatcli knows is secret (the authority, the URL, the TLS
 *   server name): refused in every mode;
 * - whether an allowlist entry names the host (net-hosts.ts: domain rules, no IP literal unless
 *   named, a port when the entry has one);
 * - where the name leads: every address it resolves to is checked (addressRefusal), and chatcli
 *   connects to a checked address itself, so a second lookup cannot change the answer;
 * - after a CONNECT, the TLS ClientHello's server name must be the host asked for (or another
 *   allowed one), so a tunnel to an allowed CDN address cannot ask for another site on it.
 *
 * It never adds a credential: a plain http request loses its Proxy-Authorization and hop-by-hop
 * headers and gets `Connection: close` (one request per connection, so every request is judged).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { connect, type Socket } from "node:net";
import { carriedSecret, type KnownSecret } from "../core/secrets.ts";
import { addressRefusal, matchNetEntry, type NetEntry, normalizeNetHost } from "./net-hosts.ts";
import {
  clientHelloSni,
  type ProxyRequest,
  parseProxyRequest,
  proxyResponse,
  STATUS_TEXT,
} from "./net-http.ts";
import { joinSocket, Mux, type MuxStream, WINDOW } from "./net-mux.ts";

export type NetLookup = (host: string) => Promise<string[]>;

export const systemNetLookup: NetLookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface NetPolicy {
  entries: readonly NetEntry[];
  secrets: readonly KnownSecret[];
  lookup?: NetLookup;
  connectTimeoutMs?: number;
}

/** One decision: a connection allowed (to `host:port`) or refused, and why. */
export interface NetEvent {
  host: string;
  port?: number;
  allowed: boolean;
  why?: string;
  /** The flag that would allow it (absent when none would: a secret, a malformed request). */
  flag?: string;
}

const MAX_HELLO = 5 + 65535;

export class NetProxy {
  private readonly mux: Mux;
  private readonly upstreams = new Set<Socket>();
  private closed = false;

  constructor(
    private readonly policy: NetPolicy,
    out: (bytes: Buffer) => void,
    private readonly onEvent: (event: NetEvent) => void,
  ) {
    this.mux = new Mux(out, (stream) => this.serve(stream), 2);
  }

  feed(chunk: Uint8Array): void {
    this.mux.feed(chunk);
  }

  /** The command ended: every connection it opened is dropped. */
  close(): void {
    this.closed = true;
    this.mux.shutdown();
    for (const s of this.upstreams) s.destroy();
    this.upstreams.clear();
  }

  private serve(stream: MuxStream): void {
    let buf = Buffer.alloc(0);
    let deciding = false;
    let ended = false;
    let queuedBytes = 0;
    const queued: Array<[Buffer, () => void]> = [];
    stream.onData = (chunk, done) => {
      if (deciding) {
        // held until the decision, unacknowledged: a peer that ignores the window is dropped
        queuedBytes += chunk.length;
        if (queuedBytes > 2 * WINDOW) return stream.close();
        return void queued.push([chunk, done]);
      }
      buf = Buffer.concat([buf, chunk]);
      done();
      const req = parseProxyRequest(buf);
      if (req === "more") return;
      deciding = true;
      this.handle(stream, req, queued, () => ended).catch(() => stream.close());
    };
    stream.onEnd = () => {
      ended = true;
      if (deciding) return;
      // closed before asking for anything
      stream.end();
      stream.drop();
    };
  }

  private async handle(
    stream: MuxStream,
    req: ProxyRequest,
    queued: Array<[Buffer, () => void]>,
    ended: () => boolean,
  ): Promise<void> {
    const refuse = (status: number, event: NetEvent, body: string) => {
      this.onEvent(event);
      stream.onData = (_c, done) => done();
      stream.write(proxyResponse(status, STATUS_TEXT[status] ?? "Error", body));
      stream.end();
      for (const [, done] of queued) done();
      stream.drop(); // nothing more to do for it (what the client still sends is not read)
    };
    if (req.kind === "bad") {
      const withheld = req.target && carriedSecret(req.target, this.policy.secrets);
      const why = `${req.why}${req.target && !withheld ? ` (${req.target.slice(0, 200)})` : ""}`;
      return refuse(req.status, { host: "?", allowed: false, why }, `chatcli: ${why}`);
    }
    const target = { host: req.host, port: req.port };
    const shown = hostPort(target.host, target.port);
    const secret = carriedSecret(
      req.kind === "forward" ? req.url : req.authority,
      this.policy.secrets,
    );
    if (secret) {
      // the host itself may be the secret: it is not repeated anywhere
      const why = `the request carries the value of ${secret.name}, a secret; it is never sent`;
      return refuse(403, { host: "(withheld)", allowed: false, why }, `chatcli: ${why}`);
    }
    const entry = matchNetEntry(this.policy.entries, target);
    if (!entry) {
      // the host is named for another port: suggest this port, not every port
      const samePlace = this.policy.entries.some((e) => e.port && e.host === target.host);
      const flag = `--allow-network ${samePlace ? shown : hostPort(target.host)}`;
      const why = "not in the network allowlist";
      return refuse(
        403,
        { ...target, allowed: false, why, flag },
        `chatcli: ${shown}: ${why}; to allow it: ${flag}`,
      );
    }
    let addresses: string[];
    try {
      addresses = entry.ip
        ? [target.host]
        : await (this.policy.lookup ?? systemNetLookup)(target.host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) {
      const why = "the name does not resolve";
      return refuse(502, { ...target, allowed: false, why }, `chatcli: ${shown}: ${why}`);
    }
    for (const a of addresses) {
      const why = addressRefusal(entry, a);
      if (why) return refuse(403, { ...target, allowed: false, why }, `chatcli: ${shown}: ${why}`);
    }
    const upstream = await this.connectAny(addresses, target.port);
    if (stream.closed || this.closed) return void upstream?.destroy();
    if (!upstream) {
      const why = "the connection failed";
      return refuse(502, { ...target, allowed: false, why }, `chatcli: ${shown}: ${why}`);
    }
    if (req.kind === "forward") {
      this.onEvent({ ...target, allowed: true });
      upstream.write(req.head);
      if (req.rest.length) upstream.write(req.rest);
      return this.join(stream, upstream, queued, ended);
    }
    stream.write(Buffer.from("HTTP/1.1 200 Connection established\r\n\r\n"));
    this.checkHello(stream, upstream, target, req.rest, queued, ended);
  }

  /** After a CONNECT: holds the first bytes until the TLS hello's server name is known and allowed. */
  private checkHello(
    stream: MuxStream,
    upstream: Socket,
    target: { host: string; port: number },
    rest: Buffer,
    queued: Array<[Buffer, () => void]>,
    ended: () => boolean,
  ): void {
    let buf = Buffer.concat([rest, ...queued.map(([c]) => c)]);
    for (const [, done] of queued) done();
    queued.length = 0;
    let gotEnd = ended();
    const decide = () => {
      const hello = clientHelloSni(buf);
      if (hello === "more" && buf.length < MAX_HELLO && !gotEnd) return false;
      const why = this.helloRefusal(hello, target);
      if (why) {
        this.onEvent({ ...target, allowed: false, why });
        upstream.destroy();
        stream.close();
        return true;
      }
      this.onEvent({ ...target, allowed: true });
      if (buf.length) upstream.write(buf);
      this.join(stream, upstream, [], () => gotEnd);
      return true;
    };
    stream.onEnd = () => {
      gotEnd = true;
      decide();
    };
    stream.onData = (chunk, done) => {
      buf = Buffer.concat([buf, chunk]);
      done();
      decide();
    };
    stream.onClose = () => upstream.destroy();
    if (buf.length || gotEnd) decide();
  }

  private helloRefusal(
    hello: ReturnType<typeof clientHelloSni>,
    target: { host: string; port: number },
  ): string | undefined {
    if (hello === "more") return "the TLS hello never completed";
    if (!hello.tls) return undefined;
    if (hello.cut)
      return "the TLS hello is split across records (its server name cannot be checked)";
    if (hello.sni === undefined) return undefined;
    const secret = carriedSecret(hello.sni, this.policy.secrets);
    if (secret) return `the TLS server name carries the value of ${secret.name}, a secret`;
    const sni = normalizeNetHost(hello.sni);
    if (sni === target.host) return undefined;
    if (sni && matchNetEntry(this.policy.entries, { host: sni, port: target.port }))
      return undefined;
    return `the TLS hello asks for ${hello.sni.slice(0, 100)}, not ${target.host}`;
  }

  private join(
    stream: MuxStream,
    upstream: Socket,
    queued: Array<[Buffer, () => void]>,
    ended: () => boolean,
  ): void {
    for (const [chunk, done] of queued) upstream.write(chunk, () => done());
    joinSocket(stream, upstream);
    if (ended()) stream.onEnd();
  }

  private async connectAny(addresses: string[], port: number): Promise<Socket | undefined> {
    for (const address of addresses) {
      const socket = await this.connectOne(address, port);
      if (socket) return socket;
    }
    return undefined;
  }

  private connectOne(address: string, port: number): Promise<Socket | undefined> {
    return new Promise((resolve) => {
      if (this.closed) return resolve(undefined);
      const socket = connect({ host: address, port, allowHalfOpen: true });
      this.upstreams.add(socket);
      socket.on("close", () => this.upstreams.delete(socket));
      const fail = () => {
        socket.destroy();
        resolve(undefined);
      };
      socket.setTimeout(this.policy.connectTimeoutMs ?? 30_000, fail);
      socket.once("error", fail);
      socket.once("connect", () => {
        socket.setTimeout(0);
        socket.off("error", fail);
        resolve(socket);
      });
    });
  }
}

export function hostPort(host: string, port?: number): string {
  const h = host.includes(":") ? `[${host}]` : host;
  return port === undefined ? h : `${h}:${port}`;
}
