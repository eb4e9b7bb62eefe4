/**
 * Credentials a checkout leaves in git's config — actions/checkout's `extraheader`, a token URL —
 * are not only in `.git/config`: `config.worktree`, each submodule's `.git/modules/<name>/config`
 * (names with slashes too) and git's XDG credential store `~/.config/git/credentials`. None of them
 * reaches the provider through a sandboxed command or chatcli's read_file.
 */
import { describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, hostile, plant, runScript, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const TOKENS = {
  worktree: "ghs_WorktreeExtraheaderTok0123456789",
  sub: "ghp_SubmoduleRemoteToken0123456789ab",
  nested: "glpat-NestedSubmoduleTok0123",
  xdg: "ghp_XdgCredentialStore0123456789abcd",
};

async function plantCredentials(ws: string, home: string) {
  const git = join(ws, ".git");
  const b64 = Buffer.from(`x-access-token:${TOKENS.worktree}`).toString("base64");
  await writeFile(
    join(git, "config.worktree"),
    `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${b64}\n\textraheader = AUTHORIZATION: basic ${TOKENS.worktree}\n`,
  );
  await mkdir(join(git, "modules", "sub"), { recursive: true });
  await writeFile(
    join(git, "modules", "sub", "config"),
    `[remote "origin"]\n\turl = https://x-access-token:${TOKENS.sub}@github.com/o/sub.git\n`,
  );
  await mkdir(join(git, "modules", "libs", "foo"), { recursive: true });
  await writeFile(
    join(git, "modules", "libs", "foo", "config"),
    `[http]\n\textraheader = PRIVATE-TOKEN: ${TOKENS.nested}\n`,
  );
  await mkdir(join(home, ".config", "git"), { recursive: true });
  await writeFile(
    join(home, ".config", "git", "credentials"),
    `https://u:${TOKENS.xdg}@github.com\n`,
  );
}

describe("sandbox: git config credentials beyond .git/config", () => {
  live(
    "cat of config.worktree, submodule configs and ~/.config/git/credentials shows no token",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await plantCredentials(h.ws, h.home);
      await plant(
        h,
        "cat .git/config.worktree .git/modules/sub/config .git/modules/libs/foo/config; cat ~/.config/git/credentials; echo END",
      );
      for (const mode of [
        ["--allow-tool", "run_command(sh attack.sh)"],
        ["--permission-mode", "auto"],
      ]) {
        llm.requests.length = 0;
        llm.push(runScript, { text: "done" });
        const r = await agent(h, mode);
        expect(r.code).toBe(0);
        const sent = sentToProvider(llm);
        expect(sent).toContain("END");
        expect(sent).toContain("[removed by chatcli's sandbox]");
        for (const token of Object.values(TOKENS)) expect(sent).not.toContain(token);
        expect(sent).not.toContain(
          Buffer.from(`x-access-token:${TOKENS.worktree}`).toString("base64"),
        );
      }
    },
    60_000,
  );

  live(
    "read_file refuses a submodule's config that holds a token",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await plantCredentials(h.ws, h.home);
      llm.push(
        {
          tool_calls: [
            { name: "read_file", arguments: { file: ".git/modules/sub/config" } },
            { name: "read_file", arguments: { file: ".git/config.worktree" } },
            { name: "read_file", arguments: { file: `${h.home}/.config/git/credentials` } },
          ],
        },
        { text: "done" },
      );
      const r = await agent(h, []);
      expect(r.code).toBe(0);
      const sent = sentToProvider(llm);
      for (const token of Object.values(TOKENS)) expect(sent).not.toContain(token);
    },
    60_000,
  );
});
