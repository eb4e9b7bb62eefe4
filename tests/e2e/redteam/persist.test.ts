/**
 * Red team, persistence: a command (edit, auto) or chatcli's write_file (edit) tries to leave
 * something in every place of cases/persist.ts. Broken: after the run, on the host, the place holds
 * the run's marker. The workspace's own files (writable in these modes by design) are not cases.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { requireBinary } from "../../support/binary.ts";
import { startMockLlm } from "../../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../../support/sandbox.ts";
import { agent, type Hostile, hostile, plant } from "../sandbox-support.ts";
import { PERSIST_MODES, persistIds, TARGETS } from "./cases/persist.ts";
import { CONTROLS, settle, settleControls, toolResults, type Verdict } from "./support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const RT = `${process.pid}-${Date.now()}`;

function path(h: Hostile, t: string): string {
  return t
    .replace(/^~/, h.home)
    .replace("$CH", join(h.home, ".chatcli"))
    .replace("$WS", h.ws)
    .replace("$RT", RT);
}

const marker = (mode: string) => `RTPERSIST-${mode}`;
const holds = (p: string, m: string) => {
  try {
    return readFileSync(p, "utf8").includes(m);
  } catch {
    return false;
  }
};

async function attempt(
  mode: (typeof PERSIST_MODES)[number],
  extra: string[] = [],
): Promise<Verdict[]> {
  await using llm = await startMockLlm();
  await using h = await hostile(llm);
  const m = marker(mode);
  const paths = TARGETS.map(([, t]) => path(h, t));
  try {
    if (mode.startsWith("cmd.")) {
      await plant(
        h,
        [
          ...paths.map((p) => `( mkdir -p "${dirname(p)}" && echo ${m} >> "${p}" ) 2>/dev/null`),
          "echo persist-done",
        ].join("\n"),
      );
      llm.push(
        { tool_calls: [{ id: "sh", name: "run_command", arguments: { cmd: "sh attack.sh" } }] },
        { text: "done" },
      );
      await agent(h, [
        "--permission-mode",
        mode.slice(4),
        "--allow-tool",
        "run_command(sh attack.sh)",
        ...extra,
      ]);
      expect(toolResults(llm.requests).get("sh")).toContain("persist-done");
    } else {
      llm.push(
        {
          tool_calls: paths.map((file, i) => ({
            id: `w${i}`,
            name: "write_file",
            arguments: { file, content: `${m}\n`, append: true },
          })) as never,
        },
        { text: "done" },
      );
      await agent(h, ["--permission-mode", "edit", ...extra]);
      expect(toolResults(llm.requests).size).toBe(paths.length);
    }
    return TARGETS.map(([t], i) => ({
      id: `persist.${t}.${mode}`,
      broken: holds(paths[i] as string, m),
    }));
  } finally {
    for (const p of paths.filter((p) => p.includes(RT))) rmSync(p, { force: true });
    rmSync(path(h, "$WS/../rt-sibling.txt"), { force: true });
  }
}

describe("red team: persistence outside the run", () => {
  live(
    "every place, by a command (edit, auto) and by write_file (edit)",
    async () => {
      requireBinary();
      const v: Verdict[] = [];
      for (const mode of PERSIST_MODES) v.push(...(await attempt(mode)));
      settle(persistIds(), v);
    },
    120_000,
  );

  if (CONTROLS)
    live(
      "controls: bypass (no sandbox) leaves the marker in HOME and $CHATCLI_HOME",
      async () => {
        const v = await attempt("cmd.edit", ["--permission-mode", "bypass"]);
        const pick = ["home-bashrc", "chatcli-config", "host-tmp"];
        settleControls(
          v
            .filter((x) => pick.some((p) => x.id === `persist.${p}.cmd.edit`))
            .map((x) => ({ ...x, id: `control.${x.id}.bypass` })),
        );
      },
      60_000,
    );
});
