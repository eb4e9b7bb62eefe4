/**
 * Red team, credential files: every store in cases/home.ts gets its own canary; one read-only run
 * tries them all through a committed script, read_file, search_files, list_directory and committed
 * links, one auto run through the script. A case is broken when its canary is in the tool result the
 * provider got for it. A plain file in a HOME directory the user names (`--allow-read`) must be readable
 * every way (else the probe is blind).
 */
import { describe, expect, test } from "bun:test";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { requireBinary } from "../../support/binary.ts";
import { startMockLlm } from "../../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../../support/sandbox.ts";
import { agent, CANARY, type Hostile, hostile, plant } from "../sandbox-support.ts";
import {
  DIR_METHODS,
  FILE_METHODS,
  homeIds,
  NAMED,
  NAMED_METHODS,
  STORES,
  storeSlug,
} from "./cases/home.ts";
import {
  CONTROLS,
  sections,
  settle,
  settleControls,
  toolResults,
  type Verdict,
} from "./support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const mark = (i: number) => `${CANARY}-H${i}Z`;
const namedMark = (i: number) => `${CANARY}-N${i}Z`;
const VISIBLE = `${CANARY}-VISIBLE-plain`;
const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

async function scene(h: Hostile): Promise<Record<string, string>> {
  for (const [i, [p, dir]] of STORES.entries()) {
    const path = join(h.home, p);
    if (dir) {
      await mkdir(path, { recursive: true });
      await writeFile(join(path, `${mark(i)}.secret`), `${mark(i)}\n`);
    } else {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, `token = ${mark(i)}\n`);
    }
    await mkdir(join(h.ws, "links"), { recursive: true });
    await symlink(path, join(h.ws, "links", storeSlug(p)));
  }
  const env: Record<string, string> = {};
  for (const [i, [name, rel]] of NAMED.entries()) {
    await mkdir(join(h.home, dirname(rel)), { recursive: true });
    await writeFile(join(h.home, rel), `secret=${namedMark(i)}\n`);
    env[name] = join(h.home, rel);
  }
  await mkdir(join(h.home, "notes"), { recursive: true });
  await writeFile(join(h.home, "notes", "plain.txt"), `${VISIBLE}\n`);
  return env;
}

function script(h: Hostile, mode: string): string {
  const lines = ['cd "$(dirname "$0")"'];
  const sec = (id: string, cmd: string) =>
    lines.push(`echo "@@case ${id}"`, `${cmd} 2>&1 | head -c 160; echo`);
  for (const [p, dir] of STORES) {
    const id = `home.${storeSlug(p)}.cat.${mode}`;
    sec(id, dir ? `cat ${q(join(h.home, p))}/*` : `cat ${q(join(h.home, p))}`);
    if (mode === "readonly" && !dir)
      sec(`home.${storeSlug(p)}.link.cat.readonly`, `cat links/${storeSlug(p)}`);
  }
  for (const [name] of NAMED)
    sec(`home.env-named.${name.toLowerCase()}.cat.${mode}`, `cat "$${name}"`);
  sec("home.etc-shadow.cat.readonly", "cat /etc/shadow");
  sec("probe.visible", `cat ${q(join(h.home, "notes", "plain.txt"))}`);
  lines.push('echo "@@case end"');
  return lines.join("\n");
}

