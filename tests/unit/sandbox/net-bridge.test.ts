/**
 * The network allowlist for real: bubblewrap, chatcli's bridge (main.ts run by Bun, as the file
 * worker's tests do) inside the sandbox's own network namespace, the proxy in this process, and
 * servers on 127.0.0.1 that count what reaches them.
 */
import { describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseNetAllow } from "../../../lib/sandbox/net-hosts.ts";
import { Sandbox } from "../../../lib/sandbox/sandbox.ts";
import { tempDir } from "../../support/ctx.ts";
import { startHitServer } from "../../support/hit-server.ts";
import { processesWith } from "../../support/processes.ts";
import { SANDBOX_MISSING } from "../../support/sandbox.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const SELF = [process.execPath, join(import.meta.dir, "../../../main.ts")];

async function box(
  home: string,
  mode: "read-only" | "edit" | "auto",
  allow: string[],
  denied?: string[],
) {
  const ws = join(home, "ws");
  await mkdir(ws, { recursive: true });
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: home };
  const sb = await Sandbox.create({
    env,
    setting: "required",
    permissionMode: mode,
    workspaceRoot: ws,
    allowNetworkHosts: parseNetAllow(allow, "test"),
    secrets: [{ name: "DEPLOY_TOKEN", value: "tok-0123456789abcdef" }],
    onNetworkDenied: (m) => denied?.push(m),
    selfArgv: SELF,
  });
  const run = (script: string, timeoutMs = 50_000, signal = new AbortController().signal) =>
    sb.run(["sh", "-c", script], {
      cwd: ws,
      env: sb.childEnv(env),
      timeoutMs,
      signal,
      network: true,
    });
  return { sb, ws, run };
}

