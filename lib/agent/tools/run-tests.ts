import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Tool } from "../types.ts";
import { fileKind, num, resolvePath, str, toolError } from "./common.ts";
import { runShell } from "./run-command.ts";

/** Guesses the test command of a project from its files. */
export async function detectTestCommand(dir: string): Promise<string | undefined> {
  const has = async (name: string) => (await fileKind(join(dir, name))) !== "missing";
  if (await has("package.json")) {
    const bunLock =
      (await has("bun.lock")) || (await has("bun.lockb")) || (await has("bunfig.toml"));
    let script: string | undefined;
    try {
      const pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
        scripts?: Record<string, string>;
      };
      script = pkg.scripts?.["test"];
    } catch {
      // unreadable package.json: fall through to the runner defaults
    }
    if (script && !/no test specified/.test(script)) return bunLock ? "bun run test" : "npm test";
    return bunLock ? "bun test" : "npm test";
  }
  if (await has("go.mod")) return "go test ./...";
  if (await has("Cargo.toml")) return "cargo test";
  for (const f of ["pytest.ini", "pyproject.toml", "setup.cfg", "setup.py", "tox.ini"]) {
    if (await has(f)) return "python3 -m pytest -q";
  }
  if (await has("bunfig.toml")) return "bun test";
  return undefined;
}

/** run_tests: runs the project's tests (npm/bun/pytest/go/cargo detected, or `cmd`). */
export const runTestsTool: Tool = {
  name: "run_tests",
  description:
    "Run the project's test suite (detects npm, bun, pytest, go, cargo) or the given cmd; returns exit code and output.",
  input_schema: {
    type: "object",
    properties: {
      dir: { type: "string", description: "project (default: cwd)" },
      cmd: { type: "string", description: "instead of the detected one" },
      timeout: { type: "integer", minimum: 1, description: "seconds (default 1800)" },
    },
  },
  kind: "shell",
  subject: (args) => str(args, "cmd") ?? "run_tests",
  async execute(args, ctx) {
    const dir = str(args, "dir") ?? ".";
    const resolved = resolvePath(ctx, dir);
    if (typeof resolved === "string") return toolError(resolved);
    const cmd = str(args, "cmd") ?? (await detectTestCommand(resolved.abs));
    if (!cmd) {
      return toolError(
        `no test setup found in ${resolved.shown} (package.json, go.mod, Cargo.toml, pyproject.toml…); pass cmd`,
      );
    }
    const result = await runShell(cmd, dir, num(args, "timeout") ?? 1800, ctx);
    return { ...result, output: `$ ${cmd}\n${result.output}` };
  },
};
