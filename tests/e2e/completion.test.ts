/**
 * Shell completion as a user gets it: the script `chatcli completion SHELL` prints (and `npm run
 * build` writes to dist/completions/) is loaded into a real shell and asked for candidates — bash
 * through `complete -p` and the registered function with COMP_WORDS, zsh with compadd recorded, fish
 * through `complete -C`. Session names come from the saved sessions, categories from memory's list.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { BINARY, baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

const has = (shell: string) => Bun.spawnSync(["sh", "-c", `command -v ${shell}`]).exitCode === 0;

/** A home with two saved sessions, and a PATH whose `chatcli` is the built binary. */
async function home(dir: string): Promise<Record<string, string>> {
  const env = baseEnv(dir, { PATH: `${dirname(BINARY)}:${process.env["PATH"] ?? ""}` });
  for (const name of ["fix-login", "release-notes"]) {
    const r = await runChatcli(["ask", "-m", "mock:echo", "--session", name, "hi"], {
      env,
      cwd: dir,
    });
    expect(r.code).toBe(0);
  }
  return env;
}

async function script(shell: string, env: Record<string, string>, cwd: string): Promise<string> {
  const r = await runChatcli(["completion", shell], { env, cwd });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  // npm run build wrote the same script to dist/completions/.
  const file = { bash: "chatcli.bash", zsh: "_chatcli", fish: "chatcli.fish" }[shell] as string;
  expect(await readFile(join(dirname(BINARY), "completions", file), "utf8")).toBe(r.stdout);
  const path = join(cwd, file);
  await writeFile(path, r.stdout);
  return path;
}

function shell(argv: string[], env: Record<string, string>, cwd: string): string {
  const r = Bun.spawnSync(argv, { env, cwd, stdin: "ignore" });
  expect(r.stderr.toString()).toBe("");
  expect(r.exitCode).toBe(0);
  return r.stdout.toString();
}

const CASES: [string, string[]][] = [
  ["chatcli me", ["memory"]],
  ["chatcli memory f", ["facts", "forget"]],
  ["chatcli memory l", ["list", "longterm", "lt"]],
  ["chatcli memory facts --category go", ["gotcha"]],
  ["chatcli memory remember --category p", ["pattern", "personal", "preference", "project"]],
  ["chatcli sessions show ", ["fix-login", "release-notes"]],
  ["chatcli ask --session f", ["fix-login"]],
  ["chatcli agent --permission-mode ", ["auto", "bypass", "edit", "read-only"]],
  ["chatcli agent --on-ask ", ["deny", "fail"]],
  ["chatcli why did it fail --max-r", ["--max-retries"]],
  ["chatcli completion ", ["bash", "fish", "zsh"]],
  ["chatcli con", ["config"]],
];