describe("commands reach only the named hosts (bubblewrap)", () => {
  live(
    "read-only mode: curl, wget, python, git and bun reach a named host; nothing else is reached",
    async () => {
      await using home = await tempDir();
      await using a = await startHitServer("A");
      await using b = await startHitServer("B");
      const denied: string[] = [];
      const { sb, run } = await box(home.path, "read-only", [`127.0.0.1:${a.port}`], denied);
      expect(sb.info).toEqual({
        kind: "bubblewrap",
        available: true,
        network: false,
        network_allow: [`127.0.0.1:${a.port}`],
      });
      const A = `http://127.0.0.1:${a.port}`;
      const r = await run(`
      curl -sS -m 10 ${A}/curl
      curl -sS -m 10 -p ${A}/curl-tunnel
      wget -q -O - ${A}/wget
      python3 -c 'import urllib.request; print(urllib.request.urlopen("${A}/python").read().decode())'
      git ls-remote ${A}/repo.git >/dev/null 2>&1; echo "git=$?"
      ${process.execPath} -e 'console.log(await (await fetch("${A}/bun")).text())'
      curl -sS -m 10 http://127.0.0.1:${b.port}/other; echo "other=$?"
      curl -sS -m 5 --noproxy '*' ${A}/direct; echo "direct=$?"
      node -e 'fetch("${A}/node").then(() => console.log("node=reached"), () => console.log("node=failed"))'
    `);
      expect(r.stdout).toMatch(/hello from A\n(.|\n)*hello from A\n(.|\n)*hello from A/);
      expect(r.stdout.match(/hello from A/g)?.length).toBe(5);
      expect(r.stdout).toContain("not in the network allowlist; to allow it: --allow-network");
      expect(r.stdout).toMatch(/direct=[1-9]/);
      // Node 20's fetch ignores the proxy variables: it has no route at all
      expect(r.stdout).toContain("node=failed");
      expect(a.hits).toEqual([
        "GET /curl",
        "GET /curl-tunnel",
        "GET /wget",
        "GET /python",
        "GET /repo.git/info/refs?service=git-upload-pack",
        "GET /bun",
      ]);
      expect(b.accepted).toBe(0);
      expect(r.network).toContain(`network: allowed 127.0.0.1:${a.port} (6 connections)`);
      expect(r.network?.some((l) => l.startsWith(`network: denied 127.0.0.1:${b.port}`))).toBe(
        true,
      );
      expect(denied).toHaveLength(1);
      expect(denied[0]).toContain(`--allow-network 127.0.0.1:${b.port}`);
      sb.dispose();
    },
    60_000,
  );

  live(
    "20 MB down and 20 MB up through the bridge arrive whole",
    async () => {
      await using home = await tempDir();
      const body = randomBytes(20 * 1024 * 1024);
      await using a = await startHitServer("A", { body });
      const { sb, ws, run } = await box(home.path, "edit", [`127.0.0.1:${a.port}`]);
      await writeFile(join(ws, "up.bin"), body);
      const r = await run(
        `curl -sS -m 60 http://127.0.0.1:${a.port}/down | sha256sum; curl -sS -m 60 -p --data-binary @up.bin -H 'Expect:' http://127.0.0.1:${a.port}/echo | sha256sum`,
        60_000,
      );
      const sum = `${createHash("sha256").update(body).digest("hex")}  -\n`;
      expect(r.stdout).toBe(sum + sum);
      expect(a.hits).toEqual(["GET /down", "POST /echo"]);
      sb.dispose();
    },
    60_000,
  );

  live(
    "a URL carrying a secret is refused and never sent; the proxy says which variable",
    async () => {
      await using home = await tempDir();
      await using a = await startHitServer("A");
      const { sb, run } = await box(home.path, "edit", [`localhost:${a.port}`]);
      const r = await run(
        `curl -sS -m 10 "http://localhost:${a.port}/?k=tok-0123456789abcdef"; curl -sS -m 10 http://localhost:${a.port}/fine`,
      );
      expect(r.stdout).toContain("carries the value of DEPLOY_TOKEN");
      expect(r.stdout).toContain("hello from A");
      expect(a.hits).toEqual(["GET /fine"]);
      expect(JSON.stringify(r.network)).not.toContain("tok-0123456789abcdef");
      sb.dispose();
    },
    60_000,
  );

  live(
    "the bridge and the command's connections end with it: normally, on --timeout, on abort",
    async () => {
      await using home = await tempDir();
      await using held = await startHitServer("held", { hold: true });
      const { sb, run } = await box(home.path, "auto", [`127.0.0.1:${held.port}`]);
      const ok = await run("true # marker-normal-7c1");
      expect(ok.exitCode).toBe(0);
      expect(processesWith("marker-normal-7c1")).toEqual([]);
      const slow = await run(
        `curl -sS http://127.0.0.1:${held.port}/slow # marker-timeout-7c1`,
        6000, // time enough, on a busy machine, for curl to get through before the timeout
      );
      expect(slow.timedOut).toBe(true);
      // on a machine so busy that curl did not get through in 6 s, the timeout still ends it all
      // (the abort case below waits for its request, so the bridge's connection is checked there)
      expect(held.hits.filter((h) => h !== "GET /slow")).toEqual([]);
      await held.until(() => held.open === 0, "the held connection closed");
      expect(processesWith("marker-timeout-7c1")).toEqual([]);
      const stop = new AbortController();
      const aborted = run(
        `curl -sS http://127.0.0.1:${held.port}/abort # marker-abort-7c1`,
        60_000,
        stop.signal,
      );
      await held.until(() => held.hits.includes("GET /abort"), "the second request");
      // while it runs, the bridge is there (so the checks after it can fail)
      expect(processesWith("marker-abort-7c1").some((p) => p.includes("__net-bridge"))).toBe(true);
      stop.abort();
      expect((await aborted).aborted).toBe(true);
      await held.until(() => held.open === 0, "the aborted connection closed");
      expect(processesWith("marker-abort-7c1")).toEqual([]);
      sb.dispose();
    },
    60_000,
  );

  live(
    "exit codes, stdin and stderr pass through the bridge unchanged",
    async () => {
      await using home = await tempDir();
      const { sb, ws } = await box(home.path, "read-only", ["localhost"]);
      const r = await sb.run(["sh", "-c", "read x; echo got=$x; echo err >&2; kill -TERM $$"], {
        cwd: ws,
        env: { PATH: "/usr/bin:/bin" },
        timeoutMs: 20_000,
        signal: new AbortController().signal,
        input: "line\n",
        network: true,
      });
      expect(r.stdout).toBe("got=line\n");
      expect(r.stderr).toBe("err\n");
      expect(r.exitCode).toBe(143);
      // a command that does not ask for the network gets no bridge at all
      const plain = await sb.run(["sh", "-c", "echo ${HTTPS_PROXY:-none}"], {
        cwd: ws,
        env: { PATH: "/usr/bin:/bin" },
        timeoutMs: 20_000,
        signal: new AbortController().signal,
      });
      expect(plain.stdout).toBe("none\n");
      sb.dispose();
    },
    60_000,
  );
});
