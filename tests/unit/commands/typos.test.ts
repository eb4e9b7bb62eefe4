import { describe, expect, test } from "bun:test";
import { bootstrapCommand } from "../../../commands/bootstrap.ts";
import { memoryCommand } from "../../../commands/memory.ts";
import { COMMAND_NAMES } from "../../../commands/program.ts";
import { sessionsCommand } from "../../../commands/sessions.ts";
import { mistypedCommand, SUBCOMMANDS, typoDistance } from "../../../commands/typos.ts";
import { testCtx } from "../../support/ctx.ts";

const judge = (line: string) => mistypedCommand(line.split(" "), COMMAND_NAMES)?.message;

describe("bare prompts vs mistyped commands (commands/typos.ts)", () => {
  test("the subcommand lists are the real command trees'", () => {
    const ctx = testCtx();
    const state = { exitCode: 0 };
    // every name a subcommand answers to, aliases included (`memory lt`)
    const names = (c: { commands: readonly { name(): string; aliases(): string[] }[] }) =>
      c.commands.flatMap((s) => [s.name(), ...s.aliases()]).sort();
    expect([...(SUBCOMMANDS["memory"] ?? [])].sort()).toEqual(names(memoryCommand(ctx, state)));
    expect([...(SUBCOMMANDS["sessions"] ?? [])].sort()).toEqual(names(sessionsCommand(ctx, state)));
    expect([...(SUBCOMMANDS["bootstrap"] ?? [])].sort()).toEqual(
      names(bootstrapCommand(ctx, state)),
    );
  });

  test("an alias the help and completions offer runs (memory lt)", () => {
    expect(judge("memory lt")).toBeUndefined();
    expect(judge("memory longterm")).toBeUndefined();
  });

  test("distance counts a swap as one edit", () => {
    expect(typoDistance("agnet", "agent")).toBe(1);
    expect(typoDistance("sesions", "sessions")).toBe(1);
    expect(typoDistance("memroy", "memory")).toBe(1);
    expect(typoDistance("compare", "compact")).toBe(2);
  });

  test.each([
    ["sesions list", "did you mean: chatcli sessions?"],
    ["sesions", "did you mean: chatcli sessions?"],
    ["sessions lst", "did you mean: chatcli sessions list?"],
    ["memroy facts", "did you mean: chatcli memory?"],
    ["memroy fcts", "did you mean: chatcli memory?"],
    ["bootstrap shw", "did you mean: chatcli bootstrap show?"],
    ["bootstrp show", "did you mean: chatcli bootstrap?"],
    ["agnet fix the failing tests", "did you mean: chatcli agent?"],
    ["codr add a flag", "did you mean: chatcli coder?"],
    ["rewnd --list", "did you mean: chatcli rewind?"],
    ["compcat --session x", "did you mean: chatcli compact?"],
    ["modles", "did you mean: chatcli models?"],
    ["session list", "did you mean: chatcli sessions?"],
    ["session show fix-tests", "did you mean: chatcli sessions?"],
    ["memory leaks in node", 'unknown memory subcommand "leaks"'],
    ["sessions of the conference", 'unknown sessions subcommand "of"'],
    ["-m mock:echo sesions list", "did you mean: chatcli sessions?"],
    ["-m mock:echo sessions list", "is a command: put it first"],
  ])("%p is a usage error", (line, message) => {
    expect(judge(line)).toContain(message);
  });

  test.each([
    "what does this error mean",
    "what",
    "order these lines",
    "compare these two files",
    "impact of caching on latency",
    "lessons learned from the outage",
    "code review this diff",
    "codex vs claude code",
    "agents that use tools",
    "chart the numbers",
    "remind me how rebase works",
    "model the data as a graph",
    "Memory leaks in node",
    "Sesions list",
    "memo for the team",
    "session management in express",
    "model list of parameters",
    "explain this",
    "aks what is 2+2",
    "awk one-liner to sum a column",
    "chta about rust",
    "bootstrap fix src/a.ts",
    "memory 2026-11-30",
    "memory --json",
    "-m mock:echo what is this",
    "-- sesions list",
  ])("%p stays a prompt (or runs its command)", (line) => {
    expect(judge(line)).toBeUndefined();
  });
});
