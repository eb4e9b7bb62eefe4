/**
 * The network bridge: chatcli's own binary (`chatcli __net-bridge -- COMMAND…`), started inside the
 * command's sandbox through the one door. The sandbox's network namespace has only its loopback;
 * the bridge listens on 127.0.0.1 there, points the command's proxy variables at itself, runs the
 * command as its child, and carries every connection to chatcli's proxy on the host over the pipe it
 * inherited as fd 4 (the seccomp filter refuses AF_UNIX sockets, so no socket can be bound in; an
 * inherited socketpair end is just a descriptor). It decides nothing: the host judges each request.
 * It ends with the command (and the sandbox's pid namespace takes whatever the command left).
 */
import { createServer, type Server } from "node:net";
import { joinSocket, Mux } from "./net-mux.ts";
import { runInheritingStdio } from "./spawn.ts";

/** The descriptor the bridge finds its pipe to chatcli on. */
export const BRIDGE_FD = 4;
/** Connections open at once through one bridge. */
const MAX_STREAMS = 256;

/** `__net-bridge` argv: `[--loopback-via-proxy] -- COMMAND…`, or undefined when malformed. */
export function parseBridgeArgs(
  args: readonly string[],
): { command: string[]; loopbackViaProxy: boolean } | undefined {
  const sep = args.indexOf("--");
  if (sep < 0 || sep === args.length - 1) return undefined;
  const flags = args.slice(0, sep);
  if (flags.some((f) => f !== "--loopback-via-proxy")) return undefined;
  return { command: args.slice(sep + 1), loopbackViaProxy: flags.length > 0 };
}

/** The bridge's arguments for a command (what the host puts after `chatcli __net-bridge`). */
export function bridgeArgs(command: readonly string[], loopbackViaProxy: boolean): string[] {
  return [...(loopbackViaProxy ? ["--loopback-via-proxy"] : []), "--", ...command];
}

const PROXY_VARS = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
  "npm_config_proxy",
  "npm_config_https_proxy",
  "YARN_HTTP_PROXY",
  "YARN_HTTPS_PROXY",
];
const NO_PROXY_VARS = ["NO_PROXY", "no_proxy", "npm_config_noproxy", "YARN_NO_PROXY"];

/**
 * The command's environment: every proxy variable curl, wget, git, pip, npm, yarn, bun, Go, cargo
 * and Python read points at the bridge; Node (24+) is told to honour them (NODE_USE_ENV_PROXY);
 * NO_PROXY names only the sandbox's own loopback (a test server the command starts there), or
 * nothing when the allowlist names the host's loopback (then `localhost` must go to the proxy).
 */
export function bridgeEnv(
  env: Readonly<Record<string, string | undefined>>,
  port: number,
  loopbackViaProxy: boolean,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  const url = `http://127.0.0.1:${port}`;
  for (const k of PROXY_VARS) out[k] = url;
  const none = loopbackViaProxy ? "" : "localhost,127.0.0.1,::1";
  for (const k of NO_PROXY_VARS) out[k] = none;
  out["NODE_USE_ENV_PROXY"] = "1";
  out["CHATCLI_NETWORK_PROXY"] = url;
  return out;
}

/** Runs the bridge and the command; resolves with the command's exit code. */
export async function serveNetBridge(
  args: readonly string[],
  options: { cwd: string; env: Readonly<Record<string, string | undefined>>; fd?: number },
): Promise<number> {
  const parsed = parseBridgeArgs(args);
  if (!parsed) throw new Error("usage: chatcli __net-bridge [--loopback-via-proxy] -- COMMAND…");
  const fd = options.fd ?? BRIDGE_FD;
  // Bun's own file sink and stream on the descriptor: about half the latency per pipe round trip
  // of node:fs streams (measured: 61 µs against 136 µs), which go through the thread pool
  const output = Bun.file(fd).writer();
  const mux = new Mux(
    (bytes) => {
      try {
        output.write(bytes);
        Promise.resolve(output.flush()).catch(() => mux.shutdown());
      } catch {
        mux.shutdown(); // the pipe broke: chatcli is gone
      }
    },
    undefined,
    1,
  );
  // read until chatcli closes its end; never awaited (the command's exit ends the bridge)
  void (async () => {
    try {
      for await (const chunk of Bun.file(fd).stream()) mux.feed(chunk);
    } catch {
      // the pipe broke: chatcli is gone
    }
    mux.shutdown();
  })();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    if (mux.size >= MAX_STREAMS) return void socket.destroy();
    joinSocket(mux.open(), socket);
  });
  const port = await listen(server);
  const code = await runInheritingStdio(parsed.command, {
    cwd: options.cwd,
    env: bridgeEnv(options.env, port, parsed.loopbackViaProxy),
  });
  server.close();
  mux.shutdown();
  return code;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const a = server.address();
      resolve(typeof a === "object" && a ? a.port : 0);
    });
  });
}
