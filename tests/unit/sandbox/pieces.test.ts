import { describe, expect, test } from "bun:test";
import {
  type BwrapPlan,
  bwrapArgv,
  splitLoaderEnv,
  toolDirsUnderEmptied,
} from "../../../lib/sandbox/bwrap.ts";
import { deniedReadPaths, isProcEnviron } from "../../../lib/sandbox/deny.ts";
import {
  GIT_SAFE_CONFIG,
  gitSafeArgs,
  gitSafeEnv,
  scrubEnv,
  withoutFileInjected,
} from "../../../lib/sandbox/env.ts";
import { sbplString, seatbeltProfile } from "../../../lib/sandbox/seatbelt.ts";
import { sandboxFilter } from "../../../lib/sandbox/seccomp.ts";

const plan = (over: Partial<BwrapPlan> = {}): BwrapPlan => ({
  bwrap: "/usr/bin/bwrap",
  privateTmp: "/tmp/chatcli-sandbox-x",
  writable: ["/w"],
  pinned: ["/w/.git"],
  protectedPaths: ["/w/.git/hooks", "/w/.git/config"],
  protectedMissingDirs: ["/w/.chatcli"],
  deniedDirs: ["/home/u/.ssh"],
  deniedFiles: ["/home/u/.netrc"],
  reexpose: [],
  keepUnderRun: [],
  network: false,
  cwd: "/w",
  seccomp: true,
  ...over,
});

describe("bubblewrap argv", () => {
  test("every namespace, no capabilities, the whole tree dies with chatcli, a new session", () => {
    const a = bwrapArgv(plan(), ["sh", "-c", "ls"]);
    for (const flag of [
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--die-with-parent",
      "--new-session",
    ])
      expect(a).toContain(flag);
    expect(a.slice(a.indexOf("--cap-drop"), a.indexOf("--cap-drop") + 2)).toEqual([
      "--cap-drop",
      "ALL",
    ]);
    expect(a).not.toContain("--share-net");
    expect(a.slice(-4)).toEqual(["--", "sh", "-c", "ls"]);
    expect(a.slice(a.indexOf("--seccomp"), a.indexOf("--seccomp") + 2)).toEqual(["--seccomp", "3"]);
  });

  test("mount order: the root read-only first, the workspace writable, then protected and denied paths over it", () => {
    const a = bwrapArgv(plan(), ["true"]);
    const at = (...seq: string[]) => a.findIndex((_, i) => seq.every((s, k) => a[i + k] === s));
    expect(at("--ro-bind", "/", "/")).toBeGreaterThan(0);
    expect(at("--proc", "/proc")).toBeGreaterThan(at("--ro-bind", "/", "/"));
    expect(at("--bind", "/tmp/chatcli-sandbox-x", "/tmp")).toBeGreaterThan(
      at("--ro-bind", "/", "/"),
    );
    const ws = at("--bind", "/w", "/w");
    expect(ws).toBeGreaterThan(at("--bind", "/tmp/chatcli-sandbox-x", "/tmp"));
    expect(at("--ro-bind", "/w/.git/hooks", "/w/.git/hooks")).toBeGreaterThan(ws);
    expect(at("--tmpfs", "/w/.chatcli", "--remount-ro", "/w/.chatcli")).toBeGreaterThan(ws);
    expect(at("--tmpfs", "/home/u/.ssh", "--remount-ro", "/home/u/.ssh")).toBeGreaterThan(ws);
    expect(at("--ro-bind", "/dev/null", "/home/u/.netrc")).toBeGreaterThan(ws);
    expect(at("--tmpfs", "/run")).toBeGreaterThan(0);
  });

  test("network on (auto + --allow-network) keeps the host's network namespace", () => {
    expect(bwrapArgv(plan({ network: true }), ["true"])).toContain("--share-net");
  });
});

describe("Seatbelt profile (macOS)", () => {
  const profile = seatbeltProfile({
    privateTmp: "/private/var/folders/x/T/chatcli-sandbox-1",
    writable: ["/Users/u/proj"],
    protectedPaths: ["/Users/u/proj/.git/hooks", "/Users/u/proj/.chatcli"],
    denied: ["/Users/u/.ssh", "/Users/u/.aws"],
    network: false,
  });

  test("denies by default, then allows reads and writes only to the temp dir and the workspace", () => {
    const lines = profile.trim().split("\n");
    expect(lines[0]).toBe("(version 1)");
    expect(lines[1]).toBe("(deny default)");
    expect(profile).toContain("(allow file-read*)");
    expect(profile).toContain(
      '(allow file-write* (subpath "/private/var/folders/x/T/chatcli-sandbox-1") (subpath "/Users/u/proj"))',
    );
  });

  test("protected and credential paths are denied after the allows (the last matching rule wins)", () => {
    const allowWrite = profile.indexOf('(allow file-write* (subpath "/private');
    const denyHooks = profile.indexOf('(deny file-write* (subpath "/Users/u/proj/.git/hooks")');
    const denyRead = profile.indexOf(
      '(deny file-read* (subpath "/Users/u/.ssh") (subpath "/Users/u/.aws"))',
    );
    expect(denyHooks).toBeGreaterThan(allowWrite);
    expect(denyRead).toBeGreaterThan(profile.indexOf("(allow file-read*)"));
    expect(profile.trim().endsWith("(deny network*)")).toBe(true);
    // the keychain is reached over mach services, not files
    expect(
      profile.indexOf('(deny mach-lookup (global-name "com.apple.SecurityServer")'),
    ).toBeGreaterThan(profile.indexOf("(allow mach-lookup)"));
  });

  test("network on allows it; quotes and backslashes in paths cannot end the string", () => {
    expect(
      seatbeltProfile({
        privateTmp: "/t",
        writable: [],
        protectedPaths: [],
        denied: [],
        network: true,
      }),
    ).toContain("(allow network*)");
    expect(sbplString('/Users/u/a"b\\c')).toBe('"/Users/u/a\\"b\\\\c"');
    const evil = seatbeltProfile({
      privateTmp: "/t",
      writable: ['/w") (allow file-write* (subpath "/'],
      protectedPaths: [],
      denied: [],
      network: false,
    });
    expect(evil).not.toContain('(allow file-write* (subpath "/"))');
  });
});

