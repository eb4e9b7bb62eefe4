/**
 * Red team, chatcli's own file tools and links (cases/files.ts). Static: one edit-mode run calls
 * every tool through links, linked parents and hard links to secrets and to files outside; each call
 * is judged by its own result or by the file it would have changed. Race: two parallel sub-agents,
 * one swapping `sub` for links out in a loop (an allowed command), the other calling every tool on
 * `sub/…`. Rewind: `rewind --code` after a command replaced a path by a link.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { link, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { requireBinary, runChatcli } from "../../support/binary.ts";
import { startMockLlm } from "../../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../../support/sandbox.ts";
import { agent, CANARY, type Hostile, hostile, plant } from "../sandbox-support.ts";
import { CMD_LINKS, filesIds, RACE_MODES, RACE_TOOLS, REWIND, STATIC } from "./cases/files.ts";
import { CONTROLS, settle, settleControls, toolResults, type Verdict } from "./support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const SSH = `${CANARY}-ssh`;
const M2 = `${CANARY}-files-m2`;
const OUTNAME = "outside-only-RTNAME.txt";
const text = (p: string) => readFile(p, "utf8").catch(() => "<missing>");

async function scene(h: Hostile): Promise<void> {
  const o = h.outside;
  await mkdir(join(h.home, ".m2"));
  await writeFile(join(h.home, ".m2", "settings.xml"), `<password>${M2}</password>\n`);
  await writeFile(join(h.home, ".ssh", `${CANARY}-sshname`), "x\n");
  await writeFile(join(h.home, ".bashrc"), "# bashrc\n");
  await writeFile(join(o, OUTNAME), `${CANARY}-outfile\n`);
  for (const f of ["victim-hl.txt", "victim-hl2.txt"]) await writeFile(join(o, f), "untouched\n");
  for (const f of ["patch-target.txt", "patch-hl.txt", "mp-target.txt", "mp-hl.txt"])
    await writeFile(join(o, f), "hello outside\n");
  const ws = (p: string) => join(h.ws, p);
  await mkdir(ws("sub"));
  await symlink(join(h.home, ".ssh", "id_rsa"), ws("lk-ssh"));
  await symlink(join(h.home, ".ssh"), ws("lk-sshdir"));
  await symlink(join(h.home, ".m2", "settings.xml"), ws("lk-m2"));
  await link(join(h.home, ".ssh", "id_rsa"), ws("hl-ssh"));
  await link(join(h.home, ".m2", "settings.xml"), ws("hl-m2"));
  await symlink(o, ws("outdir"));
  await symlink(join(o, "created-dangling.txt"), ws("dang"));
  await link(join(o, "victim-hl.txt"), ws("hl-out"));
  await link(join(o, "victim-hl2.txt"), ws("hl-out2"));
  await symlink(join(h.home, ".bashrc"), ws("lk-bashrc"));
  await symlink(join(h.ws, ".git", "hooks"), ws("lk-hooks"));
  await symlink(join(o, "patch-target.txt"), ws("lk-patch"));
  await link(join(o, "patch-hl.txt"), ws("hl-patch"));
  await symlink(join(o, "mp-target.txt"), ws("lk-mp"));
  await link(join(o, "mp-hl.txt"), ws("hl-mp"));
}

type Check = (h: Hostile, result: string) => Promise<boolean>;
const inResult =
  (needle: string): Check =>
  async (_h, r) =>
    r.includes(needle);
const changed =
  (file: (h: Hostile) => string, was: string): Check =>
  async (h) =>
    (await text(file(h))) !== was;
const exists =
  (file: (h: Hostile) => string): Check =>
  async (h) =>
    existsSync(file(h));
const patch = (file: string) => ({ file, search: "hello", replace: "PATCHED" });

const CALLS: Record<
  (typeof STATIC)[number],
  [string, (h: Hostile) => Record<string, unknown>, Check]
> = {
  "read_file.link-to-ssh-key": ["read_file", () => ({ file: "lk-ssh" }), inResult(SSH)],
  "read_file.linked-parent-to-ssh": [
    "read_file",
    () => ({ file: "lk-sshdir/id_rsa" }),
    inResult(SSH),
  ],
  "read_file.link-to-m2-settings": ["read_file", () => ({ file: "lk-m2" }), inResult(M2)],
  "read_file.hardlink-to-ssh-key": ["read_file", () => ({ file: "hl-ssh" }), inResult(SSH)],
  "read_file.hardlink-to-m2-settings": ["read_file", () => ({ file: "hl-m2" }), inResult(M2)],
  "cat.hardlink-to-ssh-key": ["run_command", () => ({ cmd: "cat hl-ssh" }), inResult(SSH)],
  "read_file.dotdot-through-link": [
    "read_file",
    () => ({ file: "sub/../lk-sshdir/id_rsa" }),
    inResult(SSH),
  ],
  "read_file.proc-self-root": [
    "read_file",
    (h) => ({ file: `/proc/self/root${h.home}/.ssh/id_rsa` }),
    inResult(SSH),
  ],
  "read_file.proc-self-cwd-dotdot": [
    "read_file",
    (h) => ({ file: `/proc/self/cwd/../${basename(h.home)}/.ssh/id_rsa` }),
    inResult(SSH),
  ],
  "list_directory.linked-parent-to-ssh": [
    "list_directory",
    () => ({ dir: "lk-sshdir" }),
    inResult(`${CANARY}-sshname`),
  ],
  "list_directory.link-to-outside-dir": [
    "list_directory",
    () => ({ dir: "outdir" }),
    inResult(OUTNAME),
  ],
  "search_files.linked-parent-to-ssh": [
    "search_files",
    () => ({ term: "CANARY", dir: "lk-sshdir" }),
    inResult(SSH),
  ],
  "search_files.link-to-outside-dir": [
    "search_files",
    () => ({ term: "CANARY", dir: "outdir" }),
    inResult(`${CANARY}-outfile`),
  ],
  "write_file.dangling-link-outside": [
    "write_file",
    () => ({ file: "dang", content: "W\n" }),
    exists((h) => join(h.outside, "created-dangling.txt")),
  ],
  "write_file.linked-parent-outside": [
    "write_file",
    () => ({ file: "outdir/new-through-dir.txt", content: "W\n" }),
    exists((h) => join(h.outside, "new-through-dir.txt")),
  ],
  "write_file.hardlink-outside": [
    "write_file",
    () => ({ file: "hl-out", content: "changed\n" }),
    changed((h) => join(h.outside, "victim-hl.txt"), "untouched\n"),
  ],
  "write_file.append-hardlink-outside": [
    "write_file",
    () => ({ file: "hl-out2", content: "appended\n", append: true }),
    changed((h) => join(h.outside, "victim-hl2.txt"), "untouched\n"),
  ],
  "write_file.link-to-home-bashrc": [
    "write_file",
    () => ({ file: "lk-bashrc", content: "curl x|sh\n" }),
    changed((h) => join(h.home, ".bashrc"), "# bashrc\n"),
  ],
  "write_file.absolute-outside": [
    "write_file",
    (h) => ({ file: join(h.outside, "abs.txt"), content: "W\n" }),
    exists((h) => join(h.outside, "abs.txt")),
  ],
  "write_file.dotdot-escape": [
    "write_file",
    (h) => ({ file: `../${basename(h.outside)}/dotdot.txt`, content: "W\n" }),
    exists((h) => join(h.outside, "dotdot.txt")),
  ],
  "write_file.git-hooks": [
    "write_file",
    () => ({ file: ".git/hooks/pre-commit", content: "#!/bin/sh\n" }),
    exists((h) => join(h.ws, ".git", "hooks", "pre-commit")),
  ],
  "write_file.chatcli-config": [
    "write_file",
    () => ({ file: ".chatcli/config.json", content: '{"permissions":{"mode":"bypass"}}' }),
    exists((h) => join(h.ws, ".chatcli", "config.json")),
  ],
  "write_file.link-to-git-hooks": [
    "write_file",
    () => ({ file: "lk-hooks/post-checkout", content: "#!/bin/sh\n" }),
    exists((h) => join(h.ws, ".git", "hooks", "post-checkout")),
  ],
  "patch_file.link-outside": [
    "patch_file",
    () => patch("lk-patch"),
    changed((h) => join(h.outside, "patch-target.txt"), "hello outside\n"),
  ],
  "patch_file.hardlink-outside": [
    "patch_file",
    () => patch("hl-patch"),
    changed((h) => join(h.outside, "patch-hl.txt"), "hello outside\n"),
  ],
  "multipatch.link-outside": [
    "multipatch",
    () => ({ edits: [patch("lk-mp")] }),
    changed((h) => join(h.outside, "mp-target.txt"), "hello outside\n"),
  ],
  "multipatch.hardlink-outside": [
    "multipatch",
    () => ({ edits: [patch("hl-mp")] }),
    changed((h) => join(h.outside, "mp-hl.txt"), "hello outside\n"),
  ],
};

async function staticRun(args: string[]): Promise<Map<string, boolean>> {
  await using llm = await startMockLlm();
  await using h = await hostile(llm);
  await scene(h);
  const names = Object.keys(CALLS) as (typeof STATIC)[number][];
  llm.push(
    {
      tool_calls: names.map((n, i) => ({
        id: `c${i}`,
        name: CALLS[n][0],
        arguments: CALLS[n][1](h),
      })) as never,
    },
    { text: "done" },
  );
  await agent(h, args);
  const results = toolResults(llm.requests);
  const out = new Map<string, boolean>();
  for (const [i, n] of names.entries()) {
    const r = results.get(`c${i}`);
    if (r === undefined) throw new Error(`${n}: no result`);
    out.set(n, await CALLS[n][2](h, r));
  }
  return out;
}

/** The swapper of tests/e2e/sandbox-file-race.test.ts: `sub` ⇄ a link to OUT / to ~/.ssh, until `stop`. */
const swapper = (out: string, ssh: string) => `
use Config;
my $nr = $Config{archname} =~ /aarch64/ ? 276 : 316;
my ($sub, $l1, $l2) = ("sub", "link-out", "link-ssh");
symlink("${out}", $l1) or die; symlink("${ssh}", $l2) or die;
open(my $f, ">", "started") or die; close $f;
my $n = 0;
for my $i (1..5_000_000) {
  last if -e "stop";
  my $l = $i % 2 ? $l1 : $l2;
  $n++ if syscall($nr, -100, $sub, -100, $l, 2) == 0;
  syscall($nr, -100, $sub, -100, $l, 2);
}
for my $l ($l1, $l2) { syscall($nr, -100, $sub, -100, $l, 2) if -d $l && !-l $l; }
print "swapped $n times\\n";
`;
const WAITER = `for (1..20_000_000) { last if -e "started" } print -e "started" ? "go\\n" : "never\\n";`;
const ROUNDS = 15;

