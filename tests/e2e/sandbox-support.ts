/** A hostile checkout for the sandbox suites: a workspace, a home with credentials, a place outside. */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, runChatcli } from "../support/binary.ts";
import { type TempDir, tempDir } from "../support/ctx.ts";
import type { MockLlm } from "../support/mock-llm.ts";

export const CANARY = "CANARY-7f3a9c";

export interface Hostile extends AsyncDisposable {
  ws: string;
  home: string;
  outside: string;
  env: Record<string, string>;
}

/** Workspace (a git repo), HOME with a private key and cloud credentials, and a directory outside both. */
export async function hostile(
  llm: MockLlm,
  extraEnv: Record<string, string> = {},
): Promise<Hostile> {
  const dirs: TempDir[] = [await tempDir(), await tempDir(), await tempDir()];
  const [ws, home, outside] = dirs.map((d) => d.path) as [string, string, string];
  await writeFile(join(ws, "README.md"), "project\n");
  for (const args of [
    ["init", "-q"],
    ["add", "."],
    ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"],
  ])
    Bun.spawnSync(["git", ...args], { cwd: ws });
  await mkdir(join(home, ".ssh"));
  await writeFile(
    join(home, ".ssh", "id_rsa"),
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${CANARY}-ssh\n`,
  );
  await mkdir(join(home, ".aws"));
  await writeFile(
    join(home, ".aws", "credentials"),
    `[default]\naws_secret_access_key=${CANARY}-aws\n`,
  );
  await writeFile(join(home, ".netrc"), `machine example.com password ${CANARY}-netrc\n`);
  await mkdir(join(home, ".chatcli", "memory"), { recursive: true });
  await writeFile(join(home, ".chatcli", "memory", "notes.md"), `${CANARY}-chatcli-home\n`);
  await writeFile(join(outside, "victim.txt"), "untouched\n");
  const env = baseEnv(home, {
    ...llm.env("openai"),
    CHATCLI_MEMORY_ENABLED: "false",
    DEPLOY_TOKEN: `${CANARY}-env-token`,
    ...extraEnv,
  });
  return {
    ws,
    home,
    outside,
    env,
    async [Symbol.asyncDispose]() {
      for (const d of dirs) await d[Symbol.asyncDispose]();
    },
  };
}

/** Commits `attack.sh` (the parser cannot see into a script; only the sandbox stands). */
export async function plant(h: Hostile, script: string): Promise<void> {
  await writeFile(join(h.ws, "attack.sh"), script);
}

export const runScript = {
  tool_calls: [{ name: "run_command", arguments: { cmd: "sh attack.sh" } }],
};

/** Runs `chatcli agent` in the workspace with --json; returns the exit code and the envelope. */
export async function agent(h: Hostile, args: string[], env: Record<string, string> = {}) {
  const r = await runChatcli(["agent", "do the task", "--json", "--ephemeral", ...args], {
    env: { ...h.env, ...env },
    cwd: h.ws,
  });
  let envelope: Record<string, unknown> = {};
  try {
    envelope = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`no envelope (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
  return { ...r, envelope };
}

/** Everything the model provider was sent after the first request (the tool results). */
export function sentToProvider(llm: MockLlm): string {
  return llm.requests
    .slice(1)
    .map((r) => JSON.stringify(r.body))
    .join("\n");
}
