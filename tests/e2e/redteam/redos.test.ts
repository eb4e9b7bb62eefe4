/**
 * Red team, patterns chatcli did not write: a catastrophic regex from the workspace, the env or the
 * model must not keep a run alive past --timeout, and SIGTERM must end it. Broken: the run is still
 * alive 12 s after a 4 s timeout (the harness kills it at 25 s), or SIGTERM takes over 5 s.
 */
import { describe, expect, test } from "bun:test";
import { requireBinary, spawnChatcli } from "../../support/binary.ts";
import { type MockLlm, startMockLlm } from "../../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../../support/sandbox.ts";
import { type Hostile, hostile } from "../sandbox-support.ts";
import { REDOS, redosIds } from "./cases/redos.ts";
import {
  CONTROLS,
  recorder,
  type Site,
  settle,
  settleControls,
  type Verdict,
  writeTree,
} from "./support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const EVIL = "(a+)+$";
const AS = `${"a".repeat(34)}!`;
const call = (name: string, args: Record<string, unknown>) => ({
  tool_calls: [{ id: "t", name, arguments: args }],
});

async function timed(
  h: Hostile,
  llm: MockLlm,
  args: string[],
  env: Record<string, string> = {},
  sigterm = false,
  timeout = ["--timeout", "4s"],
) {
  const p = spawnChatcli(["agent", "do the task", "--json", "--ephemeral", ...timeout, ...args], {
    env: { ...h.env, ...env },
    cwd: h.ws,
  });
  const t0 = Date.now();
  const guard = setTimeout(() => p.proc.kill("SIGKILL"), 25_000);
  if (sigterm) {
    await llm.waitForHits(2);
    p.proc.kill("SIGTERM");
  }
  const sent = Date.now();
  const r = await p.done;
  clearTimeout(guard);
  return { code: r.code, took: Date.now() - t0, afterTerm: Date.now() - sent };
}

type Scene = (h: Hostile, llm: MockLlm, site: Site) => Promise<{ broken: boolean; note: string }>;
const slow = (r: { code: number; took: number }) => ({
  broken: r.took > 12_000,
  note: `exit ${r.code} after ${r.took} ms`,
});

const SCENES: Record<(typeof REDOS)[number], Scene> = {
  async "dotenv-denylist"(h, llm) {
    await writeTree(h.ws, { ".env": `CHATCLI_AGENT_DENYLIST=${EVIL}\n` });
    llm.push(call("run_command", { cmd: `echo ${AS}` }), { text: "done" });
    return slow(await timed(h, llm, []));
  },
  async "process-env-denylist"(h, llm) {
    llm.push(call("run_command", { cmd: `echo ${AS}` }), { text: "done" });
    return slow(await timed(h, llm, [], { CHATCLI_AGENT_DENYLIST: EVIL }));
  },
  async "config-deny-glob"(h, llm) {
    await writeTree(h.ws, {
      ".chatcli/config.json": JSON.stringify({
        permissions: { deny: [`run_command(${"*a".repeat(30)}*b)`] },
      }),
    });
    llm.push(call("run_command", { cmd: `echo ${"a".repeat(60)}` }), { text: "done" });
    return slow(await timed(h, llm, []));
  },
  async "flag-deny-glob"(h, llm) {
    llm.push(call("run_command", { cmd: `echo ${"a".repeat(60)}` }), { text: "done" });
    return slow(await timed(h, llm, ["--deny-tool", `run_command(${"*a".repeat(30)}*b)`]));
  },
  async "web-fetch-filter"(h, llm, site) {
    llm.push(call("web_fetch", { url: `${site.url}/aaa`, filter: EVIL }), { text: "done" });
    return slow(await timed(h, llm, ["--allow-tool", "web_fetch(domain:127.0.0.1)"]));
  },
  async "web-fetch-exclude"(h, llm, site) {
    llm.push(call("web_fetch", { url: `${site.url}/aaa`, exclude: EVIL }), { text: "done" });
    return slow(await timed(h, llm, ["--allow-tool", "web_fetch(domain:127.0.0.1)"]));
  },
  async "search-files-regex"(h, llm) {
    await writeTree(h.ws, { "big.txt": `${AS}\n`.repeat(50) });
    llm.push(call("search_files", { term: EVIL, regex: true }), { text: "done" });
    return slow(await timed(h, llm, []));
  },
  async "search-files-regex-no-sandbox"(h, llm) {
    await writeTree(h.ws, { "big.txt": `${AS}\n`.repeat(50) });
    llm.push(call("search_files", { term: EVIL, regex: true }), { text: "done" });
    return slow(await timed(h, llm, ["--sandbox", "off"]));
  },
  async "sigterm-during-filter"(h, llm, site) {
    llm.push(
      call("web_fetch", { url: `${site.url}/aaa`, filter: EVIL }),
      { text: "done", delay_ms: 20_000 },
      { text: "done" },
    );
    const r = await timed(h, llm, ["--allow-tool", "web_fetch(domain:127.0.0.1)"], {}, true);
    return { broken: r.afterTerm > 5000, note: `exit ${r.code} ${r.afterTerm} ms after SIGTERM` };
  },
};

describe("red team: catastrophic patterns", () => {
  live(
    "workspace, env, flag and model patterns under --timeout 4s; SIGTERM",
    async () => {
      requireBinary();
      const site = recorder(
        () =>
          new Response(`${AS}\n`.repeat(200), {
            headers: { "content-type": "text/plain" },
          }),
      );
      try {
        const jobs = REDOS.map((s) => async (): Promise<Verdict> => {
          await using llm = await startMockLlm();
          await using h = await hostile(llm);
          const got = await SCENES[s](h, llm, site);
          return { id: `redos.${s}`, broken: got.broken, note: got.broken ? got.note : undefined };
        });
        const v = await Promise.all(jobs.map((j) => j()));
        // one verdict per pattern; settle() then compares the broken ones with known-broken.ts
        expect(v.map((x) => x.id).sort()).toEqual([...redosIds()].sort());
        settle(redosIds(), v);
      } finally {
        site.stop();
      }
    },
    120_000,
  );

  if (CONTROLS)
    live(
      "controls: without --timeout a reply that takes 14 s keeps the run alive, and the check sees it",
      async () => {
        await using llm = await startMockLlm();
        await using h = await hostile(llm);
        llm.push({ text: "slow", delay_ms: 14_000 });
        const r = await timed(h, llm, [], {}, false, []);
        settleControls([{ id: "control.redos.no-timeout", ...slow(r) }]);
      },
      60_000,
    );
});