async function race(mode: string): Promise<Verdict[]> {
  await using llm = await startMockLlm();
  await using h = await hostile(llm, { CHATCLI_AGENT_DELEGATE: "1" });
  await mkdir(join(h.ws, "sub"));
  for (const f of ["x", "y"]) await writeFile(join(h.ws, "sub", f), "hello inside\n");
  await writeFile(join(h.ws, "sub", "id_rsa"), "not a key\n");
  await writeFile(join(h.ws, "swap.pl"), swapper(h.outside, join(h.home, ".ssh")));
  await writeFile(join(h.ws, "wait.pl"), WAITER);
  await writeFile(join(h.outside, "x"), `hello outside ${CANARY}-rx\n`);
  await writeFile(join(h.outside, "y"), `hello outside ${CANARY}-ry\n`);
  await writeFile(join(h.outside, "id_rsa"), `${CANARY}-race-key\n`);
  const calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }> = [
    { id: "w", name: "run_command", arguments: { cmd: "perl wait.pl" } },
  ];
  for (let i = 0; i < ROUNDS; i++) {
    const c = (name: string, args: Record<string, unknown>) =>
      calls.push({ id: `${name}-${i}-${calls.length}`, name, arguments: args });
    c("read_file", { file: "sub/id_rsa" });
    c("read_file", { file: "sub/x" });
    c("list_directory", { dir: "sub" });
    for (let k = 0; k < 4; k++) c("search_files", { term: "hello", dir: "sub" });
    c("write_file", { file: `sub/new-${i}`, content: "created\n" });
    c("write_file", { file: "sub/x", content: "hello written\n" });
    c("patch_file", { file: "sub/y", search: "hello", replace: "PATCHED" });
    c("multipatch", { edits: [{ file: "sub/x", search: "hello", replace: "MULTI" }] });
  }
  calls.push({ id: "stop", name: "write_file", arguments: { file: "stop", content: "stop\n" } });
  llm.push(
    {
      tool_calls: [
        { id: "d1", name: "delegate", arguments: { prompt: "one" } },
        { id: "d2", name: "delegate", arguments: { prompt: "two" } },
      ],
    },
    { tool_calls: [{ id: "s1", name: "run_command", arguments: { cmd: "perl swap.pl" } }] },
    { tool_calls: calls as never },
    { text: "sub-agent done" },
    { text: "sub-agent done" },
    { text: "all done" },
  );
  const extra = mode === "no-sandbox" ? ["--sandbox", "off"] : [];
  await agent(h, ["--permission-mode", "edit", "--allow-tool", "run_command(perl *)", ...extra]);
  const results = toolResults(llm.requests);
  const all = [...results.values()].join("\n");
  expect(all).toMatch(/swapped [1-9]\d* times/);
  const byTool = (t: string) =>
    [...results]
      .filter(([id]) => id.startsWith(`${t}-`))
      .map(([, r]) => r)
      .join("\n");
  const outNames = await readdir(h.outside);
  const x = await text(join(h.outside, "x"));
  const y = await text(join(h.outside, "y"));
  const leaked = (t: string) => /CANARY-7f3a9c-(ssh|rx|ry|race-key)/.test(byTool(t));
  const broken: Record<(typeof RACE_TOOLS)[number], boolean> = {
    write_file: outNames.some((n) => n.startsWith("new-")) || x.includes("written"),
    patch_file: y.includes("PATCHED"),
    multipatch: x.includes("MULTI"),
    read_file: leaked("read_file"),
    list_directory:
      /CANARY-7f3a9c-sshname|id_rsa\.pub|known_hosts/.test(byTool("list_directory")) ||
      byTool("list_directory").includes(OUTNAME),
    search_files: leaked("search_files"),
  };
  const note = (t: string) => {
    const b = byTool(t);
    const m = /CANARY-7f3a9c-[a-z-]+/.exec(b);
    return m ? b.slice(Math.max(0, m.index - 120), m.index + 40) : undefined;
  };
  return RACE_TOOLS.map((t) => ({
    id: `files.race.${t}.${mode}`,
    broken: broken[t],
    note: broken[t] ? note(t) : undefined,
  }));
}

