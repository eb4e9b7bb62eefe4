import { describe, expect, test } from "bun:test";
import { factId } from "../../../lib/memory/facts.ts";
import { parseToolInput, runMemoryTool } from "../../../lib/memory/tool.ts";
import { memoryHome } from "./support.ts";

const NOW = new Date("2026-08-02T12:00:00Z");

describe("memory tool", () => {
  test("envelope forms: {cmd,args}, flat JSON, argv", () => {
    expect(parseToolInput({ cmd: "remember", args: { content: "x" } })).toEqual({
      cmd: "remember",
      args: { content: "x" },
    });
    expect(parseToolInput('{"cmd":"Recall","query":"go"}')).toEqual({
      cmd: "recall",
      args: { query: "go" },
    });
    expect(parseToolInput('remember --content "uses bun" --category pattern --force')).toEqual({
      cmd: "remember",
      args: { content: "uses bun", category: "pattern", force: true },
    });
  });

  test("remember / recall / forget / profile results are the model-facing strings", async () => {
    await using home = await memoryHome();
    const o = { env: home.env, now: NOW, workspace: "/src/app" };
    expect(await runMemoryTool(o, { cmd: "recall", args: {} })).toEqual({
      text: "No memory stored yet.",
      isError: false,
      wrote: false,
    });
    expect(
      (await runMemoryTool(o, { cmd: "add", args: { content: "The app deploys with fly.io" } }))
        .text,
    ).toBe("Remembered: The app deploys with fly.io");
    expect(
      (
        await runMemoryTool(o, {
          cmd: "remember",
          args: { content: "the app deploys with FLY.IO" },
        })
      ).text,
    ).toBe("Already in memory (no change).");
    expect((await runMemoryTool(o, { cmd: "remember", args: {} })).text).toBe(
      '@memory remember: "content" is required',
    );
    const found = await runMemoryTool(o, { cmd: "search", args: { query: "how does it deploy?" } });
    expect(found.text).toBe("## Long-term Memory\n\n- [general] The app deploys with fly.io");
    expect(
      (
        await runMemoryTool(o, {
          cmd: "profile",
          args: { fields: { name: "Ana", skills: ["Go", "SQL"] } },
        })
      ).text,
    ).toBe("Profile updated: name, skills");
    expect(
      (await runMemoryTool(o, { cmd: "profile", args: { fields: { name: "Ana" } } })).text,
    ).toStartWith("No profile change");
    // The model forgets by id only: a text lists the candidates with their ids, removes nothing.
    const id = factId("The app deploys with fly.io");
    const listed = await runMemoryTool(o, { cmd: "forget", args: { match: "fly.io" } });
    expect(listed).toEqual({
      text: `@memory forget: nothing removed — forget takes a fact id. Facts matching "fly.io":\n- ${id}: [general] The app deploys with fly.io\nCall forget with {"id":"<id>"} for each fact to remove.`,
      isError: true,
      wrote: false,
    });
    expect(await runMemoryTool(o, { cmd: "forget", args: { id } })).toEqual({
      text: `Removed 1 fact (${id}).`,
      isError: false,
      wrote: true,
    });
    expect((await runMemoryTool(o, { cmd: "forget", args: { id } })).text).toBe(
      `@memory forget: no fact has the id "${id}" (nothing removed).`,
    );
    expect((await runMemoryTool(o, { cmd: "dance" })).isError).toBe(true);
  });
});
