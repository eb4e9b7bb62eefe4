// Near-repeats (issue 23): a new result made mostly of an earlier one's lines goes out as a recipe
// built from it; what the recipe rebuilds is the result byte for byte.
import { describe, expect, test } from "bun:test";
import { microcompact, newMicrocompactState } from "../../../lib/history/microcompact.ts";
import { applyDelta, DELTA, deltaPointer } from "../../../lib/history/microcompact-delta.ts";
import { summaryLine } from "../../../lib/history/microcompact-forms.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";
import { call, result, user } from "./build.ts";

const code = (n: number, tag = "v") =>
  Array.from({ length: n }, (_, i) => `    value_${i} = compute_${tag}(${i}, cache[${i * 7}])`);
/** `cat -n` as SWE-agent's viewer prints it. */
const catN = (lines: string[], from = 1) =>
  `Here's the result of running \`cat -n\` on src/mod.py:\n${lines
    .map((l, i) => `${String(from + i).padStart(6)}\t${l}`)
    .join("\n")}\n`;
/** chatcli's read_file. */
const readFile = (lines: string[], from: number, width: number) =>
  lines.map((l, i) => `${String(from + i).padStart(width)} | ${l}`).join("\n");

describe("deltaPointer", () => {
  test("the file viewed again after an edit: a recipe naming the earlier call, renumbered after the insert, rebuilding exactly", () => {
    const before = code(300);
    const after = [...before.slice(0, 120), "    # fixed", "    # fixed too", ...before.slice(121)];
    const base = catN(before);
    const again = catN(after);
    const recipe = deltaPointer(again, [{ id: "toolu_1", content: base }], 400) as string;
    expect(recipe).toBeDefined();
    expect(DELTA.exec(recipe)?.slice(1)).toEqual([
      "toolu_1",
      String(again.split("\n").length),
      String(again.length),
    ]);
    expect(recipe).toContain("+   121\t    # fixed");
    expect(recipe).toContain("(line numbers +1)");
    expect(recipe.length).toBeLessThan(again.length / 10);
    expect(applyDelta(recipe, base)).toBe(again);
  });

  test("SWE-agent's windowed viewer (`N:`, CRLF): the window shown again after an insert is a recipe", () => {
    const window = (lines: string[], from: number, total: number) =>
      `[File: src/marshmallow/fields.py (${total} lines total)]\r\n(${from - 1} more lines above)\r\n${lines
        .map((l, i) => `${from + i}:${l}\r`)
        .join("\n")}\n(${total - from - lines.length + 1} more lines below)`;
    const lines = code(100);
    const base = window(lines, 1457, 1997);
    const edited = [...lines.slice(0, 18), "        # round to nearest int", ...lines.slice(18)];
    const again = window(edited, 1457, 1998);
    const recipe = deltaPointer(again, [{ id: "call_7", content: base }], 400) as string;
    expect(recipe).toContain("+1475:        # round to nearest int\r");
    expect(recipe).toContain("(line numbers +1)");
    expect(applyDelta(recipe, base)).toBe(again);
  });

  test("numbers with leading zeros are not renumbered: no recipe rebuilds a different output", () => {
    const zero = (from: number, lines: string[]) =>
      lines.map((l, i) => `${String(from + i).padStart(4, "0")}\t${l}`).join("\n");
    const lines = code(120);
    const base = zero(1, lines);
    const shifted = zero(1, ["    # inserted", ...lines]);
    const recipe = deltaPointer(shifted, [{ id: "z", content: base }], 400);
    if (recipe !== undefined) expect(applyDelta(recipe, base)).toBe(shifted);
  });

  test("a wider window of a file already shown (read_file's numbering): the shown part by reference", () => {
    const lines = code(200);
    const first = readFile(lines.slice(0, 60), 1, 3);
    const wider = readFile(lines.slice(0, 100), 1, 3);
    const recipe = deltaPointer(wider, [{ id: "c1", content: first }], 400) as string;
    expect(recipe.split("\n")[1]).toBe("=1-60");
    expect(applyDelta(recipe, first)).toBe(wider);
  });

  test("the base sharing most lines is chosen; unrelated or barely smaller outputs get no recipe", () => {
    const lines = code(200);
    const other = catN(code(200, "w"));
    const base = catN(lines);
    const again = catN([...lines.slice(0, 50), "    # new", ...lines.slice(50)]);
    const recipe = deltaPointer(
      again,
      [
        { id: "other", content: other },
        { id: "base", content: base },
      ],
      400,
    ) as string;
    expect(DELTA.exec(recipe)?.[1]).toBe("base");
    expect(deltaPointer(again, [{ id: "other", content: other }], 400)).toBeUndefined();
    // saves less than the minimum: sent as it is
    const small = catN(lines.slice(0, 8));
    expect(deltaPointer(small, [{ id: "b", content: base }], 400)).toBeUndefined();
    // mostly new: sent as it is
    const half = catN([...lines.slice(0, 60), ...code(120, "z")]);
    expect(deltaPointer(half, [{ id: "b", content: base }], 400)).toBeUndefined();
  });

  test("whatever the edits, every recipe rebuilds its output exactly (seeded)", () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let made = 0;
    for (let round = 0; round < 200; round++) {
      const lines = code(20 + Math.floor(rand() * 400), String(round % 3));
      const edited = lines.slice();
      for (let e = Math.floor(rand() * 5); e >= 0; e--) {
        const at = Math.floor(rand() * edited.length);
        const add = Array.from({ length: Math.floor(rand() * 12) }, (_, k) => `  # e${e}.${k}`);
        edited.splice(at, Math.floor(rand() * 6), ...add);
      }
      const view = rand() < 0.5 ? catN : (l: string[]) => readFile(l, 1, rand() < 0.5 ? 3 : 4);
      const base = view(lines);
      const again = view(edited);
      const recipe = deltaPointer(again, [{ id: "b", content: base }], 100);
      if (recipe === undefined) continue;
      made++;
      expect(applyDelta(recipe, base)).toBe(again);
    }
    expect(made).toBeGreaterThan(100);
  });
});

