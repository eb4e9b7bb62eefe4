/** HOME by allowlist: what the plan shows of HOME, in bubblewrap's argv and Seatbelt's profile. */
import { describe, expect, test } from "bun:test";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { liftedByAllowRead } from "../../../lib/policy/protected-paths.ts";
import { type BwrapPlan, bwrapArgv } from "../../../lib/sandbox/bwrap.ts";
import { gitConfigSecrets } from "../../../lib/sandbox/deny.ts";
import {
  allowReadHint,
  hiddenInHome,
  homeCandidates,
  homeView,
  toolchainSecrets,
} from "../../../lib/sandbox/home.ts";
import { Layout } from "../../../lib/sandbox/layout.ts";
import { Sandbox } from "../../../lib/sandbox/sandbox.ts";
import { seatbeltProfile } from "../../../lib/sandbox/seatbelt.ts";
import { readRefusal } from "../../../lib/sandbox/walk.ts";
import { tempDir } from "../../support/ctx.ts";
import { SANDBOX_MISSING } from "../../support/sandbox.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);

describe("the candidates shown in HOME", () => {
  const env = {
    HOME: "/home/u",
    PATH: "/home/u/.local/bin:/home/u:/usr/bin:/home/u/.nvm/versions/node/v20/bin",
    CARGO_HOME: "/home/u/rust/cargo",
    GOROOT: "/home/u",
    JAVA_HOME: "/opt/jdk",
  };
  const c = homeCandidates({
    env,
    allowRead: ["/home/u/.pypirc", "/etc/x"],
    needed: ["/home/u/p"],
  });

  test("the toolchain set, not the credentials beside it", () => {
    for (const p of [".cargo/bin", ".cargo/registry", ".rustup", "go/pkg/mod", ".m2/repository"])
      expect(c).toContain(`/home/u/${p}`);
    for (const p of [".cargo", ".cargo/credentials.toml", ".m2", ".gradle", ".npmrc", ".config"])
      expect(c).not.toContain(`/home/u/${p}`);
  });

  test("env-named toolchain dirs by their parts (CARGO_HOME's bin, not its credentials); one naming HOME itself is dropped", () => {
    expect(c).toContain("/home/u/rust/cargo/bin");
    expect(c).not.toContain("/home/u/rust/cargo");
    expect(c).not.toContain("/home/u");
    expect(c).not.toContain("/opt/jdk"); // outside HOME: visible as it is
  });

  test("PATH entries, the workspace and the user's --allow-read under HOME", () => {
    expect(c).toContain("/home/u/.nvm/versions/node/v20/bin");
    expect(c).toContain("/home/u/p");
    expect(c).toContain("/home/u/.pypirc");
    expect(c).not.toContain("/etc/x");
  });
});

describe("the view of a real HOME", () => {
  test("binds from the real path at the logical one, python dirs only from ~/.local/lib, nothing when the workspace is HOME", async () => {
    await using home = await tempDir();
    await using elsewhere = await tempDir();
    const h = home.path;
    await mkdir(join(h, ".cargo", "bin"), { recursive: true });
    await writeFile(join(h, ".cargo", "credentials.toml"), "token\n");
    await mkdir(join(h, ".local", "lib", "python3.12"), { recursive: true });
    await mkdir(join(h, ".local", "lib", "secrets"), { recursive: true });
    await symlink(elsewhere.path, join(h, ".nix-profile"));
    await mkdir(join(h, "proj"));
    const env = { HOME: h, PATH: "/usr/bin" };
    const view = homeView({
      env,
      allowRead: [],
      needed: [join(h, "proj")],
      workspace: join(h, "proj"),
    });
    if (!view) throw new Error("no view");
    const dests = view.binds.map((b) => b.dest);
    expect(dests).toContain(join(h, ".cargo", "bin"));
    expect(dests).toContain(join(h, ".local", "lib", "python3.12"));
    expect(dests).not.toContain(join(h, ".local", "lib", "secrets"));
    expect(dests).toContain(join(h, "proj"));
    expect(view.binds.find((b) => b.dest === join(h, ".nix-profile"))?.src).toBe(elsewhere.path);
    expect(hiddenInHome(view, join(h, ".cargo", "credentials.toml"))).toBe(true);
    expect(hiddenInHome(view, join(h, ".local", "lib", "secrets", "x"))).toBe(true);
    expect(hiddenInHome(view, join(h, ".cargo"))).toBe(false); // on the way to ~/.cargo/bin
    expect(hiddenInHome(view, h)).toBe(false);
    expect(hiddenInHome(view, join(h, "proj", "src", "a.ts"))).toBe(false);
    expect(hiddenInHome(view, "/etc/passwd")).toBe(false);
    expect(homeView({ env, allowRead: [], needed: [h], workspace: h })).toBeUndefined();
    // HOME=/ or /tmp (some CI images), or a HOME that does not exist: nothing is hidden
    for (const HOME of ["/", "/tmp", join(h, "missing")])
      expect(
        homeView({ env: { HOME }, allowRead: [], needed: [], workspace: join(h, "proj") }),
      ).toBeUndefined();
  });

  test("a file tool's refusal of a hidden path names --allow-read", () => {
    const guard = {
      workspace: "/w",
      workspaceReal: "/w",
      bypass: false,
      denied: [],
      patterns: [],
      home: { homes: ["/home/u"], visible: ["/home/u/.cargo/bin"] },
    };
    expect(readRefusal(guard, "/home/u/.s3cfg")).toContain("pass --allow-read /home/u/.s3cfg");
    expect(readRefusal(guard, "/home/u/.cargo/bin/cargo")).toBeUndefined();
    expect(allowReadHint("/home/u/.s3cfg", { HOME: "/home/u" })).toContain("--allow-read ~/.s3cfg");
  });
});

