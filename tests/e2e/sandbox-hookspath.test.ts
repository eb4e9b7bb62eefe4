/**
 * Red team: git hooks through core.hooksPath (husky). With `core.hooksPath = .husky/_`, git runs
 * `.husky/_/<hook>`, whose stub runs `.husky/<hook>`: a command that writes `.husky/pre-commit` in
 * edit mode leaves code for the user's next `git commit`, outside the sandbox. That directory and
 * its parent stay read-only in edit and auto, with or without --allow-git-writes.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, hostile, plant, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);

/** husky v9's layout: `.husky/_/h` runs `.husky/<hook>` for each stub `.husky/_/<hook>`. */
async function husky(ws: string): Promise<void> {
  await mkdir(join(ws, ".husky", "_"), { recursive: true });
  const h = join(ws, ".husky", "_", "h");
  await writeFile(
    h,
    '#!/bin/sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ -f "$s" ] || exit 0\nsh -e "$s"\n',
  );
  const stub = join(ws, ".husky", "_", "pre-commit");
  await writeFile(stub, '#!/bin/sh\n. "$(dirname "$0")/h"\n');
  await chmod(h, 0o755);
  await chmod(stub, 0o755);
  Bun.spawnSync(["git", "config", "core.hooksPath", ".husky/_"], { cwd: ws });
}

const git = (ws: string, ...args: string[]) =>
  Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: ws });

describe("red team: core.hooksPath in the workspace", () => {
  live(
    "edit and auto (with --allow-git-writes too): .husky/pre-commit and .husky/_ cannot be written; the user's next git commit runs nothing planted",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await husky(h.ws);
      const canary = join(h.outside, "hook-ran");
      await plant(
        h,
        [
          `printf 'touch ${canary}\\n' > .husky/pre-commit; echo "hook=$?"`,
          `printf '#!/bin/sh\\ntouch ${canary}\\n' > .husky/_/pre-commit; echo "stub=$?"`,
          `mkdir -p .husky/_/x 2>/dev/null; echo "mkdir=$?"`,
          "echo end-of-attack",
        ].join("\n"),
      );
      const runs: Array<[string, string[]]> = [
        ["edit", []],
        ["edit", ["--allow-git-writes"]],
        ["auto", []],
      ];
      for (const [mode, extra] of runs) {
        llm.push(
          {
            tool_calls: [
              { name: "run_command", arguments: { cmd: "sh attack.sh" } },
              {
                name: "write_file",
                arguments: { file: ".husky/pre-commit", content: `touch ${canary}\n` },
              },
            ],
          },
          { text: "done" },
        );
        const r = await agent(h, [
          "--permission-mode",
          mode,
          "--allow-tool",
          "run_command(sh attack.sh)",
          ...extra,
        ]);
        expect(r.code).toBe(0);
      }
      const sent = sentToProvider(llm);
      expect(sent.match(/end-of-attack/g)?.length).toBe(3);
      expect(sent).not.toMatch(/hook=0|stub=0|mkdir=0/);
      expect(sent).toContain("Read-only file system");
      expect(sent).toContain(".husky/pre-commit: read-only in this run's sandbox");
      expect(existsSync(join(h.ws, ".husky", "pre-commit"))).toBe(false);
      // the user's own commit, outside the sandbox: nothing planted runs
      await writeFile(join(h.ws, "change.txt"), "x\n");
      git(h.ws, "add", "change.txt");
      expect(git(h.ws, "commit", "-qm", "after the run").exitCode).toBe(0);
      expect(existsSync(canary)).toBe(false);
      // and the chain is real: the user's own .husky/pre-commit does run on commit
      await writeFile(join(h.ws, ".husky", "pre-commit"), `touch ${canary}\n`);
      await writeFile(join(h.ws, "change.txt"), "y\n");
      git(h.ws, "add", "change.txt");
      git(h.ws, "commit", "-qm", "user's hook");
      expect(existsSync(canary)).toBe(true);
    },
    90_000,
  );
});
