import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { listDirectoryTool } from "../../../lib/agent/tools/list-directory.ts";
import { readFileTool } from "../../../lib/agent/tools/read-file.ts";
import { searchFilesTool } from "../../../lib/agent/tools/search-files.ts";
import { writeFileTool } from "../../../lib/agent/tools/write-file.ts";
import { protectedPaths } from "../../../lib/policy/protected-paths.ts";
import { tempDir } from "../../support/ctx.ts";
import { toolCtx, writeTree } from "./support.ts";

const CANARY = "CANARY-IN-CHATCLI-HOME";

describe("chatcli's file tools skip protected paths inside the searched tree", () => {
  for (const rg of [true, false]) {
    test.skipIf(rg && !Bun.which("rg"))(
      `search_files (${rg ? "ripgrep" : "built-in"}) and list_directory do not reach CHATCLI_HOME under the workspace`,
      async () => {
        await using d = await tempDir();
        await writeTree(d.path, {
          "src/a.txt": `${CANARY} is not here but this line is\n`,
          "chome/memory/MEMORY.md": `- ${CANARY}\n`,
          "keys/k.pem": `${CANARY}\n`,
        });
        const env = {
          HOME: join(d.path, "h"),
          CHATCLI_HOME: join(d.path, "chome"),
          PATH: process.env["PATH"] ?? "",
          ...(rg ? {} : { CHATCLI_NO_RIPGREP: "1" }),
        };
        const ctx = toolCtx(d.path, {
          env,
          protectedPaths: protectedPaths(env, { sandbox: { deny_read: [join(d.path, "keys")] } }),
        });
        const found = await searchFilesTool.execute({ term: CANARY }, ctx);
        expect(found.output).toContain("src/a.txt");
        expect(found.output).not.toContain("chome");
        expect(found.output).not.toContain("k.pem");
        const listed = await listDirectoryTool.execute({ dir: "." }, ctx);
        expect(listed.output).toContain("chome/ (protected, not listed)");
        expect(listed.output).not.toContain("MEMORY.md");
        const read = await readFileTool.execute({ file: "chome/memory/MEMORY.md" }, ctx);
        expect(read.isError).toBe(true);
        expect(read.output).toContain("protected path");
        const write = await writeFileTool.execute(
          { file: "chome/memory/MEMORY.md", content: "x" },
          ctx,
        );
        expect(write.isError).toBe(true);
      },
    );
  }
});

describe("read_file of a git config", () => {
  test("actions/checkout's extraheader and a token in a remote URL are blanked; the rest is shown", async () => {
    await using d = await tempDir();
    await writeTree(d.path, {
      ".git/config": [
        "[core]",
        "\tbare = false",
        '[http "https://github.com/"]',
        "\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX1NFQ1JFVA==",
        '[remote "origin"]',
        "\turl = https://x-access-token:ghs_SECRETTOKEN123@github.com/o/r.git",
        "",
      ].join("\n"),
    });
    const r = await readFileTool.execute({ file: ".git/config" }, toolCtx(d.path));
    expect(r.output).toContain("bare = false");
    expect(r.output).toContain("[credential removed by chatcli]");
    expect(r.output).not.toContain("ghs_SECRETTOKEN123");
    expect(r.output).not.toContain("eC1hY2Nlc3MtdG9rZW46");
  });
});