describe("recipes in the loop", () => {
  test("a re-read after an edit goes out as a recipe; its base stays verbatim while the recipe is young; cleared, it keeps the original's size", () => {
    const lines = code(400);
    const base = catN(lines);
    const again = catN([...lines.slice(0, 10), "    # fixed", ...lines.slice(11)]);
    const state = newMicrocompactState();
    let h: ChatMessage[] = [user("task"), call("c0", "view", {}), result("c0", base)];
    h = microcompact(h, 1, {}, { state }).messages;
    h.push(call("c1", "edit", {}), result("c1", "The file src/mod.py has been edited."));
    h = microcompact(h, 2, {}, { state }).messages;
    h.push(call("c2", "view", {}), result("c2", again));
    const mc = microcompact(h, 3, {}, { state });
    expect(mc.delta).toBe(1);
    const sent = mc.messages.find((m) => m.tool_call_id === "c2")?.content as string;
    expect(DELTA.exec(sent)?.[1]).toBe("c0");
    expect(applyDelta(sent, base)).toBe(again);
    expect(state.credit).toBeGreaterThan((again.length - sent.length) / 4 - 1);
    // later turns: c0 is as young as its recipe, so nothing before the recipe is due
    h = mc.messages;
    h.push(call("c3", "run", {}), result("c3", "ok"));
    const next = microcompact(h, 4, {}, { state });
    expect(next.messages.find((m) => m.tool_call_id === "c0")?.content).toBe(base);
    expect(summaryLine(sent)).toBe(
      `[Old tool result cleared — ${again.split("\n").length} lines, ${again.length} chars, text]`,
    );
  });

  test("CHATCLI_MICROCOMPACT_DEDUP_MIN_CHARS=0 turns recipes off with pointers", () => {
    const lines = code(400);
    const h: ChatMessage[] = [
      user("task"),
      call("c0", "view", {}),
      result("c0", catN(lines)),
      call("c1", "view", {}),
      result("c1", catN([...lines.slice(0, 10), "    # fixed", ...lines.slice(11)])),
    ];
    expect(microcompact(h, 2, { CHATCLI_MICROCOMPACT_DEDUP_MIN_CHARS: "0" }).delta).toBe(0);
  });
});