describe("--allow-read and the deny list", () => {
  const env = { HOME: "/home/u", CHATCLI_HOME: "/home/u/.chatcli" };
  const denied = [
    "/home/u/.pypirc",
    "/home/u/.ssh",
    "/home/u/.config/gh",
    "/home/u/.chatcli",
    "/etc/shadow",
  ];
  test("an entry is opened by naming it or something inside it; not by naming a directory above it; CHATCLI_HOME and paths outside HOME never", () => {
    expect(liftedByAllowRead(denied, ["/home/u/.pypirc"], env)).not.toContain("/home/u/.pypirc");
    expect(liftedByAllowRead(denied, ["/home/u/.ssh/known_hosts"], env)).not.toContain(
      "/home/u/.ssh",
    );
    expect(liftedByAllowRead(denied, ["/home/u/.config"], env)).toContain("/home/u/.config/gh");
    expect(liftedByAllowRead(denied, ["/home/u/.chatcli", "/home/u/.chatcli/x"], env)).toContain(
      "/home/u/.chatcli",
    );
    expect(liftedByAllowRead(denied, ["/etc/shadow"], env)).toContain("/etc/shadow");
    // named inside, but also a directory above: the store stays denied
    expect(liftedByAllowRead(denied, ["/home/u", "/home/u/.ssh/known_hosts"], env)).toContain(
      "/home/u/.ssh",
    );
  });
});

describe("the plan's text", () => {
  const plan = (over: Partial<BwrapPlan> = {}): BwrapPlan => ({
    bwrap: "/usr/bin/bwrap",
    privateTmp: "/tmp/chatcli-sandbox-x",
    writable: ["/home/u/p"],
    pinned: [],
    protectedPaths: ["/home/u/p/.git"],
    protectedMissingDirs: [],
    deniedDirs: [],
    deniedFiles: ["/home/u/.cargo/bin/credentials"],
    reexpose: [],
    keepUnderRun: [],
    network: false,
    cwd: "/home/u/p",
    seccomp: false,
    homeTmpfs: "/home/u",
    homeBinds: [
      { src: "/home/u/.cargo/bin", dest: "/home/u/.cargo/bin" },
      { src: "/home/u/p", dest: "/home/u/p" },
    ],
    ...over,
  });

  test("bubblewrap: HOME's tmpfs after the root, the binds into it, then the workspace writable and the protected and denied paths over it", () => {
    const a = bwrapArgv(plan(), ["true"]);
    const at = (...seq: string[]) => a.findIndex((_, i) => seq.every((s, k) => a[i + k] === s));
    const tmpfs = at("--tmpfs", "/home/u");
    expect(tmpfs).toBeGreaterThan(at("--bind", "/tmp/chatcli-sandbox-x", "/tmp"));
    expect(at("--ro-bind-try", "/home/u/.cargo/bin", "/home/u/.cargo/bin")).toBeGreaterThan(tmpfs);
    expect(at("--ro-bind-try", "/home/u/p", "/home/u/p")).toBeGreaterThan(tmpfs);
    expect(at("--bind", "/home/u/p", "/home/u/p")).toBeGreaterThan(
      at("--ro-bind-try", "/home/u/p", "/home/u/p"),
    );
    expect(at("--ro-bind", "/home/u/p/.git", "/home/u/p/.git")).toBeGreaterThan(
      at("--bind", "/home/u/p", "/home/u/p"),
    );
    expect(at("--ro-bind", "/dev/null", "/home/u/.cargo/bin/credentials")).toBeGreaterThan(tmpfs);
    expect(bwrapArgv(plan({ homeTmpfs: undefined, homeBinds: [] }), ["true"])).not.toContain(
      "/home/u/.cargo/bin",
    );
  });

  test("Seatbelt: no read under HOME but the visible paths (and the temp dir and workspace); the way to them answers metadata only; the deny list still last", () => {
    const profile = seatbeltProfile({
      privateTmp: "/private/var/folders/x/T/chatcli-sandbox-1/tmp",
      writable: ["/Users/u/p"],
      protectedPaths: ["/Users/u/p/.git"],
      denied: ["/Users/u/.ssh"],
      network: false,
      home: { roots: ["/Users/u"], visible: ["/Users/u/.cargo/bin", "/Users/u/.gitconfig"] },
    });
    const lines = profile.split("\n");
    const idx = (needle: string) => lines.findIndex((l) => l.includes(needle));
    const denyHome = idx('(deny file-read* (subpath "/Users/u"))');
    expect(denyHome).toBeGreaterThan(idx("(allow file-read*)"));
    const meta = lines[idx("(allow file-read-metadata")] as string;
    expect(meta).toContain('(literal "/Users/u")');
    expect(meta).toContain('(literal "/Users/u/.cargo")');
    expect(meta).not.toContain('(literal "/Users/u/.cargo/bin")');
    const allow = idx('(allow file-read* (subpath "/Users/u/.cargo/bin")');
    expect(allow).toBeGreaterThan(denyHome);
    expect(lines[allow]).toContain('(subpath "/Users/u/.gitconfig")');
    expect(lines[allow]).toContain('(subpath "/Users/u/p")');
    expect(lines[allow]).not.toContain("/private/var"); // outside HOME: readable anyway
    expect(idx('(deny file-read* (subpath "/Users/u/.ssh"))')).toBeGreaterThan(allow);
    const none = seatbeltProfile({
      privateTmp: "/t",
      writable: [],
      protectedPaths: [],
      denied: [],
      network: false,
    });
    expect(none).not.toContain("file-read-metadata");
  });
});

