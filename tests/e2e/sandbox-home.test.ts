/**
 * Red team: credential stores in HOME that no deny list names. The sandbox's HOME is an empty tmpfs
 * in which only the workspace, the toolchain set, the user's git config (masked) and the paths the
 * user allows (`--allow-read`, `sandbox.allow_read`) are visible: `cat ~/.s3cfg` from a command and
 * chatcli's own read_file / search_files / list_directory find nothing there, in every mode but bypass.
 */
import { describe, expect, test } from "bun:test";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, CANARY, type Hostile, hostile, plant, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);

/** Stores of real tools; the first ones are on no deny list at all. */
const STORES = [
  ".m2/settings.xml",
  ".gradle/gradle.properties",
  ".config/rclone/rclone.conf",
  ".s3cfg",
  ".boto",
  ".bash_history",
  ".mozilla/firefox/abc.default/logins.json",
  ".config/google-chrome/Default/Login Data",
  ".config/anytool/token",
  ".config/pypoetry/auth.toml",
  ".local/share/uv/credentials/credentials.toml",
  ".bunfig.toml",
  ".cargo/config.toml",
  // listed ones, hidden by the same rule
  ".pypirc",
  ".vault-token",
  ".cargo/credentials.toml",
  ".pgpass",
];

/** The tool results the provider was sent (not the calls, which name the paths). */
function toolResults(llm: { requests: Array<{ body: unknown }> }): string {
  const out: string[] = [];
  for (const r of llm.requests) {
    const messages = (r.body as { messages?: Array<{ role: string; content: unknown }> }).messages;
    for (const m of messages ?? []) if (m.role === "tool") out.push(String(m.content));
  }
  return out.join("\n\u0000");
}

const tag = (rel: string) => `${CANARY}-${rel.replace(/[^a-z0-9]/gi, "_")}`;

async function plantStores(h: Hostile): Promise<void> {
  for (const rel of STORES) {
    const p = join(h.home, rel);
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, `secret = ${tag(rel)}\n`);
  }
}

const catAll = `for f in ${STORES.map((s) => `"$HOME/${s}"`).join(" ")}; do cat "$f" 2>/dev/null; done; ls -a "$HOME"; grep -r secret "$HOME" 2>/dev/null; echo end-of-attack`;