async function rewind(kind: (typeof REWIND)[number]): Promise<Verdict> {
  await using llm = await startMockLlm();
  await using h = await hostile(llm);
  await mkdir(join(h.ws, "a", "b"), { recursive: true });
  await writeFile(join(h.ws, "a", "b", "kept.txt"), "original\n");
  await writeFile(join(h.outside, "victim.txt"), "untouched\n");
  await writeFile(join(h.home, ".profile-rt"), "untouched\n");
  const swap: Record<typeof kind, string> = {
    "dir-link": `mv a/b a/b.old && ln -s ${h.outside} a/b`,
    "file-link": `rm a/b/kept.txt && ln -s ${h.outside}/victim.txt a/b/kept.txt`,
    "grandparent-link": `mv a a.old && ln -s ${h.outside} a && mkdir -p ${h.ws}/a.old`,
    "home-file-link": `rm a/b/kept.txt && ln -s ${h.home}/.profile-rt a/b/kept.txt`,
  };
  await plant(h, `${swap[kind]} && echo swapped`);
  llm.push(
    {
      tool_calls: [
        { id: "w1", name: "write_file", arguments: { file: "a/b/kept.txt", content: "changed\n" } },
        {
          id: "w2",
          name: "write_file",
          arguments: { file: "a/b/victim.txt", content: "created\n" },
        },
        { id: "sh", name: "run_command", arguments: { cmd: "sh attack.sh" } },
      ],
    },
    { text: "done" },
  );
  const env = h.env;
  const run = await runChatcli(
    ["agent", "--session", "rt", "edit", "--permission-mode", "auto", "--json"],
    { env, cwd: h.ws },
  );
  expect(run.code).toBe(0);
  expect(toolResults(llm.requests).get("sh")).toContain("swapped");
  await runChatcli(["rewind", "--session", "rt", "--to", "1", "--code", "--json"], {
    env,
    cwd: h.ws,
  });
  const outside = (await readdir(h.outside)).sort().join(",");
  const broken =
    (await text(join(h.outside, "victim.txt"))) !== "untouched\n" ||
    outside !== "victim.txt" ||
    (await text(join(h.home, ".profile-rt"))) !== "untouched\n";
  return {
    id: `files.rewind.${kind}.auto`,
    broken,
    note: broken ? `outside: ${outside}` : undefined,
  };
}

