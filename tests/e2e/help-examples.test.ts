/**
 * Help that teaches: `chatcli --help` carries the README's four opening examples, the variables that
 * choose a model and the exit-code table; each command's --help ends with 2–3 examples whose flags all
 * exist on that command (an example that no longer parses fails here).
 */
import { beforeAll, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, ROOT, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

async function help(args: string[]): Promise<string> {
  await using home = await tempDir();
  const r = await runChatcli([...args, "--help"], { env: baseEnv(home.path), cwd: home.path });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  return r.stdout;
}

/** The lines of the `Examples:` block. */
function examples(text: string): string[] {
  const at = text.lastIndexOf("\nExamples:\n");
  if (at < 0) return [];
  const lines = text.slice(at + "\nExamples:\n".length).split("\n");
  return lines
    .slice(
      0,
      lines.findIndex((l) => !l.startsWith("  ")),
    )
    .map((l) => l.trim());
}

test("chatcli --help: the README's first four lines, the model variables, the whole exit-code table", async () => {
  const text = await help([]);
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const top = /```sh\n([\s\S]*?)```/.exec(readme)?.[1]?.trim().split("\n") ?? [];
  expect(top.length).toBe(4);
  const shown = text.slice(text.indexOf("Examples:"));
  for (const line of top) expect(shown).toContain(`  ${line}\n`);
  for (const name of [
    "LLM_PROVIDER",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OLLAMA_BASE_URL",
    "CHATCLI_FALLBACK_PROVIDERS",
  ])
    expect(text).toContain(name);
  // Every code of the README's table, each on its own line.
  const codes = [...readme.matchAll(/^\| (\d+)(?: \/ (\d+))? \|/gm)]
    .flatMap((m) => [m[1], m[2]])
    .filter(Boolean);
  expect(codes.length).toBeGreaterThanOrEqual(13);
  const table = text.slice(text.indexOf("Exit codes:"));
  for (const code of codes) expect(table).toMatch(new RegExp(`\\n  ${code} +\\S`));
});

/** Every command the root help lists (a new command without examples fails here). */
async function commands(): Promise<string[]> {
  const text = await help([]);
  const list = text.slice(text.indexOf("\nCommands:\n"), text.indexOf("\nExamples:\n"));
  return [...list.matchAll(/^ {2}([a-z]+)\b/gm)]
    .map((m) => m[1] as string)
    .filter((c) => c !== "help");
}

test("every command's --help ends with 2–3 examples of itself, using only its own flags", async () => {
  const names = await commands();
  expect(names).toContain("config");
  expect(names.length).toBeGreaterThanOrEqual(12);
  for (const command of names) {
    const text = await help([command]);
    const lines = examples(text);
    expect({ command, count: lines.length >= 2 && lines.length <= 3 }).toEqual({
      command,
      count: true,
    });
    for (const line of lines) {
      const code = line.replace(/\s+#.*$/, "");
      expect(code).toMatch(new RegExp(`chatcli ${command}\\b`));
      // Flags of this command (a subcommand's: its own help) — quoted text is not a flag.
      const words = code.replace(/"[^"]*"|'[^']*'/g, "").split(/\s+/);
      const sub = words[words.indexOf(command) + 1];
      const own =
        sub && /^[a-z]+$/.test(sub) && text.includes(`\n  ${sub}`)
          ? await help([command, sub])
          : text;
      for (const flag of words.filter((w) => /^--?[a-zA-Z]/.test(w) && !w.includes("|")))
        expect({ line, flag, known: own.includes(flag.replace(/=.*$/, "")) }).toEqual({
          line,
          flag,
          known: true,
        });
    }
  }
});

test("every subcommand of memory, sessions and bootstrap has 1–3 examples of itself, with its own flags", async () => {
  for (const command of ["memory", "sessions", "bootstrap"]) {
    const text = await help([command]);
    const block = text.slice(text.indexOf("\nCommands:\n"), text.indexOf("\nExamples:\n"));
    const subs = [...block.matchAll(/^ {2}([a-z]+)\b/gm)]
      .map((m) => m[1] as string)
      .filter((s) => s !== "help");
    expect(subs.length).toBeGreaterThanOrEqual(2);
    for (const sub of [...subs, ...(command === "memory" ? ["profile set"] : [])]) {
      const path = [command, ...sub.split(" ")];
      const own = await help(path);
      const lines = examples(own);
      expect({ path, count: lines.length >= 1 && lines.length <= 3 }).toEqual({
        path,
        count: true,
      });
      for (const line of lines) {
        const code = line.replace(/\s+#.*$/, "");
        expect({ line, ok: code.includes(`chatcli ${path.join(" ")}`) }).toEqual({
          line,
          ok: true,
        });
        const words = code.replace(/"[^"]*"|'[^']*'/g, "").split(/\s+/);
        for (const flag of words.filter((w) => /^--?[a-zA-Z]/.test(w) && !w.includes("|")))
          expect({ line, flag, known: own.includes(flag.replace(/=.*$/, "")) }).toEqual({
            line,
            flag,
            known: true,
          });
      }
    }
  }
});

test("the agent and coder examples say the permission mode they need", async () => {
  for (const command of ["agent", "coder"]) {
    const lines = examples(await help([command]));
    const edits = lines.filter((l) => /fix|add|rename|edit/.test(l));
    expect(edits.length).toBeGreaterThan(0);
    for (const line of edits)
      expect({ line, mode: /--permission-mode \S+/.test(line) }).toEqual({ line, mode: true });
  }
  const root = await help([]);
  const headline = root.split("\n").find((l) => l.includes('agent "fix the failing tests"'));
  expect(headline).toContain("--permission-mode edit");
});