describe("credentials inside a shown toolchain dir", () => {
  live(
    "an nvm prefix's global npmrc and a virtualenv's pip.conf stay hidden while the toolchain runs",
    async () => {
      await using home = await tempDir();
      await using ws = await tempDir();
      const h = home.path;
      const prefix = join(h, ".nvm", "versions", "node", "v1");
      await mkdir(join(prefix, "bin"), { recursive: true });
      await mkdir(join(prefix, "etc"));
      await writeFile(
        join(prefix, "etc", "npmrc"),
        "//registry.npmjs.org/:_authToken=NPMRC-CANARY\n",
      );
      await writeFile(join(prefix, "bin", "tool"), "#!/bin/sh\necho nvm-tool-ok\n", {
        mode: 0o755,
      });
      const venv = join(h, "venvs", "a");
      await mkdir(venv, { recursive: true });
      await writeFile(join(venv, "pip.conf"), "[global]\nindex-url = https://u:PIP-CANARY@x/\n");
      const env = {
        PATH: `${join(prefix, "bin")}:${process.env["PATH"] ?? "/usr/bin:/bin"}`,
        HOME: h,
        CHATCLI_HOME: join(h, ".chatcli"),
        VIRTUAL_ENV: venv,
      };
      const secrets = toolchainSecrets(env);
      for (const p of [
        join(prefix, "etc", "npmrc"),
        join(venv, "pip.conf"),
        join(venv, ".condarc"),
      ])
        expect(secrets).toContain(p);
      const sb = await Sandbox.create({
        env,
        setting: "required",
        permissionMode: "read-only",
        workspaceRoot: ws.path,
      });
      const r = await sb.run(
        ["sh", "-c", `tool; cat ${prefix}/etc/npmrc ${venv}/pip.conf 2>&1; ls ${venv}`],
        {
          cwd: ws.path,
          env: sb.childEnv(env),
          timeoutMs: 20_000,
          signal: new AbortController().signal,
        },
      );
      sb.dispose();
      expect(r.stdout).toContain("nvm-tool-ok");
      expect(r.stdout).not.toContain("CANARY");
    },
  );
});

describe("the cwd of a wrapped process", () => {
  test("a cwd swapped for a link to a directory under /tmp does not re-expose the link's target", async () => {
    await using ws = await tempDir();
    await using outside = await tempDir();
    await using home = await tempDir();
    await symlink(outside.path, join(ws.path, "sub"));
    const layout = new Layout({
      env: { HOME: home.path, PATH: "/usr/bin:/bin" },
      workspaceRoot: ws.path,
      detected: { kind: "bubblewrap", program: "/usr/bin/bwrap" },
      denied: [],
      network: false,
      allowUnixSockets: true,
      allowGitWrites: false,
    });
    const w = layout.wrap(["true"], join(ws.path, "sub"), {}, [ws.path]);
    layout.dispose();
    const i = w.argv.indexOf("--chdir");
    expect(w.argv.slice(0, i)).not.toContain(outside.path);
  });
});

describe("the user's git config view", () => {
  test("an inline credential helper and sendemail's smtpPass are blanked too; a plain helper name is kept", () => {
    const text =
      '[credential]\n\thelper = "!f() { echo password=GITCFG-CANARY; }; f"\n[credential "https://x"]\n\thelper = osxkeychain\n[sendemail]\n\tsmtpPass = SMTP-CANARY\n[user]\n\tname = U\n';
    const found = gitConfigSecrets(text);
    expect(found?.masked).not.toContain("CANARY");
    expect(found?.masked).toContain("helper = osxkeychain");
    expect(found?.masked).toContain("name = U");
  });
});
