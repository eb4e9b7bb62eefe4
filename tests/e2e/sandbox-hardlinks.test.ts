/**
 * Hard links in the workspace (a tar or zip checkout can ship them; git cannot). One to a protected
 * file (~/.ssh/id_rsa) or to a file the hidden HOME holds (~/.m2/settings.xml) is refused by the
 * file tools (with --sandbox off: by inode; in the sandbox /dev/null covers it, for the worker and
 * for a command alike); a pnpm-like node_modules, whose files are hard links into a store
 * under HOME, stays readable for both.
 */
import { describe, expect, test } from "bun:test";
import { link, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, CANARY, type Hostile, hostile, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const PKG = "node_modules/.pnpm/left-pad@1.3.0/node_modules/left-pad/index.js";
const BUN_PKG = "node_modules/is-odd/index.js";

async function linked(h: Hostile, target: string, at: string, content?: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  if (content !== undefined) await writeFile(target, content);
  await mkdir(dirname(join(h.ws, at)), { recursive: true });
  await link(target, join(h.ws, at));
}

async function scene(h: Hostile): Promise<void> {
  await linked(h, join(h.home, ".ssh", "id_rsa"), "hl-ssh");
  await linked(h, join(h.home, ".m2", "settings.xml"), "conf/hl-m2", `<p>${CANARY}-m2</p>\n`);
  // pnpm's content-addressed store and bun's cache, hard-linked into node_modules
  const store = join(h.home, ".local/share/pnpm/store/v3/files/3f/9a1c0d-index.js");
  await linked(h, store, PKG, "module.exports = 'PNPM-STORE-OK';\n");
  const cache = join(h.home, ".bun/install/cache/is-odd@3.0.1@@@1/index.js");
  await linked(h, cache, BUN_PKG, "module.exports = 'BUN-CACHE-OK';\n");
}

const calls = (cat: boolean) => ({
  tool_calls: [
    { name: "read_file", arguments: { file: "hl-ssh" } },
    { name: "read_file", arguments: { file: "conf/hl-m2" } },
    { name: "read_file", arguments: { file: PKG } },
    { name: "read_file", arguments: { file: BUN_PKG } },
    { name: "search_files", arguments: { term: "CANARY", dir: "." } },
    ...(cat
      ? [
          {
            name: "run_command",
            arguments: { cmd: `cat hl-ssh conf/hl-m2 ${PKG} ${BUN_PKG}; echo cat-done` },
          },
        ]
      : []),
  ],
});

describe("hard links to protected files", () => {
  live(
    "refused by read_file, search_files and cat; pnpm and bun store links stay readable",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await scene(h);
      llm.push(calls(true), { text: "done" });
      const r = await agent(h, ["--permission-mode", "edit", "--allow-tool", "run_command(cat *)"]);
      expect(r.code).toBe(0);
      const sent = sentToProvider(llm);
      expect(sent.includes(CANARY)).toBe(false);
      // inside the sandbox /dev/null covers each link before the worker's own refusal is reached
      expect(sent).toContain("error: hl-ssh is not a regular file");
      expect(sent).toContain("error: conf/hl-m2 is not a regular file");
      expect(sent).toContain("cat: hl-ssh: Permission denied");
      // read_file and cat both read the store's files
      expect(sent.match(/PNPM-STORE-OK/g)?.length).toBe(2);
      expect(sent.match(/BUN-CACHE-OK/g)?.length).toBe(2);
      expect(sent).toContain("cat-done");
    },
    120_000,
  );

  live(
    "--sandbox off: the file tools refuse the same links, the store's stay readable",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await scene(h);
      llm.push(calls(false), { text: "done" });
      const r = await agent(h, ["--permission-mode", "edit", "--sandbox", "off"]);
      expect(r.code).toBe(0);
      const sent = sentToProvider(llm);
      expect(sent.includes(CANARY)).toBe(false);
      expect(sent).toContain("hl-ssh is a hard link to a protected file");
      expect(sent).toContain("hl-m2 is a hard link to a protected file");
      expect(sent).toContain("PNPM-STORE-OK");
      expect(sent).toContain("BUN-CACHE-OK");
    },
    120_000,
  );
});
