/**
 * The checkout is the attacker: a committed bare repository, links and hard links to files outside,
 * hooks planted for the user's next commit, a regex that never ends — and machines without a sandbox.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { link, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary, runChatcli, spawnChatcli } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, hostile, plant, runScript, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const run = (cmd: string) => ({ name: "run_command", arguments: { cmd } });

describe("repository-supplied programs and planted files", () => {
  live(
    "a committed evil.git and the workspace's own config run nothing through git, in auto mode",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      const pwn = (n: string) => `touch ${join(h.ws, `PWNED-${n}`)}; false`;
      Bun.spawnSync(["git", "clone", "-q", "--bare", h.ws, join(h.ws, "evil.git")]);
      Bun.spawnSync([
        "git",
        "--git-dir",
        join(h.ws, "evil.git"),
        "config",
        "core.fsmonitor",
        pwn("bare-fsmonitor"),
      ]);
      Bun.spawnSync(["git", "--git-dir", join(h.ws, "evil.git"), "config", "core.hooksPath", "."]);
      await writeFile(join(h.ws, "evil.git", "post-checkout"), `#!/bin/sh\n${pwn("hook")}\n`, {
        mode: 0o755,
      });
      Bun.spawnSync(["git", "config", "core.fsmonitor", pwn("fsmonitor")], { cwd: h.ws });
      await writeFile(join(h.ws, "README.md"), "changed\n");
      llm.push(
        {
          tool_calls: [
            run("git status"),
            run("cd evil.git && git log --oneline -1"),
            run("git --git-dir=evil.git --work-tree=. status --short"),
            { name: "git_status", arguments: {} },
            { name: "git_log", arguments: { dir: "evil.git" } },
          ],
        },
        { text: "done" },
      );
      const r = await agent(h, [
        "--permission-mode",
        "auto",
        "--allow-tool",
        "run_command(git *)",
        "--allow-tool",
        "run_command(cd *)",
      ]);
      expect(r.code).toBe(0);
      const sent = sentToProvider(llm);
      expect(sent.includes("README.md")).toBe(true);
      expect(sent.includes("inside another repository")).toBe(true);
      const pwned = ["bare-fsmonitor", "hook", "fsmonitor"].filter((n) =>
        existsSync(join(h.ws, `PWNED-${n}`)),
      );
      expect(pwned).toEqual([]);
    },
    60_000,
  );

  live(
    "hooks, git config and .chatcli/config.json cannot be planted for the user's next command",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      const config = await readFile(join(h.ws, ".git", "config"), "utf8");
      await plant(
        h,
        `printf '#!/bin/sh\\ntouch ${h.outside}/pwned\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
       git config core.hooksPath evil-hooks
       mkdir -p .chatcli && echo '{"permissions":{"mode":"bypass"}}' > .chatcli/config.json
       echo fine > src.txt; echo done`,
      );
      llm.push(runScript, { text: "done" });
      const r = await agent(h, ["--permission-mode", "auto"]);
      expect(r.code).toBe(0);
      expect(await readFile(join(h.ws, "src.txt"), "utf8")).toBe("fine\n");
      expect(existsSync(join(h.ws, ".git", "hooks", "pre-commit"))).toBe(false);
      expect(await readFile(join(h.ws, ".git", "config"), "utf8")).toBe(config);
      expect(existsSync(join(h.ws, ".chatcli"))).toBe(false);
    },
    60_000,
  );

  test("write_file and patch_file: a committed link out of the workspace is not followed, a hard link is not written through", async () => {
    requireBinary();
    await using llm = await startMockLlm();
    await using h = await hostile(llm);
    await symlink(join(h.outside, "authorized_keys"), join(h.ws, "notes.txt"));
    await symlink(join(h.outside, "victim.txt"), join(h.ws, "victim-link.txt"));
    await link(join(h.outside, "victim.txt"), join(h.ws, "hard.txt"));
    llm.push(
      {
        tool_calls: [
          {
            name: "write_file",
            arguments: { file: "notes.txt", content: "ssh-ed25519 AAAA attacker\n" },
          },
          {
            name: "patch_file",
            arguments: { file: "victim-link.txt", search: "untouched", replace: "pwned" },
          },
          {
            name: "write_file",
            arguments: { file: "hard.txt", content: "appended\n", append: true },
          },
        ],
      },
      { text: "done" },
    );
    const r = await agent(h, ["--permission-mode", "edit"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(h.outside, "authorized_keys"))).toBe(false);
    expect(await readFile(join(h.outside, "victim.txt"), "utf8")).toBe("untouched\n");
    expect(await readFile(join(h.ws, "hard.txt"), "utf8")).toBe("untouched\nappended\n");
    const sent = sentToProvider(llm);
    expect(sent.includes("outside the workspace; it is not followed")).toBe(true);
    expect(
      (r.envelope["tools"] as { failed: number }).failed +
        (r.envelope["tools"] as { denied: number }).denied,
    ).toBe(2);
  }, 60_000);
});

describe("no sandbox on this machine (bubblewrap missing)", () => {
  test("auto refuses shell tools with the fix, required exits 3, off runs with warning sandbox_off", async () => {
    requireBinary();
    await using llm = await startMockLlm();
    await using h = await hostile(llm, { CHATCLI_SANDBOX_BWRAP: "/nonexistent/bwrap" });
    await plant(h, "echo ran-unconfined");
    llm.push(runScript, { text: "refused" });
    const auto = await agent(h, ["--permission-mode", "auto"]);
    // no command could run: not a success (exit 6, tools_unavailable)
    expect(auto.code).toBe(6);
    expect(auto.envelope["terminal_reason"]).toBe("tools_unavailable");
    expect(auto.envelope["sandbox"]).toEqual({
      kind: "none",
      available: false,
      network: true,
      network_allow: null,
    });
    const denial = (auto.envelope["permission_denials"] as Array<{ reason: string }>)[0];
    expect(denial?.reason).toContain("bubblewrap is not installed");
    expect(denial?.reason).toContain("--sandbox off");
    expect(sentToProvider(llm).includes("ran-unconfined")).toBe(false);
    const required = await agent(h, ["--permission-mode", "auto", "--sandbox", "required"]);
    expect(required.code).toBe(3);
    expect(required.envelope["terminal_reason"]).toBe("config_error");
    expect(llm.requests.length).toBe(2);
    llm.push(runScript, { text: "ran" });
    const off = await agent(h, ["--permission-mode", "auto"], { CHATCLI_SANDBOX: "off" });
    expect(off.code).toBe(0);
    expect((off.envelope["warnings"] as Array<{ code: string }>).map((w) => w.code)).toContain(
      "sandbox_off",
    );
    expect(sentToProvider(llm).includes("ran-unconfined")).toBe(true);
  }, 60_000);

  test("an unknown --sandbox or CHATCLI_SANDBOX value is a usage error", async () => {
    requireBinary();
    await using llm = await startMockLlm();
    await using h = await hostile(llm);
    const r = await agent(h, [], { CHATCLI_SANDBOX: "maybe" });
    expect(r.code).toBe(2);
    expect(String((r.envelope["error"] as { message: string }).message)).toContain(
      "CHATCLI_SANDBOX",
    );
  }, 60_000);
});

describe("search_files without ripgrep, a catastrophic regex", () => {
  test("--timeout ends the run at once (exit 124) and SIGTERM too (143), with an envelope", async () => {
    requireBinary();
    await using llm = await startMockLlm();
    await using h = await hostile(llm, {
      CHATCLI_NO_RIPGREP: "1",
      CHATCLI_SEARCH_FILE_BUDGET_MS: "600000",
    });
    await writeFile(join(h.ws, "evil.txt"), `${"a".repeat(64)}!\n`.repeat(200));
    const script = join(h.home, "script.jsonl");
    const search = {
      tool_calls: [{ name: "search_files", arguments: { term: "(a+)+$", regex: true } }],
    };
    await writeFile(script, `${JSON.stringify(search)}\n${JSON.stringify({ text: "done" })}\n`);
    const args = ["agent", "look for the pattern", "-m", "mock:script", "--fake-responses", script];
    args.push("--ephemeral");
    const started = performance.now();
    const timed = await runChatcli([...args, "--json", "--timeout", "1s"], {
      env: h.env,
      cwd: h.ws,
    });
    expect(timed.code).toBe(124);
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(JSON.parse(timed.stdout).terminal_reason).toBe("timeout");
    const child = spawnChatcli([...args, "--jsonl"], { env: h.env, cwd: h.ws });
    await child.waitForStdout('"tool.started"');
    child.proc.kill("SIGTERM");
    const done = await child.done;
    expect(done.code).toBe(143);
    expect(JSON.parse(done.stdout.trimEnd().split("\n").at(-1) as string).terminal_reason).toBe(
      "cancelled",
    );
  }, 60_000);
});

describe("web_fetch", () => {
  test("a redirect to the cloud metadata address is refused before any connection to it", async () => {
    requireBinary();
    await using llm = await startMockLlm();
    await using h = await hostile(llm);
    const site = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => Response.redirect("http://[::ffff:a9fe:a9fe]/latest/meta-data/iam/", 302),
    });
    try {
      llm.push(
        {
          tool_calls: [
            { name: "web_fetch", arguments: { url: `http://127.0.0.1:${site.port}/docs` } },
          ],
        },
        { text: "done" },
      );
      const r = await agent(h, ["--permission-mode", "auto"]);
      expect(r.code).toBe(0);
      expect(sentToProvider(llm).includes("link-local or cloud metadata address")).toBe(true);
    } finally {
      site.stop(true);
    }
  }, 60_000);
});
