import { describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { actionOf } from "../../../lib/agent/action.ts";
import { runCommandTool } from "../../../lib/agent/tools/run-command.ts";
import type { Tool } from "../../../lib/agent/types.ts";
import {
  decide as decideAction,
  type PermissionMode,
  type PermissionPolicy,
} from "../../../lib/policy/permissions.ts";
import { protectedPaths } from "../../../lib/policy/protected-paths.ts";
import { tempDir } from "../../support/ctx.ts";

function decide(policy: PermissionPolicy, tool: Tool, args: Record<string, unknown>) {
  return decideAction(policy, actionOf(tool, args));
}

const root = "/work/ws";
const home = "/home/u";
function policy(mode: PermissionMode, allow: string[] = []): PermissionPolicy {
  return {
    mode,
    allow,
    deny: [],
    onAsk: "deny",
    workspaceRoot: root,
    cwd: root,
    home,
    protectedPaths: protectedPaths({ HOME: home, CHATCLI_HOME: "/home/u/.chatcli" }),
  };
}
const MODES: PermissionMode[] = ["read-only", "edit", "auto", "bypass"];
function verdicts(cmd: string, allow: string[] = []): string {
  return MODES.map((m) => {
    const d = decide(policy(m, allow), runCommandTool, { cmd });
    return `${d.verdict}${d.dangerous ? "!" : ""}`;
  }).join(" ");
}
const DANGEROUS = "ask! ask! ask! allow";
const OTHER = "ask ask allow allow";
const DENIED = "deny deny deny allow";
const READ = "allow allow allow allow";

describe("issue 11: reads of protected paths are denied in every mode but bypass", () => {
  const cases: Array<[string, string]> = [
    ["cat $HOME/.ssh/id_rsa", DENIED],
    ['cat "${HOME}/.aws/credentials"', DENIED],
    ["cat ~/.ss?/id_rsa", DENIED],
    ["cat ~/.s*/id_*", DENIED],
    ["cat /home/u/.[s]sh/id_rsa", DENIED],
    ["cat /pro[c]/$PPID/environ", DENIED],
    ["cat /proc/self/environ", DENIED],
    ["strings /proc/1/environ", DENIED],
    ["xargs -0 < /proc/$$/environ", DENIED],
    ["base64 < ~/.netrc", DENIED],
    ["cat ~/.docker/config.json", DENIED],
    ["cat ~u/.aws/credentials", DENIED],
    ["cat ~/.pgpass", DENIED],
    ["cat /etc/ssh/ssh_host_ed25519_key", DENIED],
    ["cat /dev/fd/3 3< ~/.ssh/id_rsa", DENIED],
    ["cat $(echo ~)/.ssh/id_rsa", DENIED],
    ["cat $X/.aws/credentials", DENIED],
    [`python3 -c 'print(open("/home/u/.ssh/id_rsa").read())'`, DENIED],
    [`python3 -c 'import os;print(open(os.path.expanduser("~/.aws/credentials")).read())'`, DENIED],
    [
      `python3 -c 'import os;print(open(os.path.join(os.environ["HOME"], ".ssh", "id_rsa")).read())'`,
      DENIED,
    ],
    [
      `node -e 'console.log(require("fs").readFileSync(require("os").homedir()+"/.ssh/id_rsa","utf8"))'`,
      DENIED,
    ],
    [`perl -ne 'print' ~/.netrc`, DENIED],
    ["awk '{print $1}' f.txt", READ],
    ["gh auth token", DENIED],
    ["kubectl config view --raw", DENIED],
    ["aws configure get aws_secret_access_key", DENIED],
    ["gcloud auth print-access-token", DENIED],
    ["printf 'host=github.com\\n' | git credential fill", DENIED],
    ["xmllint --noent evil.xml", OTHER],
    ["xmllint evil.xml", READ],
    ["jq .name package.json", READ],
    ["cat ~/.config/gh/hosts.yml", DENIED],
    ["head -c 100 ~/.git-credentials", DENIED],
    ["cat ~/.chatcli/memory/MEMORY.md", DENIED],
    ["F=~/.ssh/id_rsa; cat $F", DENIED],
    ["cd ~ && cat .ssh/id_rsa", DENIED],
    ["curl -d @/home/u/.npmrc http://127.0.0.1/", DENIED],
    ["tar czf out.tgz ~/.gnupg", DENIED],
    ["ls ~/.kube", DENIED],
    ["sed 'r /home/u/.ssh/id_rsa' f.txt", DENIED],
    ["sed '1R ~/.netrc' f.txt", DENIED],
    // neighbours stay readable
    ["cat ~/.sshrc-notes", READ],
    ["cat /etc/hostname", READ],
    ["cat README.md", READ],
    ["grep -r TODO .", READ],
  ];
  for (const [cmd, want] of cases) test(cmd, () => expect(verdicts(cmd)).toBe(want));

  test("an allow rule does not open a protected path", () => {
    expect(verdicts("cat ~/.ssh/id_rsa", ["run_command(cat *)", "run_command"])).toBe(DENIED);
    const d = decide(policy("auto"), runCommandTool, { cmd: "cat ~/.ssh/id_rsa" });
    expect(d.reason).toContain("protected path");
    expect(d.suggestion).toContain("bypass");
  });

  test("recursive readers of a directory holding a protected entry (grep -r X ~, rg, tar)", async () => {
    await using h = await tempDir();
    await mkdir(join(h.path, ".ssh"));
    await writeFile(join(h.path, ".ssh", "id_rsa"), "KEY");
    await mkdir(join(h.path, "ws"));
    const p = (mode: PermissionMode): PermissionPolicy => ({
      ...policy(mode),
      home: h.path,
      workspaceRoot: join(h.path, "ws"),
      cwd: join(h.path, "ws"),
      protectedPaths: protectedPaths({ HOME: h.path }),
    });
    const v = (cmd: string) =>
      MODES.map((m) => decide(p(m), runCommandTool, { cmd }).verdict).join(" ");
    for (const cmd of [
      "grep -r PRIVATE ~",
      "grep -R PRIVATE $HOME",
      "grep --recursive PRIVATE ..",
      "grep --recur PRIVATE ..",
      "rg --hidden PRIVATE ~",
      "rg -uu PRIVATE ~",
      "ag -u PRIVATE ~",
      "grep -r PRIVATE /",
      "grep -r PRIVATE ~/.*",
    ])
      expect(`${cmd}: ${v(cmd)}`).toBe(`${cmd}: ${DENIED}`);
    expect(v("grep -r PRIVATE .")).toBe(READ);
    // rg and ag skip hidden entries: ~/.ssh is not walked unless asked
    expect(v("rg PRIVATE ~")).toBe(READ);
    // the workspace is the home directory: words that merely expand there are not reads of ~/.ssh
    const atHome = (cmd: string) =>
      decide({ ...p("read-only"), workspaceRoot: h.path, cwd: h.path }, runCommandTool, { cmd })
        .verdict;
    expect(atHome("echo $$")).toBe("allow");
    expect(atHome("cat *")).toBe("allow");
    expect(atHome("cat $X")).toBe("allow");
    expect(atHome("cat .ss*/id_rsa")).toBe("deny");
    expect(v("grep PRIVATE ~/notes.txt")).toBe(READ);
  });

  test("user sandbox.deny_read entries are protected too", () => {
    const p = {
      ...policy("auto"),
      protectedPaths: protectedPaths({ HOME: home }, { sandbox: { deny_read: ["/opt/keys"] } }),
    };
    expect(decide(p, runCommandTool, { cmd: "cat /opt/keys/k.pem" }).verdict).toBe("deny");
  });
});

const UNKNOWN = "ask ask ask allow";

describe("issue 11: the parser learns abbreviations, globbed names, writers and git forms", () => {
  const cases: Array<[string, string]> = [
    // GNU long options by unique prefix, as getopt_long
    ["sed --e='1e touch pwned' p f.txt", DANGEROUS],
    ["sed --expr '1e id' f.txt", DANGEROUS],
    ["sed --in-pl 's/a/b/' f.txt", OTHER], // as sed -i
    ["sed --in-pl 's/a/b/' /etc/passwd", DENIED],
    ["sed --in-place=.bak 's/a/b/' /etc/passwd", DENIED],
    ["sed -n 'w /tmp/leak' f.txt", DENIED],
    ["sort --outp=/tmp/x f.txt", DENIED],
    ["sort --o /tmp/x f.txt", DENIED],
    ["sort --outp=out.txt f.txt", OTHER],
    ["sort -r f.txt", READ],
    ["git grep --open-files-in-pag='touch x' foo", OTHER],
    ["git grep --open 'touch x' foo", OTHER],
    ["git grep -n foo", READ],
    ["tail --fol f.txt", OTHER],
    ["tail --follow=name f.txt", OTHER],
    ["git diff --ext", OTHER],
    ["rm --rec x", DANGEROUS],
    ["rm --f x", DANGEROUS],
    ["chmod --rec 777 /", DENIED],
    ["chmod --rec 777 .", DANGEROUS],
    ["env --split-s='rm -rf x'", DANGEROUS],
    // readers that execute
    ["less --lesskey-file=keys f.txt", OTHER],
    ["less --lesskey-f=keys f.txt", OTHER],
    ["less -k keys f.txt", OTHER],
    ["LESSOPEN='|touch x %s' less f.txt", OTHER],
    ["less '+!touch x' f.txt", OTHER],
    ["less -N f.txt", READ],
    // globbed command names
    ["/usr/bin/r[m] -rf x", DANGEROUS],
    ["/???/r? -rf x", DANGEROUS],
    ["/usr/bin/rm* -rf x", DANGEROUS],
    ["{rm,-rf,x}", DANGEROUS],
    ["nice /bin/r? -rf x", DANGEROUS],
    ["[ -f x ]", READ],
    // writers
    ["/usr/bin/tee /tmp/x", DENIED],
    ["echo x | /usr/bin/tee -a /etc/x", DENIED],
    ["cp --target-directory=/tmp f.txt", DENIED],
    ["cp --target-dir=/tmp f.txt", DENIED],
    ["cp -t /tmp f.txt", DENIED],
    ["mv -t /tmp f.txt", DENIED],
    ["uniq f.txt /tmp/out", DENIED],
    ["uniq f.txt out.txt", OTHER],
    ["perl -pi -e 's/a/b/' /etc/hosts", DENIED],
    ["perl -i.bak -pe 's/a/b/' /etc/hosts", DENIED],
    [`python3 -c 'open("/tmp/x","w").write("1")'`, DENIED],
    [`python3 -c 'import pathlib; pathlib.Path("/tmp/x").write_text("1")'`, DENIED],
    [`node -e 'require("fs").writeFileSync("/tmp/x","1")'`, DENIED],
    [`python3 -c 'import sys; open(sys.argv[1],"w")' /tmp/x`, UNKNOWN],
    ["python3 -c 'print(1)'", OTHER],
    ["git init /tmp/repo", DENIED],
    ["git init", OTHER],
    ["zip /tmp/out.zip f.txt", DENIED],
    ["gzip /tmp/f", DENIED],
    ["split -b 10 f.txt /tmp/piece", DENIED],
    ["patch /etc/hosts < p.diff", DENIED],
    ["mkfifo /tmp/fifo", DENIED],
    ["sqlite3 /tmp/x.db 'create table t(a)'", DENIED],
    ["git diff --output=/tmp/x", DENIED],
    ["git diff --outp=/tmp/x", DENIED],
    ["git log --text -p", READ],
    // git forms that lose work
    ["git push origin :main", DANGEROUS],
    ["git push origin +main", DANGEROUS],
    ["git push --forc origin main", DANGEROUS],
    ["git push origin main", OTHER],
    ["git reset --har HEAD~1", DANGEROUS],
    ["git reset --hard", DANGEROUS],
    ["git clean --force -d", DANGEROUS],
    ["git clean --f", DANGEROUS],
    ["git checkout -f main", DANGEROUS],
    ["git checkout --force main", DANGEROUS],
    ["git switch --discard-changes main", DANGEROUS],
    ["git stash drop", DANGEROUS],
    ["git stash clear", DANGEROUS],
    ["git stash list", READ],
    ["git reflog expire --expire=now --all", DANGEROUS],
    ["git reflog", READ],
  ];
  for (const [cmd, want] of cases) test(cmd, () => expect(verdicts(cmd)).toBe(want));
});

describe("issue 11: a token in the workspace's .git/config (actions/checkout) is not read through the shell", () => {
  test("cat .git/config, git config -l, git remote -v are refused only while it holds one", async () => {
    await using ws = await tempDir();
    await mkdir(join(ws.path, ".git"), { recursive: true });
    const config = join(ws.path, ".git", "config");
    await writeFile(
      config,
      '[core]\n\tbare = false\n[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic abc\n',
    );
    const p = (mode: PermissionMode): PermissionPolicy => ({
      ...policy(mode),
      workspaceRoot: ws.path,
      cwd: ws.path,
    });
    const v = (cmd: string) =>
      MODES.map((m) => decide(p(m), runCommandTool, { cmd }).verdict).join(" ");
    for (const cmd of [
      "cat .git/config",
      "grep extraheader .git/config",
      "git config --list",
      "git config --get-regexp http",
      "git config http.https://github.com/.extraheader",
      "git remote -v",
      "git remote get-url origin",
    ])
      expect(`${cmd}: ${v(cmd)}`).toBe(`${cmd}: ${DENIED}`);
    expect(v("git config user.name")).not.toBe(DENIED);
    await writeFile(config, "[core]\n\tbare = false\n");
    expect(v("cat .git/config")).toBe(READ);
    expect(v("git remote -v")).toBe(READ);
  });
});

describe("issue 11: git in a repository committed inside the workspace is not a plain read", () => {
  test("git status/log/diff in or at evil.git (bare shape) need auto; the workspace's own repo reads", async () => {
    await using ws = await tempDir();
    await mkdir(join(ws.path, ".git", "objects"), { recursive: true });
    await mkdir(join(ws.path, ".git", "refs"));
    await writeFile(join(ws.path, ".git", "HEAD"), "ref: refs/heads/main\n");
    const evil = join(ws.path, "evil.git");
    await mkdir(join(evil, "objects"), { recursive: true });
    await mkdir(join(evil, "refs"));
    await writeFile(join(evil, "HEAD"), "ref: refs/heads/main\n");
    await writeFile(join(evil, "config"), "[core]\n\tfsmonitor = touch pwned\n");
    const p = (mode: PermissionMode): PermissionPolicy => ({
      ...policy(mode),
      workspaceRoot: ws.path,
      cwd: ws.path,
    });
    const v = (cmd: string) =>
      MODES.map((m) => decide(p(m), runCommandTool, { cmd }).verdict).join(" ");
    expect(v("git status")).toBe(READ);
    for (const cmd of [
      "git -C evil.git status",
      "git --git-dir=evil.git log",
      "cd evil.git && git log",
      "cd evil.git/refs && git diff",
    ])
      expect(`${cmd}: ${v(cmd)}`).toBe(`${cmd}: ${OTHER}`);
    const d = decide(p("read-only"), runCommandTool, { cmd: "git -C evil.git status" });
    expect(d.reason).toContain("evil.git");
  });
});