describe("red team: HOME by allowlist", () => {
  live(
    "unlisted stores in HOME reach neither a command nor read_file / search_files / list_directory, in read-only, edit and auto",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await plantStores(h);
      await plant(h, catAll);
      for (const mode of ["read-only", "edit", "auto"]) {
        llm.push(
          {
            tool_calls: [
              { name: "run_command", arguments: { cmd: "sh attack.sh" } },
              ...STORES.map((rel) => ({ name: "read_file", arguments: { file: `~/${rel}` } })),
              { name: "search_files", arguments: { term: "secret", dir: "~" } },
              { name: "search_files", arguments: { term: "secret", dir: "~/.config" } },
              { name: "list_directory", arguments: { dir: "~/.config" } },
            ],
          },
          { text: "done" },
        );
        const r = await agent(h, [
          "--permission-mode",
          mode,
          "--allow-tool",
          "run_command(sh attack.sh)",
        ]);
        expect(r.code).toBe(0);
      }
      const sent = sentToProvider(llm);
      expect(sent.match(/end-of-attack/g)?.length).toBe(3);
      expect(sent.includes(CANARY)).toBe(false);
      // the refusal names the flag that opens a path
      expect(sent).toContain("pass --allow-read ~/.s3cfg");
      // `ls -a ~` and `grep -r ~` inside found an empty HOME
      const outputs = toolResults(llm)
        .split("\n\u0000")
        .filter((t) => t.startsWith("exit code"));
      expect(outputs.length).toBe(3);
      for (const o of outputs) expect(o).toBe("exit code: 0\n.\n..\nend-of-attack");
    },
    120_000,
  );

  live(
    "--allow-read ~/.pypirc makes exactly that file readable; sandbox.allow_read in the user's config does the same; a workspace's is ignored with untrusted_workspace_setting",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await plantStores(h);
      await plant(h, `${catAll.replace("; echo end-of-attack", "")}; echo end-of-attack`);
      const calls = {
        tool_calls: [
          { name: "run_command", arguments: { cmd: "sh attack.sh" } },
          { name: "read_file", arguments: { file: "~/.pypirc" } },
          { name: "read_file", arguments: { file: "~/.s3cfg" } },
        ],
      };
      llm.push(calls, { text: "done" });
      const flag = await agent(h, [
        "--allow-tool",
        "run_command(sh attack.sh)",
        "--allow-read",
        "~/.pypirc",
      ]);
      expect(flag.code).toBe(0);
      let sent = sentToProvider(llm);
      // the command and read_file: two copies of the one named file, nothing else
      // cat, grep -r and read_file saw the one named file; nothing else
      expect(sent.match(new RegExp(tag(".pypirc"), "g"))?.length).toBe(3);
      expect(sent.replaceAll(tag(".pypirc"), "").includes(CANARY)).toBe(false);

      // the user's config
      await writeFile(
        join(h.home, ".chatcli", "config.json"),
        JSON.stringify({ sandbox: { allow_read: ["~/.s3cfg"] } }),
      );
      llm.requests.length = 0;
      llm.push(calls, { text: "done" });
      const user = await agent(h, ["--allow-tool", "run_command(sh attack.sh)"]);
      expect(user.code).toBe(0);
      sent = sentToProvider(llm);
      expect(sent.match(new RegExp(tag(".s3cfg"), "g"))?.length).toBe(3);
      expect(toolResults(llm)).toContain("pass --allow-read ~/.pypirc");
      expect(sent.replaceAll(tag(".s3cfg"), "").includes(CANARY)).toBe(false);

      // an untrusted workspace's config: ignored, with the warning
      await writeFile(join(h.home, ".chatcli", "config.json"), "{}");
      await mkdir(join(h.ws, ".chatcli"), { recursive: true });
      await writeFile(
        join(h.ws, ".chatcli", "config.json"),
        JSON.stringify({ sandbox: { allow_read: ["~/.pypirc", "~/.s3cfg"] } }),
      );
      llm.requests.length = 0;
      llm.push(calls, { text: "done" });
      const ws = await agent(h, ["--allow-tool", "run_command(sh attack.sh)"]);
      expect(ws.code).toBe(0);
      expect(sentToProvider(llm).includes(CANARY)).toBe(false);
      const warnings = ws.envelope["warnings"] as Array<{ code: string; message: string }>;
      expect(
        warnings.some(
          (w) =>
            w.code === "untrusted_workspace_setting" && w.message.includes("sandbox.allow_read"),
        ),
      ).toBe(true);
    },
    120_000,
  );

  live(
    "a workspace under HOME works (read, and write in edit); the toolchain set is visible (~/.cargo/bin/tool runs) but ~/.cargo/credentials.toml is not",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await plantStores(h);
      const ws = join(h.home, "src", "proj");
      await mkdir(ws, { recursive: true });
      await writeFile(join(ws, "README.md"), "inside home\n");
      Bun.spawnSync(["git", "init", "-q"], { cwd: ws });
      await mkdir(join(h.home, ".cargo", "bin"), { recursive: true });
      const tool = join(h.home, ".cargo", "bin", "faketool");
      await writeFile(tool, "#!/bin/sh\necho faketool-ran-ok\n");
      await chmod(tool, 0o755);
      await writeFile(
        join(ws, "attack.sh"),
        `cat README.md; faketool; echo made > out.txt; cat ~/.cargo/credentials.toml ~/.s3cfg 2>&1 | grep -c secret; ls ~/.cargo; echo end-of-attack\n`,
      );
      llm.push(
        {
          tool_calls: [
            { name: "run_command", arguments: { cmd: "sh attack.sh" } },
            { name: "read_file", arguments: { file: "README.md" } },
            { name: "write_file", arguments: { file: "notes.md", content: "written\n" } },
            { name: "read_file", arguments: { file: "~/.cargo/credentials.toml" } },
          ],
        },
        { text: "done" },
      );
      const r = await agent(
        { ...h, ws },
        ["--permission-mode", "edit", "--allow-tool", "run_command(sh attack.sh)"],
        { PATH: `${join(h.home, ".cargo", "bin")}:${h.env["PATH"]}` },
      );
      expect(r.code).toBe(0);
      const sent = sentToProvider(llm);
      expect(sent).toContain("end-of-attack");
      expect(sent).toContain("inside home");
      expect(sent).toContain("faketool-ran-ok");
      expect(sent.includes(CANARY)).toBe(false);
      expect(sent).not.toContain("credentials.toml\\n"); // not listed by `ls ~/.cargo`
      expect(await readFile(join(ws, "out.txt"), "utf8")).toBe("made\n");
      expect(await readFile(join(ws, "notes.md"), "utf8")).toBe("written\n");
    },
    60_000,
  );

  live(
    "node, npm and git work with the empty HOME: the user's git config is seen (credentials blanked), npm ci installs offline",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await writeFile(
        join(h.home, ".gitconfig"),
        `[user]\n\tname = Home User\n\temail = home@example.com\n[http]\n\textraheader = AUTHORIZATION: basic ${CANARY}-gitcfg\n`,
      );
      await writeFile(
        join(h.ws, "package.json"),
        JSON.stringify({
          name: "p",
          version: "1.0.0",
          scripts: { hi: "node -e \"console.log('npm-run-ok')\"" },
        }),
      );
      await writeFile(
        join(h.ws, "package-lock.json"),
        JSON.stringify({
          name: "p",
          version: "1.0.0",
          lockfileVersion: 3,
          requires: true,
          packages: { "": { name: "p", version: "1.0.0" } },
        }),
      );
      await plant(
        h,
        [
          `node -e "console.log('node-ok', require('os').homedir() === process.env.HOME)"`,
          "npm ci --offline --no-audit --no-fund >/dev/null 2>&1 && echo npm-ci-ok",
          "npm run -s hi",
          "git config user.name",
          "git config http.extraheader",
          "git status --short | head -3",
          "git log --oneline | wc -l",
          "echo end-of-attack",
        ].join("\n"),
      );
      llm.push(
        { tool_calls: [{ name: "run_command", arguments: { cmd: "sh attack.sh" } }] },
        { text: "done" },
      );
      const r = await agent(h, [
        "--permission-mode",
        "edit",
        "--allow-tool",
        "run_command(sh attack.sh)",
      ]);
      expect(r.code).toBe(0);
      const sent = sentToProvider(llm);
      expect(sent).toContain("end-of-attack");
      expect(sent).toContain("node-ok true");
      expect(sent).toContain("npm-ci-ok");
      expect(sent).toContain("npm-run-ok");
      expect(sent).toContain("Home User");
      expect(sent).toContain("removed by chatcli's sandbox");
      expect(sent.includes(CANARY)).toBe(false);
    },
    60_000,
  );
});
