import { describe, expect, test } from "bun:test";
import { CommanderError } from "@commander-js/extra-typings";
import { commandPath, fromCommander, helpRoute } from "../../../commands/help-route.ts";
import { UsageError } from "../../../lib/core/errors.ts";

const COMMANDS = ["ask", "agent", "memory", "sessions", "bootstrap", "config"];

describe("helpRoute", () => {
  test("help forms become --help of that command", () => {
    expect(helpRoute(["help"], COMMANDS)).toEqual(["--help"]);
    expect(helpRoute(["help", "ask"], COMMANDS)).toEqual(["ask", "--help"]);
    expect(helpRoute(["help", "memory", "facts"], COMMANDS)).toEqual(["memory", "facts", "--help"]);
    expect(helpRoute(["sessions", "help", "list"], COMMANDS)).toEqual([
      "sessions",
      "list",
      "--help",
    ]);
    expect(helpRoute(["memory", "help"], COMMANDS)).toEqual(["memory", "--help"]);
    expect(helpRoute(["help", "memory", "lt"], COMMANDS)).toEqual(["memory", "lt", "--help"]);
  });

  test("names that are not commands are usage errors; other argv is left alone", () => {
    expect(helpRoute(["help", "foo"], COMMANDS)).toBeInstanceOf(UsageError);
    expect((helpRoute(["help", "sessions", "lst"], COMMANDS) as UsageError).message).toContain(
      "did you mean: chatcli sessions list?",
    );
    expect(helpRoute(["help", "config", "x"], COMMANDS)).toBeInstanceOf(UsageError);
    expect(helpRoute(["ask", "help", "me"], COMMANDS)).toBeUndefined();
    expect(helpRoute(["what", "is", "help"], COMMANDS)).toBeUndefined();
  });

  test("version is --version; version WORDS is an error", () => {
    expect(helpRoute(["version"], COMMANDS)).toEqual(["--version"]);
    expect(helpRoute(["version", "--json"], COMMANDS)).toEqual(["--version"]);
    expect(helpRoute(["version", "of", "node"], COMMANDS)).toBeInstanceOf(UsageError);
  });
});

describe("fromCommander", () => {
  const err = (code: string, message: string) => new CommanderError(2, code, message);
  test("the suggestion becomes the hint; the rest names the command's --help", () => {
    const e = fromCommander(
      err("commander.unknownOption", "error: unknown option '--jsn'\n(Did you mean --json?)"),
      "ask",
    );
    expect([e.message, e.hint]).toEqual([
      "unknown option '--jsn'",
      "did you mean --json? (chatcli ask --help lists them)",
    ]);
    const m = fromCommander(
      err("commander.missingArgument", "error: missing required argument 'name'"),
      "sessions rm",
    );
    expect(m.hint).toBe("chatcli sessions rm --help shows the usage");
    expect(e.exitCode).toBe(2);
  });

  test("chat's output-format flags get the REPL's own explanation", () => {
    const e = fromCommander(
      err("commander.unknownOption", "error: unknown option '--json'"),
      "chat",
    );
    expect(e.message).toBe("chat is interactive: it has no --json output");
    expect(e.hint).toContain("chatcli ask --json");
  });

  test("commandPath", () => {
    expect(commandPath(["sessions", "rm"], COMMANDS)).toBe("sessions rm");
    expect(commandPath(["ask", "x"], COMMANDS)).toBe("ask");
    expect(commandPath(["nope"], COMMANDS)).toBe("");
  });
});
