import { describe, expect, test } from "bun:test";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  appendInputHistory,
  decodeHistory,
  encodeHistoryEntry,
  goInputHistoryPath,
  inputHistoryPath,
  loadInputHistory,
  redactHistoryLine,
} from "../../../lib/repl/history-file.ts";
import { tempDir } from "../../support/ctx.ts";

describe("input history file", () => {
  test("lives in ~/.chatcli unless HISTORY_FILE says otherwise; can be disabled", () => {
    expect(inputHistoryPath({ HOME: "/h" })).toBe("/h/.chatcli/.chatcli_history");
    expect(inputHistoryPath({ HOME: "/h", CHATCLI_HOME: "/c" })).toBe("/c/.chatcli_history");
    expect(inputHistoryPath({ HOME: "/h", HISTORY_FILE: "~/hist" })).toBe("/h/hist");
    expect(inputHistoryPath({ HOME: "/h", CHATCLI_DISABLE_HISTORY: "true" })).toBeUndefined();
  });

  test("the Go ChatCLI's ./.chatcli_history is recalled first (older), without repeats", async () => {
    await using dir = await tempDir();
    expect(goInputHistoryPath({ HOME: "/h" }, "/w")).toBe("/w/.chatcli_history");
    expect(goInputHistoryPath({ HOME: "/h", HISTORY_FILE: "/x" }, "/w")).toBeUndefined();
    expect(goInputHistoryPath({ CHATCLI_DISABLE_HISTORY: "true" }, "/w")).toBeUndefined();
    const own = join(dir.path, "own");
    const go = join(dir.path, "go");
    await writeFile(go, "go one\nshared\n");
    expect(await loadInputHistory(own, go)).toEqual(["go one", "shared"]);
    await writeFile(own, "shared\nmine\n");
    expect(await loadInputHistory(own, go)).toEqual(["go one", "shared", "mine"]);
    expect(await loadInputHistory(own, join(dir.path, "missing"))).toEqual(["shared", "mine"]);
  });

  test("appends redacted one-line entries, 0600, and loads them back", async () => {
    await using dir = await tempDir();
    const path = join(dir.path, "sub", "hist");
    const env = { MY_API_KEY: "supersecretvalue123" };
    await appendInputHistory(path, ["first"], env, new Date());
    await appendInputHistory(
      path,
      [
        "use sk-abcdefghijklmnopqrstuvwxyz123456 now",
        "password=hunter22 ok",
        "a\nb",
        "supersecretvalue123",
      ],
      env,
      new Date(),
    );
    expect(await readFile(path, "utf8")).toBe(
      "first\nuse [REDACTED:openai_key] now\npassword=[REDACTED] ok\na\\\nb\n[REDACTED:configured_key]\n",
    );
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await loadInputHistory(path)).toEqual([
      "first",
      "use [REDACTED:openai_key] now",
      "password=[REDACTED] ok",
      "a\nb",
      "[REDACTED:configured_key]",
    ]);
    expect(await loadInputHistory(join(dir.path, "missing"))).toEqual([]);
  });

  test("multi-line entries stay multi-line; a line's own trailing backslashes survive", () => {
    const entries = ["one\ntwo\nthree", "ends in \\", "two \\\\", "x\\\ny", "", "plain"];
    const text = `${entries.map(encodeHistoryEntry).join("\n")}\n`;
    expect(text.split("\n").length).toBe(10); // one line per physical line, as the Go tool expects
    expect(decodeHistory(text)).toEqual(entries);
    // a Go-written file (no continuation) reads as one entry per line
    expect(decodeHistory("ls\ngit status\n")).toEqual(["ls", "git status"]);
  });

  test("rotates at HISTORY_MAX_SIZE keeping a .bak and the tail", async () => {
    await using dir = await tempDir();
    const path = join(dir.path, "hist");
    await writeFile(path, Array.from({ length: 6000 }, (_, i) => `line ${i}`).join("\n"));
    await appendInputHistory(
      path,
      ["new"],
      { HISTORY_MAX_SIZE: "1KB" },
      new Date(1_700_000_000_000),
    );
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    expect(lines).toHaveLength(5001);
    expect(lines[0]).toBe("line 1000");
    expect(lines.at(-1)).toBe("new");
    expect(await readdir(dir.path)).toContain("hist.bak-1700000000");
  });

  test("token: and api_key= style values are hidden", () => {
    expect(redactHistoryLine("token: abc123 and API_KEY=xyz;")).toBe(
      "token: [REDACTED] and API_KEY=[REDACTED];",
    );
  });
});
