import { expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { pid } from "node:process";
import { lockHost } from "../../../lib/core/fs.ts";
import { extractAfterRun } from "../../../lib/memory/extract.ts";
import { memFile, memoryHome } from "./support.ts";

test("extraction stuck behind a lock and a queue that cannot be written: says the facts were lost", async () => {
  await using home = await memoryHome();
  await mkdir(memFile(home, ""), { recursive: true });
  await writeFile(memFile(home, "pending"), "a file where the queue directory should be");
  // A live process (this one) holds every store lock: the extraction cannot finish in time.
  for (const name of ["memory_index.json", "chatcli_memory_state.json", "daily"]) {
    await writeFile(memFile(home, `${name}.lock`), `${pid}\n${lockHost()}\n`);
  }
  const parts: string[] = [];
  const r = await extractAfterRun({
    env: home.env,
    now: () => new Date("2026-08-02T12:00:00Z"),
    messages: [
      { role: "user", content: "I'm Ana, an SRE." },
      { role: "assistant", content: "Noted." },
    ],
    llm: [async () => "## LONGTERM\n- [personal] Ana is an SRE"],
    timeoutMs: 50,
    stderr: { write: (t: string) => parts.push(t) },
  });
  expect(r).toEqual({ factsWritten: 0, queued: false, drained: 0 });
  expect(parts.join("")).toContain("memory: this run's facts were lost: could not queue them (");
});