describe("chatcli completion", () => {
  test("bash: complete -p names the function; it completes commands, subcommands, flags, sessions, categories", async () => {
    await using dir = await tempDir();
    const env = await home(dir.path);
    const file = await script("bash", env, dir.path);
    const probe = CASES.map(([line]) => {
      const words = line
        .split(" ")
        .map((w) => `'${w}'`)
        .join(" ");
      return `COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); COMPREPLY=(); _chatcli; echo "$(printf '%s\\n' "\${COMPREPLY[@]}" | sort | tr '\\n' ' ')"`;
    });
    const out = shell(
      ["bash", "--norc", "-c", [`source ${file}`, "complete -p chatcli", ...probe].join("\n")],
      env,
      dir.path,
    );
    const [registration, ...lines] = out.trimEnd().split("\n");
    expect(registration).toBe("complete -o bashdefault -o default -F _chatcli chatcli");
    expect(lines.map((l) => l.trim().split(" "))).toEqual(CASES.map(([, want]) => want));
    // compgen over the flag list of a command, as bash itself filters candidates.
    const flags = shell(
      ["bash", "--norc", "-c", `source ${file}; compgen -W "$(_chatcli_flags agent)" -- --max`],
      env,
      dir.path,
    );
    expect(flags.trim().split("\n")).toEqual([
      "--max-turns",
      "--max-budget-usd",
      "--max-input-bytes",
      "--max-retries",
    ]);
  });

  test.skipIf(!has("zsh"))(
    "zsh: the _chatcli function adds the same candidates (compadd recorded)",
    async () => {
      await using dir = await tempDir();
      const env = await home(dir.path);
      const file = await script("zsh", env, dir.path);
      const probe = CASES.map(([line]) => {
        const words = line
          .split(" ")
          .map((w) => `'${w}'`)
          .join(" ");
        return `words=(${words}); CURRENT=\${#words}; _chatcli`;
      });
      // Outside compinit: compdef and compadd are recorded, _files stands for file completion.
      const stubs = `compdef() { print -r -- "compdef $*" }
compadd() {
  local -a shown; while [[ $1 != -- ]]; do [[ $1 == -d ]] && { shown=("\${(@P)2}"); shift }; shift; done; shift
  local cur=\${words[CURRENT]}; print -r -- \${(j: :)\${(o)\${(M)@:#\${cur}*}}}
  [[ -n $SHOW_DESCRIPTIONS ]] && print -rl -- "\${(@M)shown:#\${cur}*}"
}
_files() { print -r -- FILES }`;
      const out = shell(
        [
          "zsh",
          "-f",
          "-c",
          [
            stubs,
            `source ${file}`,
            ...probe,
            "words=(chatcli ask -f ''); CURRENT=4; _chatcli",
          ].join("\n"),
        ],
        env,
        dir.path,
      );
      const [registration, ...lines] = out.trimEnd().split("\n");
      expect(registration).toBe("compdef _chatcli chatcli");
      expect(lines.map((l) => l.trim().split(" "))).toEqual([
        ...CASES.map(([, want]) => want),
        ["FILES"],
      ]);
      // The menu shows each candidate with its description.
      const described = shell(
        [
          "zsh",
          "-f",
          "-c",
          [
            stubs,
            `source ${file}`,
            "SHOW_DESCRIPTIONS=1",
            "words=(chatcli sess); CURRENT=2; _chatcli",
            "words=(chatcli agent --max-t); CURRENT=3; _chatcli",
          ].join("\n"),
        ],
        env,
        dir.path,
      );
      expect(described.split("\n").slice(1, -1)).toEqual([
        "sessions",
        "sessions -- saved conversations in ~/.chatcli/sessions/",
        "--max-turns",
        expect.stringMatching(/^--max-turns -- stop after N model turns/),
      ]);
    },
  );

  test.skipIf(!has("fish"))(
    "fish: complete -C gives the same candidates, with descriptions",
    async () => {
      await using dir = await tempDir();
      const env = await home(dir.path);
      const file = await script("fish", env, dir.path);
      const probe = CASES.map(
        ([line]) => `complete -C '${line}' | string replace -r '\\t.*' '' | sort | string join ' '`,
      );
      const out = shell(
        ["fish", "--no-config", "-c", [`source ${file}`, ...probe, "true"].join("\n")],
        env,
        dir.path,
      );
      expect(
        out
          .trimEnd()
          .split("\n")
          .map((l) => l.split(" ")),
      ).toEqual(CASES.map(([, want]) => want));
      const described = shell(
        ["fish", "--no-config", "-c", `source ${file}; complete -C 'chatcli sess'`],
        env,
        dir.path,
      );
      expect(described).toBe("sessions\tsaved conversations in ~/.chatcli/sessions/\n");
    },
  );

  test("no shell, or an unknown one, is a usage error (exit 2)", async () => {
    await using dir = await tempDir();
    const env = baseEnv(dir.path);
    const none = await runChatcli(["completion"], { env, cwd: dir.path });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("completion needs a shell: bash, zsh, fish");
    const tcsh = await runChatcli(["completion", "tcsh"], { env, cwd: dir.path });
    expect(tcsh.code).toBe(2);
    expect(tcsh.stderr).toContain("Allowed choices are bash, zsh, fish");
  });

  test("--values sessions lists saved session names only (what the scripts call back)", async () => {
    await using dir = await tempDir();
    const env = await home(dir.path);
    await mkdir(join(dir.path, ".chatcli", "sessions"), { recursive: true });
    const r = await runChatcli(["completion", "--values", "sessions"], { env, cwd: dir.path });
    expect(r).toMatchObject({ code: 0, stdout: "fix-login\nrelease-notes\n", stderr: "" });
  });
});

test("zsh and fish menus: no description is cut mid-word", async () => {
  await using dir = await tempDir();
  const env = baseEnv(dir.path);
  for (const shell of ["zsh", "fish"]) {
    const r = await runChatcli(["completion", shell], { env, cwd: dir.path });
    expect(r.code).toBe(0);
    const re = shell === "zsh" ? /'(-{0,2}[\w-]+):([^']*)'/g : /'(-{0,2}[\w-]+)\t([^']*)'/g;
    const descriptions = [...r.stdout.matchAll(re)].map((m) => m[2] as string);
    expect(descriptions.length).toBeGreaterThan(50);
    // a cut one ends in the middle of a word at the old 80-character limit
    for (const d of descriptions)
      expect({ shell, d, cut: d.length >= 80 && !d.endsWith("…") }).toEqual({
        shell,
        d,
        cut: false,
      });
  }
});
