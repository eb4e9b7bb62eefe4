/**
 * Red team, limits: sub-agents against the parent's turns, budget and timeout; SIGTERM; processes
 * left behind; web_fetch's save_path over files it did not create; kernel interfaces inside the
 * sandbox (keyring, namespaces, mount, ptrace across the sandbox, a controlling terminal); provider
 * error bodies that echo the API key.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary, spawnChatcli } from "../../support/binary.ts";
import { type MockLlm, startMockLlm } from "../../support/mock-llm.ts";
import { processesWith } from "../../support/processes.ts";
import { SANDBOX_MISSING } from "../../support/sandbox.ts";
import { agent, type Hostile, hostile, plant } from "../sandbox-support.ts";
import { LIMITS, limitsIds } from "./cases/limits.ts";
import {
  CONTROLS,
  recorder,
  settle,
  settleControls,
  toolResults,
  type Verdict,
} from "./support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
type Scene = (h: Hostile, llm: MockLlm) => Promise<{ broken: boolean; note?: string }>;
const read = (file: string) => ({ name: "read_file", arguments: { file } });
const turns = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    tool_calls: [{ id: `${tag}${i}`, ...read("README.md") }],
  }));
const KEY = "sk-proj-RTkey0123456789abcdefghijKLMN";
const firstUser = (q: { body: unknown }) =>
  JSON.stringify(
    ((q.body as { messages?: Array<{ role: string; content: unknown }> })?.messages ?? []).find(
      (m) => m.role === "user",
    )?.content ?? "",
  );
const subRequests = (llm: MockLlm, tag: string) =>
  llm.requests.filter((q) => firstUser(q).includes(tag)).length;

async function sandboxProbe(h: Hostile, llm: MockLlm, script: string): Promise<string> {
  await plant(h, script);
  llm.push(
    { tool_calls: [{ id: "sh", name: "run_command", arguments: { cmd: "sh attack.sh" } }] },
    { text: "done" },
  );
  await agent(h, ["--permission-mode", "auto", "--allow-tool", "run_command(sh attack.sh)"]);
  return toolResults(llm.requests).get("sh") ?? "";
}

const SYSCALLS = `use Config; my $a = $Config{archname} =~ /aarch64/;`;

const SCENES: Record<(typeof LIMITS)[number], Scene> = {
  async "delegate-max-turns-above-parent"(h, llm) {
    llm.push(
      {
        tool_calls: [
          { id: "d", name: "delegate", arguments: { prompt: "SUBTASK-RT-A", max_turns: 100 } },
        ],
      },
      ...turns(8, "s"),
      { text: "sub" },
      { text: "done" },
    );
    await agent(h, ["--max-turns", "3"], { CHATCLI_AGENT_DELEGATE: "1" });
    const n = subRequests(llm, "SUBTASK-RT-A");
    return { broken: n > 3, note: `${n} sub-agent requests under --max-turns 3` };
  },
  async "delegate-budget-bypass"(h, llm) {
    const big = { usage: { input_tokens: 2_000_000, output_tokens: 10 } };
    llm.push(
      {
        tool_calls: [{ id: "d", name: "delegate", arguments: { prompt: "SUBTASK-RT-B" } }],
        ...big,
      },
      ...turns(8, "b").map((t) => ({ ...t, ...big })),
      { text: "sub" },
      { text: "done" },
    );
    await agent(h, ["--max-budget-usd", "1"], {
      CHATCLI_AGENT_DELEGATE: "1",
      OPENAI_MODEL: "gpt-4o",
    });
    const n = subRequests(llm, "SUBTASK-RT-B");
    return { broken: n > 2, note: `${n} sub-agent requests after the budget was spent` };
  },
  async "delegate-timeout-bypass"(h, llm) {
    llm.push(
      { tool_calls: [{ id: "d", name: "delegate", arguments: { prompt: "SUBTASK-RT-C" } }] },
      { text: "late", delay_ms: 30_000 },
      { text: "done" },
    );
    const t0 = Date.now();
    const r = await agent(h, ["--timeout", "3s"], { CHATCLI_AGENT_DELEGATE: "1" }).catch(
      (e: Error) => ({ code: -1, stderr: e.message }),
    );
    const took = Date.now() - t0;
    return { broken: took > 12_000 || r.code !== 124, note: `exit ${r.code} after ${took} ms` };
  },
  async "timeout-command-ignores-term"(h, llm) {
    await plant(h, "trap '' TERM; sleep 31337");
    llm.push(
      { tool_calls: [{ id: "sh", name: "run_command", arguments: { cmd: "sh attack.sh" } }] },
      { text: "done" },
    );
    const t0 = Date.now();
    const r = await agent(h, ["--timeout", "3s", "--permission-mode", "auto"]).catch(
      (e: Error) => ({ code: -1, stderr: e.message }),
    );
    const took = Date.now() - t0;
    const left = processesWith("sleep 31337");
    return {
      broken: took > 12_000 || r.code !== 124 || left.length > 0,
      note: `exit ${r.code} after ${took} ms, left ${left.length}`,
    };
  },
  async "sigterm-during-stream"(h, llm) {
    llm.push({ text: "never", stall: true });
    const p = spawnChatcli(["agent", "do the task", "--json", "--ephemeral"], {
      env: h.env,
      cwd: h.ws,
    });
    await llm.waitForHits(1);
    const t0 = Date.now();
    p.proc.kill("SIGTERM");
    const r = await p.done;
    const took = Date.now() - t0;
    return { broken: r.code !== 143 || took > 5000, note: `exit ${r.code} after ${took} ms` };
  },
  async "background-process-left"(h, llm) {
    await plant(h, "setsid nohup sleep 31338 >/dev/null 2>&1 & (sleep 31338 &) ; echo started");
    llm.push(
      { tool_calls: [{ id: "sh", name: "run_command", arguments: { cmd: "sh attack.sh" } }] },
      { text: "done" },
    );
    await agent(h, ["--permission-mode", "auto"]);
    const left = processesWith("sleep 31338");
    for (const l of left) process.kill(Number(l.split(":")[0]), "SIGKILL");
    return { broken: left.length > 0, note: left.join("; ") };
  },
  async "save-path-existing-file"(h, llm) {
    return savePath(h, llm, "page.txt");
  },
  async "save-path-planted-link"(h, llm) {
    return savePath(h, llm, "link.txt");
  },
  async "save-path-dotdot"(h, llm) {
    return savePath(h, llm, "../escaped.txt");
  },
  async "save-path-absolute"(h, llm) {
    return savePath(h, llm, join(h.outside, "absolute.txt"));
  },
  async "sandbox-keyctl"(h, llm) {
    const out = await sandboxProbe(
      h,
      llm,
      `perl -e '${SYSCALLS} my $r = syscall($a ? 219 : 250, 0, -3, 0); print "keyctl=$r err=$!\\n"'`,
    );
    return { broken: /keyctl=(?!-1)\d/.test(out), note: out.slice(0, 120) };
  },
  async "sandbox-add-key"(h, llm) {
    const out = await sandboxProbe(
      h,
      llm,
      `perl -e '${SYSCALLS} my $r = syscall($a ? 217 : 248, "user", "rt", "v", 1, -3); print "add_key=$r err=$!\\n"'`,
    );
    return { broken: /add_key=(?!-1)\d/.test(out), note: out.slice(0, 120) };
  },
  async "sandbox-unshare-user"(h, llm) {
    const out = await sandboxProbe(h, llm, "unshare -Ur true && echo UNSHARE-OK");
    return { broken: out.includes("UNSHARE-OK"), note: out.slice(0, 120) };
  },
  async "sandbox-mount-tmpfs"(h, llm) {
    const out = await sandboxProbe(
      h,
      llm,
      "mkdir -p /tmp/m && mount -t tmpfs none /tmp/m && echo MOUNT-OK",
    );
    return { broken: out.includes("MOUNT-OK"), note: out.slice(0, 120) };
  },
  async "sandbox-ptrace-parent"(h, llm) {
    // chatcli's own process (its command line holds the task) must not even be visible
    const out = await sandboxProbe(
      h,
      llm,
      "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done | grep -c 'do th[e] task' ; echo scanned",
    );
    const n = Number(/(\d+)\s*\n?scanned/.exec(out)?.[1] ?? "0");
    return { broken: n > 0, note: out.slice(0, 120) };
  },
  async "sandbox-controlling-tty"(h, llm) {
    const out = await sandboxProbe(
      h,
      llm,
      "(exec 3</dev/tty) 2>/dev/null && echo TTY-OPEN; echo probed",
    );
    return { broken: out.includes("TTY-OPEN"), note: out.slice(0, 120) };
  },
  async "sandbox-io-uring"(h, llm) {
    const out = await sandboxProbe(
      h,
      llm,
      `perl -e '${SYSCALLS} my $p = "\\0" x 120; my $r = syscall(425, 4, $p); print "io_uring=$r\\n"'`,
    );
    return { broken: /io_uring=(?!-1)\d/.test(out), note: out.slice(0, 120) };
  },
  async "provider-error-echoes-key.text"(h, llm) {
    llm.push({
      error: { status: 400, message: `invalid request for key ${KEY} (echoed)` },
    });
    const r = await agent(h, ["--max-retries", "0"]).catch((e: Error) => ({
      stdout: e.message,
      stderr: "",
    }));
    const all = `${r.stdout}${r.stderr}`;
    return { broken: all.includes("sk-mock-openai"), note: all.slice(0, 160) };
  },
  async "provider-error-echoes-key.401"(h, llm) {
    llm.push({ error: { status: 401, message: `Incorrect API key provided: ${KEY}` } });
    const r = await agent(h, ["--max-retries", "0"]).catch((e: Error) => ({
      stdout: e.message,
      stderr: "",
    }));
    const all = `${r.stdout}${r.stderr}`;
    return { broken: all.includes("sk-mock-openai"), note: all.slice(0, 160) };
  },
  async "provider-error-echoes-key.opaque-gateway-key"(h, llm) {
    // a gateway's key has no vendor prefix; it is still OPENAI_API_KEY's value
    const key = "gw0123456789abcdefRTopaque";
    llm.push({ error: { status: 401, message: `unknown key ${key}` } });
    const r = await agent(h, ["--max-retries", "0"], { OPENAI_API_KEY: key }).catch((e: Error) => ({
      stdout: e.message,
      stderr: "",
    }));
    const all = `${r.stdout}${r.stderr}`;
    const at = all.indexOf(key);
    return { broken: at >= 0, note: all.slice(Math.max(0, at - 80), at + 40) };
  },
  async "provider-error-echoes-env-secret"(h, llm) {
    llm.push({ error: { status: 400, message: "bad header: CANARY-7f3a9c-env-token" } });
    const r = await agent(h, ["--max-retries", "0"]).catch((e: Error) => ({
      stdout: e.message,
      stderr: "",
    }));
    const all = `${r.stdout}${r.stderr}`;
    const at = all.indexOf("CANARY-7f3a9c-env-token");
    return { broken: at >= 0, note: all.slice(Math.max(0, at - 80), at + 40) };
  },
};

/** web_fetch save_path in a scratch dir holding a file this run did not create and a planted link. */
async function savePath(h: Hostile, llm: MockLlm, name: string) {
  const scratch = join(h.home, "scratch");
  await mkdir(scratch, { recursive: true });
  await writeFile(join(scratch, "page.txt"), "the user's own file\n");
  await writeFile(join(h.outside, "victim-save.txt"), "untouched\n");
  await symlink(join(h.outside, "victim-save.txt"), join(scratch, "link.txt"));
  const site = recorder();
  try {
    llm.push(
      {
        tool_calls: [
          { id: "f", name: "web_fetch", arguments: { url: `${site.url}/p`, save_path: name } },
        ],
      },
      { text: "done" },
    );
    await agent(h, ["--permission-mode", "auto"], { CHATCLI_AGENT_TMPDIR: scratch, CI: "1" });
  } finally {
    site.stop();
  }
  expect(toolResults(llm.requests).get("f")).toBeDefined();
  const own = await readFile(join(scratch, "page.txt"), "utf8");
  const victim = await readFile(join(h.outside, "victim-save.txt"), "utf8");
  const escaped =
    existsSync(join(h.home, "escaped.txt")) || existsSync(join(h.outside, "absolute.txt"));
  const broken = own !== "the user's own file\n" || victim !== "untouched\n" || escaped;
  return {
    broken,
    note: broken
      ? `own=${JSON.stringify(own)} victim=${JSON.stringify(victim)} escaped=${escaped}`
      : undefined,
  };
}

