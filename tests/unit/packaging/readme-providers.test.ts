import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { providerMarkdownTable } from "../../../lib/llm/provider-list.ts";

const ROOT = join(import.meta.dir, "../../..");

test("the README's provider table is the one lib/llm's provider table renders", async () => {
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  expect(readme).toContain(`${providerMarkdownTable()}\n`);
});
