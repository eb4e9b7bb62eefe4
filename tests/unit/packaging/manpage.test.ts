import { expect, test } from "bun:test";
import { helpToMan, parseHelp, roffEscape } from "../../../scripts/manpage.ts";

const ROOT_HELP = `Usage: chatcli [options] [command]

LLMs in the terminal, shell pipelines and CI

Options:
  -V, --version   print the version
  -h, --help      show help

Commands:
  ask             one answer; stdin is context (logs, diffs) or the prompt
  agent           tool loop (read, search, edit, shell, web, memory) under a
                  permission policy

Exit codes:
  0 ok   1 provider/API error
`;

test("parseHelp splits usage, description, lists with wrapped rows, and text after them", () => {
  const parsed = parseHelp(
    `${ROOT_HELP}\nstdout carries only the answer;\n  progress goes to stderr.\n`,
  );
  expect(parsed.usage).toBe("chatcli [options] [command]");
  expect(parsed.description).toBe("LLMs in the terminal, shell pipelines and CI");
  expect(parsed.sections.map((s) => s.title)).toEqual(["Options", "Commands", "Exit codes", ""]);
  expect(parsed.sections[3]?.lines).toEqual([
    "stdout carries only the answer;",
    "  progress goes to stderr.",
  ]);
});

test("helpToMan: a man(7) page with NAME, each option as a tagged paragraph, each command a subsection", () => {
  const page = helpToMan(
    [
      { path: [], help: ROOT_HELP },
      {
        path: ["ask"],
        help: "Usage: chatcli ask [options] [prompt...]\n\none answer\n\nOptions:\n  -m, --model <m>  model\n",
      },
    ],
    "1.2.3",
    "2026-11-30",
  );
  expect(page.startsWith('.TH CHATCLI 1 "2026-11-30" "chatcli 1.2.3" "User Commands"\n')).toBe(
    true,
  );
  expect(page).toContain(".SH NAME\nchatcli \\- LLMs in the terminal, shell pipelines and CI\n");
  expect(page).toContain(
    ".TP\n.B agent\ntool loop (read, search, edit, shell, web, memory) under a permission policy\n",
  );
  expect(page).toContain('.SS "chatcli ask"\n.B chatcli ask [options] [prompt...]\n');
  expect(page).toContain(".TP\n.B \\-m, \\-\\-model <m>\nmodel\n");
  // the root's exit codes are the page's EXIT STATUS, one tagged paragraph a code
  expect(page).toContain(".SH EXIT STATUS\n.TP\n.B 0\nok   1 provider/API error\n");
  expect(page).toContain(".SH ENVIRONMENT\n.TP\n.B CHATCLI_HOME\n");
});

test("roffEscape: backslashes, hyphens and a leading dot or quote cannot become roff requests", () => {
  expect(roffEscape("a\\b")).toBe("a\\eb");
  expect(roffEscape(".rm x\n'br")).toBe("\\&.rm x\n\\&'br");
  expect(roffEscape("--json")).toBe("\\-\\-json");
});