describe("red team: limits", () => {
  live(
    "sub-agents, timeouts, signals, save_path, kernel interfaces, error bodies",
    async () => {
      requireBinary();
      const v: Verdict[] = [];
      for (const s of LIMITS) {
        await using llm = await startMockLlm();
        await using h = await hostile(llm);
        const got = await SCENES[s](h, llm);
        v.push({ id: `limits.${s}`, broken: got.broken, note: got.broken ? got.note : undefined });
      }
      settle(limitsIds(), v);
    },
    240_000,
  );

  if (CONTROLS)
    live(
      "controls: bypass mode (no sandbox) reaches the host's processes",
      async () => {
        await using llm = await startMockLlm();
        await using h = await hostile(llm);
        await plant(
          h,
          "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done | grep -c 'do th[e] task' ; echo scanned",
        );
        llm.push(
          { tool_calls: [{ id: "sh", name: "run_command", arguments: { cmd: "sh attack.sh" } }] },
          { text: "done" },
        );
        await agent(h, ["--permission-mode", "bypass"]);
        const out = toolResults(llm.requests).get("sh") ?? "";
        const n = Number(/(\d+)\s*\n?scanned/.exec(out)?.[1] ?? "0");
        settleControls([{ id: "control.limits.ptrace-parent.bypass", broken: n > 0 }]);
      },
      60_000,
    );
});
