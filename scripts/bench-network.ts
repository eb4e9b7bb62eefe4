// The cost of `--allow-network HOST`: a command's start with the network bridge (dist/chatcli inside
// bwrap) against the same command without it, and each connection through the bridge and chatcli's
// proxy against the same connection made directly on the host. Generated traffic: a local server on
// 127.0.0.1 answering a 2-byte body, one request per connection.
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { runShell } from "../lib/agent/tools/run-command.ts";
import type { ToolContext } from "../lib/agent/types.ts";
import { parseNetAllow } from "../lib/sandbox/net-hosts.ts";
import { Sandbox } from "../lib/sandbox/sandbox.ts";

const ROOT = resolve(import.meta.dir, "..");

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** N sequential connections, each one request: direct, CONNECT through $HTTPS_PROXY, or an absolute URL. */
const CLIENT = `
import { connect } from "node:net";
const [mode, n, port] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const proxy = new URL(process.env.HTTPS_PROXY ?? "http://127.0.0.1:1");
const once = () => new Promise((resolve, reject) => {
  const direct = mode === "direct";
  const s = connect(direct ? port : Number(proxy.port), "127.0.0.1");
  let buf = "";
  let tunnelled = mode !== "connect";
  const request = mode === "absolute"
    ? "GET http://127.0.0.1:" + port + "/ HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
    : "GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n";
  s.on("connect", () => s.write(mode === "connect" ? "CONNECT 127.0.0.1:" + port + " HTTP/1.1\\r\\n\\r\\n" : request));
  s.on("data", (d) => {
    buf += d;
    if (!tunnelled && buf.includes("\\r\\n\\r\\n")) { tunnelled = true; buf = ""; s.write(request); }
  });
  s.on("end", () => { s.end(); buf.includes("ok") ? resolve() : reject(new Error(buf)); });
  s.on("error", reject);
});
const t = performance.now();
for (let i = 0; i < n; i++) await once();
console.log(((performance.now() - t) * 1000 / n).toFixed(1));
`;

export async function networkRows(
  ws: string,
  env: Record<string, string>,
  ctx: (sandbox: Sandbox) => ToolContext,
  runs: number,
): Promise<string[]> {
  const server = createServer((s) => {
    s.on("data", () =>
      s.end("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"),
    );
    s.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  const bin = join(ROOT, "dist", "chatcli");
  const selfArgv = existsSync(bin) ? [bin] : [process.execPath, join(ROOT, "main.ts")];
  await writeFile(join(ws, "net-client.mjs"), CLIENT);
  const open = (hosts: string[]) =>
    Sandbox.create({
      env,
      setting: "auto",
      permissionMode: "edit",
      workspaceRoot: ws,
      selfArgv,
      allowNetworkHosts: parseNetAllow(hosts, "bench"),
    });
  const [plain, proxied] = await Promise.all([open([]), open([`127.0.0.1:${port}`])]);
  const none = Sandbox.none(env, ws);
  const perConn = 40;
  const client = (mode: string) => `${process.execPath} net-client.mjs ${mode} ${perConn} ${port}`;
  const cases: Array<[string, Sandbox, string]> = [
    ["connection, direct on the host (floor)", none, client("direct")],
    ["connection through bridge + proxy, CONNECT (https)", proxied, client("connect")],
    ["connection through bridge + proxy, absolute URL (http)", proxied, client("absolute")],
  ];
  const conn: number[][] = cases.map(() => []);
  const starts: number[][] = [[], []];
  try {
    for (let i = 0; i < runs + 2; i++) {
      for (const [k, [, sb, cmd]] of cases.entries()) {
        const r = await runShell(cmd, undefined, 60, ctx(sb));
        if (r.isError) throw new Error(`bench: ${r.output}`);
        const us = Number(/exit code: 0\n([\d.]+)/.exec(r.output)?.[1]);
        if (i >= 2) conn[k]?.push(us);
      }
      for (const [k, sb] of [plain, proxied].entries()) {
        const t = performance.now();
        const r = await runShell("true", undefined, 30, ctx(sb));
        if (r.isError) throw new Error(`bench: ${r.output}`);
        if (i >= 2) starts[k]?.push(performance.now() - t);
      }
    }
  } finally {
    plain.dispose();
    proxied.dispose();
    server.close();
  }
  const floor = median(conn[0] as number[]);
  const base = median(starts[0] as number[]);
  const withBridge = median(starts[1] as number[]);
  return [
    "",
    `## Sandbox: --allow-network HOST (median of ${runs} interleaved runs; bridge: ${selfArgv.length === 1 ? "dist/chatcli" : "bun main.ts"}; generated traffic: a local server, 2-byte answers)`,
    "",
    "| what | µs per connection | ratio |",
    "|---|---:|---:|",
    ...cases.map(([name], k) => {
      const m = median(conn[k] as number[]);
      return `| ${name} | ${m.toFixed(0)} | ${(m / floor).toFixed(1)}× |`;
    }),
    "",
    "| what | ms | ratio |",
    "|---|---:|---:|",
    `| run_command \`true\`, bubblewrap (edit) | ${base.toFixed(1)} | 1.00× |`,
    `| run_command \`true\`, bubblewrap + network bridge | ${withBridge.toFixed(1)} | ${(withBridge / base).toFixed(2)}× |`,
    "",
    `Each connection is ${perConn} sequential connect + one request + close, timed inside the command. The bridge starts with every run_command when hosts are named (a second process: chatcli's own binary).`,
  ];
}