describe("seccomp program", () => {
  test("x64 and arm64: whole 8-byte instructions, first loads the arch, ends with allow and EPERM", () => {
    for (const arch of ["x64", "arm64"]) {
      const prog = sandboxFilter(arch) as Uint8Array;
      expect(prog.length % 8).toBe(0);
      const view = new DataView(prog.buffer);
      expect(view.getUint16(0, true)).toBe(0x20);
      expect(view.getUint32(4, true)).toBe(4);
      const n = prog.length / 8;
      expect(view.getUint32((n - 2) * 8 + 4, true)).toBe(0x7fff0000);
      expect(view.getUint32((n - 1) * 8 + 4, true)).toBe(0x00050001);
    }
    expect(sandboxFilter("mips")).toBeUndefined();
  });

  /** Runs the classic-BPF program the kernel would run on one syscall (the few opcodes it uses). */
  function verdict(prog: Uint8Array, audit: number, nr: number, arg0 = 0): "allow" | "EPERM" {
    const view = new DataView(prog.buffer, prog.byteOffset, prog.byteLength);
    const data = [nr, audit, 0, 0, arg0];
    let acc = 0;
    for (let pc = 0; pc < prog.length / 8; pc++) {
      const code = view.getUint16(pc * 8, true);
      const jt = view.getUint8(pc * 8 + 2);
      const jf = view.getUint8(pc * 8 + 3);
      const k = view.getUint32(pc * 8 + 4, true);
      if (code === 0x20) acc = data[k / 4] as number;
      else if (code === 0x15) pc += acc === k ? jt : jf;
      else if (code === 0x35) pc += acc >>> 0 >= k ? jt : jf;
      else if (code === 0x06) return k === 0x7fff0000 ? "allow" : "EPERM";
      else throw new Error(`unexpected opcode ${code}`);
    }
    throw new Error("fell off the program");
  }

  test("keyctl, add_key and request_key are refused in every personality; sockets as before", () => {
    const cases = [
      { arch: "x64", audit: 0xc000003e, keyring: [248, 249, 250], socket: 41, read: 0 },
      { arch: "x64", audit: 0x40000003, keyring: [286, 287, 288], socket: 359, read: 3 },
      { arch: "arm64", audit: 0xc00000b7, keyring: [217, 218, 219], socket: 198, read: 63 },
      { arch: "arm64", audit: 0x40000028, keyring: [309, 310, 311], socket: 281, read: 3 },
    ];
    for (const c of cases) {
      const prog = sandboxFilter(c.arch) as Uint8Array;
      for (const nr of c.keyring) expect(verdict(prog, c.audit, nr)).toBe("EPERM");
      expect(verdict(prog, c.audit, c.read)).toBe("allow");
      expect(verdict(prog, c.audit, c.socket, 1)).toBe("EPERM"); // AF_UNIX
      expect(verdict(prog, c.audit, c.socket, 2)).toBe("allow"); // AF_INET (the netns has none)
    }
    // x32 keyctl (250 | 0x40000000) shares the x86-64 audit arch: refused with the rest of x32
    expect(verdict(sandboxFilter("x64") as Uint8Array, 0xc000003e, 250 | 0x40000000)).toBe("EPERM");
  });
});