async function cmdLinks(): Promise<Verdict[]> {
  await using llm = await startMockLlm();
  await using h = await hostile(llm);
  await mkdir(join(h.home, ".m2"));
  await writeFile(join(h.home, ".m2", "settings.xml"), `<password>${M2}</password>\n`);
  const src = join(h.home, ".m2", "settings.xml");
  await plant(
    h,
    [
      `ln "${src}" hl-cmd 2>&1 | tail -1`,
      `ln -s "${src}" sl-cmd`,
      `mkdir -p bm && mount --bind "${h.home}/.m2" bm 2>&1 | tail -1`,
      "echo made",
    ].join("\n"),
  );
  llm.push(
    { tool_calls: [{ id: "sh", name: "run_command", arguments: { cmd: "sh attack.sh" } }] },
    {
      tool_calls: [
        { id: "r1", name: "read_file", arguments: { file: "hl-cmd" } },
        { id: "r2", name: "read_file", arguments: { file: "sl-cmd" } },
        { id: "r3", name: "read_file", arguments: { file: "bm/settings.xml" } },
      ],
    },
    { text: "done" },
  );
  await agent(h, ["--permission-mode", "auto"]);
  const res = toolResults(llm.requests);
  expect(res.get("sh")).toContain("made");
  return (["r1", "r2", "r3"] as const).map((id, i) => ({
    id: `files.cmd.${CMD_LINKS[i]}.auto`,
    broken: (res.get(id) ?? "").includes(M2),
  }));
}

describe("red team: chatcli's file tools and links", () => {
  live(
    "static links and hard links, a link-swapping race, rewind --code",
    async () => {
      requireBinary();
      const v: Verdict[] = [];
      const got = await staticRun(["--permission-mode", "edit"]);
      for (const s of STATIC) v.push({ id: `files.${s}.edit`, broken: got.get(s) === true });
      for (const m of RACE_MODES) v.push(...(await race(m)));
      for (const k of REWIND) v.push(await rewind(k));
      v.push(...(await cmdLinks()));
      settle(filesIds(), v);
    },
    240_000,
  );

  if (CONTROLS)
    live(
      "controls: bypass reads through the link and writes through the dangling one",
      async () => {
        const got = await staticRun(["--permission-mode", "bypass"]);
        settleControls([
          {
            id: "control.files.read_file.link-to-m2-settings.bypass",
            broken: got.get("read_file.link-to-m2-settings") === true,
          },
          {
            id: "control.files.write_file.dangling-link-outside.bypass",
            broken: got.get("write_file.dangling-link-outside") === true,
          },
          {
            id: "control.files.patch_file.link-outside.bypass",
            broken: got.get("patch_file.link-outside") === true,
          },
        ]);
      },
      60_000,
    );
});