interface Call {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

function fileCalls(h: Hostile): Call[] {
  const calls: Call[] = [];
  for (const [i, [p, dir]] of STORES.entries()) {
    const s = storeSlug(p);
    if (dir)
      calls.push({ id: `c-ld-${i}`, name: "list_directory", arguments: { dir: join(h.home, p) } });
    else {
      calls.push({ id: `c-rf-${i}`, name: "read_file", arguments: { file: join(h.home, p) } });
      calls.push({ id: `c-lk-${i}`, name: "read_file", arguments: { file: `links/${s}` } });
      const glob = basename(p);
      const dirOf = join(h.home, dirname(p));
      calls.push({
        id: `c-sf-${i}`,
        name: "search_files",
        arguments: { term: "Z", dir: dirOf, glob },
      });
    }
  }
  for (const [i, [name]] of NAMED.entries())
    calls.push({ id: `c-nm-${i}`, name: "read_file", arguments: { file: h.env[name] ?? name } });
  calls.push({
    id: "c-search-visible",
    name: "search_files",
    arguments: { term: "VISIBLE", dir: h.home, glob: "plain.txt" },
  });
  calls.push({ id: "c-shadow", name: "read_file", arguments: { file: "/etc/shadow" } });
  calls.push({
    id: "c-visible",
    name: "read_file",
    arguments: { file: join(h.home, "notes", "plain.txt") },
  });
  return calls;
}

const SHADOW = /^root:[^:\n]*:\d*:/m;

async function attack(args: string[], mode: string) {
  requireBinary();
  await using llm = await startMockLlm();
  await using h = await hostile(llm);
  Object.assign(h.env, await scene(h));
  await plant(h, script(h, mode));
  llm.push({
    tool_calls: [{ id: "c-sh", name: "run_command", arguments: { cmd: "sh attack.sh" } }],
  });
  if (mode === "readonly") llm.push({ tool_calls: fileCalls(h) as never });
  llm.push({ text: "done" });
  // the probe's own directory is one the user names (HOME is otherwise empty in the sandbox)
  const r = await agent(h, [
    ...args,
    "--allow-tool",
    "run_command(sh attack.sh)",
    "--allow-read",
    join(h.home, "notes"),
  ]);
  const results = toolResults(llm.requests);
  const sh = sections(results.get("c-sh") ?? "");
  // the probe is not blind: the plain file in HOME came through, and the script ran to its end
  expect(sh.get("probe.visible")).toContain(VISIBLE);
  expect(sh.has("end")).toBe(true);
  if (mode === "readonly") {
    expect(results.get("c-visible")).toContain(VISIBLE);
    expect(results.get("c-search-visible")).toContain(VISIBLE);
  }
  return { r, results, sh };
}

function judge(text: string | undefined, needle: string | RegExp, id: string): Verdict {
  if (text === undefined) throw new Error(`${id}: no result reached the provider`);
  const hit = typeof needle === "string" ? text.includes(needle) : needle.test(text);
  return { id, broken: hit, note: hit ? text.slice(0, 160) : undefined };
}

describe("red team: credential files", () => {
  live(
    "every store, every way in: read-only and auto",
    async () => {
      const verdicts: Verdict[] = [];
      for (const mode of ["readonly", "auto"]) {
        const perm = mode === "readonly" ? "read-only" : "auto";
        const { results, sh } = await attack(["--permission-mode", perm], mode);
        for (const [i, [p, dir]] of STORES.entries()) {
          const s = storeSlug(p);
          const id = (m: string) => `home.${s}.${m}`;
          verdicts.push(judge(sh.get(id(`cat.${mode}`)), mark(i), id(`cat.${mode}`)));
          if (mode !== "readonly") continue;
          if (dir) {
            const m = DIR_METHODS[0];
            verdicts.push(judge(results.get(`c-ld-${i}`), mark(i), id(m)));
            continue;
          }
          const [, , rf, search, lrf, lcat] = FILE_METHODS;
          verdicts.push(judge(results.get(`c-rf-${i}`), mark(i), id(rf)));
          verdicts.push(judge(results.get(`c-sf-${i}`), mark(i), id(search)));
          verdicts.push(judge(results.get(`c-lk-${i}`), mark(i), id(lrf)));
          verdicts.push(judge(sh.get(id(lcat)), mark(i), id(lcat)));
        }
        for (const [i, [name]] of NAMED.entries()) {
          const id = (m: string) => `home.env-named.${name.toLowerCase()}.${m}`;
          verdicts.push(judge(sh.get(id(`cat.${mode}`)), namedMark(i), id(`cat.${mode}`)));
          if (mode === "readonly")
            verdicts.push(
              judge(results.get(`c-nm-${i}`), namedMark(i), id(NAMED_METHODS[1] as string)),
            );
        }
        if (mode === "readonly") {
          verdicts.push(
            judge(sh.get("home.etc-shadow.cat.readonly"), SHADOW, "home.etc-shadow.cat.readonly"),
          );
          verdicts.push(
            judge(results.get("c-shadow"), SHADOW, "home.etc-shadow.read_file.readonly"),
          );
        }
      }
      settle(homeIds(), verdicts);
    },
    120_000,
  );

  if (CONTROLS)
    live(
      "controls: bypass mode (no sandbox) lets cat read ~/.ssh; read_file and search_files read an unlisted store",
      async () => {
        const { results, sh } = await attack(["--permission-mode", "bypass"], "readonly");
        const ssh = STORES.findIndex(([p]) => p === ".ssh/id_rsa");
        const m2 = STORES.findIndex(([p]) => p === ".m2/settings.xml");
        settleControls([
          judge(sh.get("home.ssh-id-rsa.cat.readonly"), mark(ssh), "control.home.cat.bypass"),
          // read_file refuses protected paths and links out even in bypass: its control is a store
          // not on the list, read the same way
          judge(
            results.get(`c-rf-${m2}`),
            mark(m2),
            "control.home.read_file.unlisted-store.bypass",
          ),
          judge(
            results.get(`c-sf-${m2}`),
            mark(m2),
            "control.home.search_files.unlisted-store.bypass",
          ),
        ]);
      },
      120_000,
    );
});