describe("child environment", () => {
  test("secrets by name, by value and agent sockets are removed; --pass-env keeps a name", () => {
    const env = {
      PATH: "/usr/bin",
      HOME: "/home/u",
      OPENAI_API_KEY: "sk-x",
      GITHUB_TOKEN: "ghp_x",
      AWS_ACCESS_KEY_ID: "AKIA",
      AWS_REGION: "eu-west-1",
      MY_PASSWORD: "p",
      DATABASE_URL: "postgres://app:hunter2@db/app",
      HARMLESS_URL: "https://example.com/x",
      LOOKS_INNOCENT: "sk-ant-api03-abcdefghijklmnopqrstu",
      SSH_AUTH_SOCK: "/tmp/ssh-x/agent.1",
      GIT_AUTHOR_NAME: "Ann",
      CHATCLI_HOME: "/home/u/.chatcli",
      NPM_TOKEN: "t",
    };
    const out = scrubEnv(env);
    expect(Object.keys(out).sort()).toEqual(["GIT_AUTHOR_NAME", "HARMLESS_URL", "HOME", "PATH"]);
    expect(scrubEnv(env, ["NPM_TOKEN"])["NPM_TOKEN"]).toBe("t");
  });

  test("git overrides ride in GIT_CONFIG_COUNT after the user's own entries", () => {
    const out = gitSafeEnv({
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "user.name",
      GIT_CONFIG_VALUE_0: "A",
    });
    expect(out["GIT_CONFIG_KEY_0"]).toBe("user.name");
    expect(out["GIT_CONFIG_COUNT"]).toBe(String(1 + GIT_SAFE_CONFIG.length));
    expect(out["GIT_CONFIG_KEY_1"]).toBe("core.fsmonitor");
    expect(out["GIT_CONFIG_NOSYSTEM"]).toBe("1");
    expect(gitSafeArgs()).toContain("core.hooksPath=/dev/null");
    expect(gitSafeArgs()).toContain("safe.bareRepository=explicit");
  });
});

describe("denied reads", () => {
  test("credential stores under HOME, CHATCLI_HOME and the user's deny_read; /proc/*/environ", () => {
    const paths = deniedReadPaths({ HOME: "/home/u", CHATCLI_HOME: "/data/chatcli" }, [
      "~/secrets",
      "/etc/app.key",
      "relative/ignored",
    ]);
    for (const p of [
      "/home/u/.ssh",
      "/home/u/.docker/config.json",
      "/home/u/.config/gh",
      "/data/chatcli",
      "/home/u/secrets",
      "/etc/app.key",
    ])
      expect(paths).toContain(p);
    expect(paths.some((p) => p.includes("relative"))).toBe(false);
    expect(isProcEnviron("/proc/1/environ")).toBe(true);
    expect(isProcEnviron("/proc/self/task/12/environ")).toBe(true);
    expect(isProcEnviron("/proc/1/status")).toBe(false);
  });

  test("files the environment names as credentials; never the workspace, HOME or / themselves", () => {
    const paths = deniedReadPaths(
      {
        HOME: "/home/u",
        CHATCLI_DOTENV: "~/keys/chatcli.env",
        GOOGLE_APPLICATION_CREDENTIALS: "/work/ws/gha-creds-1.json",
        KUBECONFIG: "/etc/kube/a:/etc/kube/b",
        DOCKER_CONFIG: "/work",
        CLOUDSDK_CONFIG: "/home",
        GNUPGHOME: "/",
      },
      [],
      ["/work/ws"],
    );
    for (const p of [
      "/home/u/keys/chatcli.env",
      "/work/ws/gha-creds-1.json",
      "/etc/kube/a",
      "/etc/kube/b",
    ])
      expect(paths).toContain(p);
    for (const p of ["/work", "/home", "/"]) expect(paths).not.toContain(p);
  });
});

describe("loader variables", () => {
  test("LD_*, GLIBC_TUNABLES … are kept from bwrap and set for the command with --setenv", () => {
    const { host, inside } = splitLoaderEnv({
      PATH: "/usr/bin",
      LD_PRELOAD: "./evil.so",
      LD_LIBRARY_PATH: "/x",
      GLIBC_TUNABLES: "glibc.malloc.check=3",
      OLD_VALUE: "kept",
    });
    expect(host).toEqual({ PATH: "/usr/bin", OLD_VALUE: "kept" });
    expect(inside.map(([k]) => k).sort()).toEqual([
      "GLIBC_TUNABLES",
      "LD_LIBRARY_PATH",
      "LD_PRELOAD",
    ]);
  });
});

describe("variables a file sets", () => {
  test("code-injecting names keep the process env's value only; the rest pass", () => {
    const out = withoutFileInjected(
      {
        PATH: "/ws/bin:/usr/bin",
        LD_PRELOAD: "/ws/evil.so",
        BUN_OPTIONS: "--preload /ws/evil.js",
        GIT_DIR: "/ws/evil.git",
        LD_LIBRARY_PATH: "/opt/lib",
        PROJECT_FLAG: "1",
      },
      { PATH: "/usr/bin", LD_LIBRARY_PATH: "/opt/lib" },
    );
    expect(out).toEqual({ PATH: "/usr/bin", LD_LIBRARY_PATH: "/opt/lib", PROJECT_FLAG: "1" });
  });
});

test("PATH entries under /tmp (a project cloned there, its node_modules/.bin) are re-exposed read-only", () => {
  const real = (p: string) => (p === "/tmp/link" ? "/tmp/proj/node_modules/.bin" : p);
  expect(
    toolDirsUnderEmptied("/usr/bin:/tmp/link:/tmp/go/bin:/tmp:relative/bin:/home/u/bin", real),
  ).toEqual(["/tmp/proj/node_modules/.bin", "/tmp/proj/node_modules", "/tmp/go/bin"]);
});
