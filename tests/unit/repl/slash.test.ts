import { describe, expect, test } from "bun:test";
import { completeSlash, parseSlash, slashHelp } from "../../../lib/repl/slash.ts";

describe("slash commands", () => {
  test("parse name and arguments; aliases map to the command", () => {
    expect(parseSlash("/compact keep the API decisions")).toEqual({
      name: "compact",
      args: "keep the API decisions",
      known: true,
    });
    expect(parseSlash("  /quit ")).toEqual({ name: "exit", args: "", known: true });
    expect(parseSlash("/nope x")).toEqual({ name: "nope", args: "x", known: false });
    expect(parseSlash("/newsession")).toEqual({ name: "session", args: "new", known: true });
    expect(parseSlash("hello /compact")).toBeUndefined();
    expect(parseSlash("//not a command")).toBeUndefined();
  });

  test("tab completes a unique prefix with a trailing space", () => {
    expect(completeSlash("/comp")).toEqual({ text: "/compact ", candidates: [] });
    expect(completeSlash("/session l")).toEqual({
      text: "/session l",
      candidates: ["load", "list"],
      full: ["/session load ", "/session list "],
    });
    expect(completeSlash("/session sa")).toEqual({ text: "/session save ", candidates: [] });
    expect(completeSlash("/memory rem")).toEqual({ text: "/memory remember ", candidates: [] });
  });

  test("ambiguous prefixes extend to the common part, then list candidates", () => {
    expect(completeSlash("/co")).toEqual({
      text: "/co",
      candidates: ["/compact", "/coder", "/cost", "/context"],
      full: ["/compact ", "/coder ", "/cost ", "/context "],
    });
    expect(completeSlash("/con")).toEqual({ text: "/context ", candidates: [] });
    expect(completeSlash("/c").candidates).toContain("/clear");
  });

  test("nothing to complete outside commands", () => {
    expect(completeSlash("hello")).toEqual({ text: "hello", candidates: [] });
    expect(completeSlash("/agent do it")).toEqual({ text: "/agent do it", candidates: [] });
  });

  test("help lists every command", () => {
    const help = slashHelp();
    for (const name of ["compact", "rewind", "memory", "agent", "coder", "session", "cost"]) {
      expect(help).toContain(`/${name}`);
    }
    expect(help).toContain("/context");
    expect(help).toContain("/model");
    expect(help).toContain("/clear");
    expect(help).toContain("/exit");
  });
});
