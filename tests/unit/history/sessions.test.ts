import { describe, expect, test } from "bun:test";
import { lstat, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MAX_CHECKPOINTS } from "../../../lib/history/checkpoints.ts";
import { applyRewind, planRewind } from "../../../lib/history/rewind.ts";
import { openSession } from "../../../lib/history/session.ts";
import {
  deleteSession,
  latestSessionForWorkspace,
  listSessions,
} from "../../../lib/history/session-list.ts";
import { tempDir } from "../../support/ctx.ts";
import { asst, user } from "./build.ts";

function ctxFor(home: string, cwd = home) {
  let t = Date.parse("2026-03-01T10:00:00Z");
  const now = () => {
    t += 1000;
    return new Date(t);
  };
  return { env: { CHATCLI_HOME: join(home, ".chatcli") }, cwd, now };
}

describe("sessions", () => {
  test("v2 file: 0600, Go layout, persists across processes", async () => {
    await using dir = await tempDir();
    const ctx = ctxFor(dir.path);
    const s = await openSession(ctx, { name: "proj" });
    expect(s.isNew).toBe(true);
    s.append(user("  como   configurar o proxy\n corporativo  "), asst("assim"));
    await s.save();
    const path = join(dir.path, ".chatcli", "sessions", "proj.json");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const text = await readFile(path, "utf8");
    expect(JSON.parse(text)).toEqual({
      version: 2,
      title: "como configurar o proxy corporativo",
      chat_history: [
        { role: "user", content: "  como   configurar o proxy\n corporativo  " },
        { role: "assistant", content: "assim" },
      ],
    });
    expect(text).toStartWith('{\n  "version": 2,\n  "title"');
    const again = await openSession(ctx, { name: "proj" });
    expect(again.isNew).toBe(false);
    expect(again.messages).toEqual(s.messages);
    const files = await readdir(join(dir.path, ".chatcli", "sessions"));
    expect(files.filter((f) => f.endsWith(".json"))).toEqual(["proj.json"]);
  });

  test("legacy files load and merge; unknown keys survive a rewrite", async () => {
    await using dir = await tempDir();
    const ctx = ctxFor(dir.path);
    const sessions = join(dir.path, ".chatcli", "sessions");
    await mkdir(sessions, { recursive: true });
    await writeFile(join(sessions, "old.json"), JSON.stringify([user("a"), asst("b")]));
    await writeFile(
      join(sessions, "modes.json"),
      JSON.stringify({
        chat_history: [user("chat")],
        agent_history: [{ role: "system", content: "agent sys" }, user("agent task")],
        coder_history: [asst("coder reply")],
        future_key: { x: 1 },
      }),
    );
    expect((await openSession(ctx, { name: "old" })).messages).toEqual([user("a"), asst("b")]);
    const modes = await openSession(ctx, { name: "modes" });
    expect(modes.messages.map((m) => m.content)).toEqual(["chat", "agent task", "coder reply"]);
    await modes.save();
    const saved = JSON.parse(await readFile(join(sessions, "modes.json"), "utf8"));
    expect(Object.keys(saved)).toEqual(["version", "title", "chat_history", "future_key"]);
    expect(saved.future_key).toEqual({ x: 1 });
  });

  test("invalid names are refused; secrets are redacted on disk", async () => {
    await using dir = await tempDir();
    const ctx = ctxFor(dir.path);
    await expect(openSession(ctx, { name: "../evil" })).rejects.toMatchObject({ exitCode: 2 });
    await expect(openSession(ctx, { name: "-x" })).rejects.toMatchObject({ exitCode: 2 });
    const s = await openSession(ctx, { name: "s" });
    s.append(user(`my key is sk-ant-${"a".repeat(30)}`));
    await s.save();
    const text = await readFile(join(dir.path, ".chatcli", "sessions", "s.json"), "utf8");
    expect(text).toContain("[REDACTED:anthropic_key]");
  });

  test("ephemeral writes nothing; continue picks the latest session of the workspace", async () => {
    await using dir = await tempDir();
    const ctx = ctxFor(dir.path, join(dir.path, "repo"));
    const e = await openSession(ctx, { ephemeral: true });
    e.append(user("x"));
    await e.checkpoint();
    await e.save();
    expect(e.name).toBeNull();
    expect(await readdir(dir.path)).toEqual([]);
    const a = await openSession(ctx, {});
    expect(a.name).toMatch(/^autosave-\d{8}-\d{6}$/);
    a.append(user("first"));
    await a.save();
    const b = await openSession(ctx, { name: "second" });
    b.append(user("second"));
    await b.save();
    const other = await openSession({ ...ctx, cwd: dir.path }, { name: "elsewhere" });
    other.append(user("other"));
    await other.save();
    expect(await latestSessionForWorkspace(ctx, join(dir.path, "repo"))).toBe("second");
    const c = await openSession(ctx, { continueLatest: true });
    expect(c.name).toBe("second");
    expect(c.messages).toEqual([user("second")]);
    const list = await listSessions(ctx);
    expect(list.map((s) => s.name)).toEqual([a.name as string, "elsewhere", "second"]);
    expect(list[2]).toMatchObject({
      title: "second",
      messages: 1,
      workspace: join(dir.path, "repo"),
    });
    expect(await deleteSession(ctx, "second")).toBe(true);
    expect(await deleteSession(ctx, "second")).toBe(false);
    expect(await readdir(join(dir.path, ".chatcli", "sessions"))).not.toContain("second.chatcli");
  });
});

describe("checkpoints and rewind", () => {
  test("rewind restores byte-identical history, in a later process", async () => {
    await using dir = await tempDir();
    const ctx = ctxFor(dir.path);
    const path = join(dir.path, ".chatcli", "sessions", "r.json");
    const s = await openSession(ctx, { name: "r" });
    s.append(user("turn one"), asst("reply one"));
    await s.save();
    const before = await readFile(path);
    await s.checkpoint("turn two");
    s.append(user("turn two"), asst("reply two"));
    await s.save();
    await s.checkpoint("turn three");
    s.append(user("turn three"), asst("reply three"));
    await s.save();

    const later = await openSession(ctx, { name: "r" });
    const list = await later.listCheckpoints();
    expect(list.map((c) => [c.id, c.label, c.message_count])).toEqual([
      [1, "turn two", 2],
      [2, "turn three", 4],
    ]);
    const plan = await planRewind(later, 1, "conversation");
    expect(plan.removedCheckpoints).toEqual([2]);
    await applyRewind(later, plan);
    expect(await readFile(path)).toEqual(before);
    expect((await later.listCheckpoints()).map((c) => c.id)).toEqual([1]);
    const c3 = await later.checkpoint("again");
    expect(c3.id).toBe(3);
  });

  test("files: restored and created files removed; untracked files untouched; conflicts refuse", async () => {
    await using dir = await tempDir();
    const ctx = ctxFor(dir.path);
    const edited = join(dir.path, "a.txt");
    const created = join(dir.path, "new.txt");
    const untracked = join(dir.path, "mine.txt");
    await writeFile(edited, "original\n", { mode: 0o640 });
    const s = await openSession(ctx, { name: "f" });
    s.append(user("edit"));
    await s.checkpoint("edit files");
    await s.snapshotFile("a.txt");
    await writeFile(edited, "changed by tool\n");
    await s.snapshotFile(created);
    await writeFile(created, "tool made me\n");
    await s.snapshotFile("a.txt");
    await writeFile(edited, "changed twice\n");
    s.append(asst("done"));
    await s.save();
    await writeFile(untracked, "user file\n");

    const later = await openSession(ctx, { name: "f" });
    const dry = await planRewind(later, 1, "both");
    expect(dry.files.map((f) => [f.path, f.action, f.change, f.conflict])).toEqual([
      [edited, "restore", "modified", false],
      [created, "delete", "deleted", false],
    ]);
    await writeFile(edited, "user edited after the agent\n");
    const conflicted = await planRewind(later, 1, "both");
    await expect(applyRewind(later, conflicted)).rejects.toMatchObject({
      reason: "rewind_conflict",
      exitCode: 9,
    });
    expect(await readFile(edited, "utf8")).toBe("user edited after the agent\n");
    await applyRewind(later, conflicted, { force: true });
    expect(await readFile(edited, "utf8")).toBe("original\n");
    expect((await stat(edited)).mode & 0o777).toBe(0o640);
    expect(await Bun.file(created).exists()).toBe(false);
    expect(await readFile(untracked, "utf8")).toBe("user file\n");
    expect(later.messages).toEqual([user("edit")]);
  });

  test("files: a file a command replaced by a link out of the workspace is restored as a file, the target untouched", async () => {
    await using dir = await tempDir();
    await using outside = await tempDir();
    const ctx = ctxFor(dir.path);
    const edited = join(dir.path, "a.txt");
    const victim = join(outside.path, ".bashrc");
    await writeFile(edited, "original\n");
    await writeFile(victim, "# the user's\n");
    const s = await openSession(ctx, { name: "link" });
    s.append(user("edit"));
    await s.checkpoint("edit");
    await s.snapshotFile("a.txt");
    await rm(edited);
    await symlink(victim, edited);
    await s.save();
    const later = await openSession(ctx, { name: "link" });
    await applyRewind(later, await planRewind(later, 1, "code"), { force: true });
    expect(await readFile(victim, "utf8")).toBe("# the user's\n");
    expect((await lstat(edited)).isSymbolicLink()).toBe(false);
    expect(await readFile(edited, "utf8")).toBe("original\n");
  });

  test("at most 20 checkpoints, oldest dropped, shared objects collected", async () => {
    await using dir = await tempDir();
    const ctx = ctxFor(dir.path);
    const s = await openSession(ctx, { name: "cap" });
    for (let i = 0; i < 25; i++) {
      s.append(user(`turn ${i}`));
      await s.checkpoint();
    }
    const list = await s.listCheckpoints();
    expect(list).toHaveLength(MAX_CHECKPOINTS);
    expect(list[0]?.id).toBe(6);
    expect(list.at(-1)?.label).toBe("turn 24");
    const objects = join(dir.path, ".chatcli", "sessions", "cap.chatcli", "objects");
    let count = 0;
    for (const fan of await readdir(objects)) count += (await readdir(join(objects, fan))).length;
    expect(count).toBe(25);
  });
});

test("concurrent checkpoints from two processes get distinct ids", async () => {
  await using dir = await tempDir();
  const ctx = ctxFor(dir.path);
  const a = await openSession(ctx, { name: "c" });
  const b = await openSession(ctx, { name: "c" });
  a.append(user("a"));
  b.append(user("b"));
  await Promise.all([a.checkpoint(), b.checkpoint(), a.checkpoint(), b.checkpoint()]);
  const ids = (await a.listCheckpoints()).map((c) => c.id).sort();
  expect(ids).toEqual([1, 2, 3, 4]);
});

test("a corrupt session file is quarantined and reported, never overwritten", async () => {
  await using dir = await tempDir();
  const ctx = ctxFor(dir.path);
  const sessions = join(dir.path, ".chatcli", "sessions");
  await mkdir(sessions, { recursive: true });
  await writeFile(join(sessions, "bad.json"), "{oops");
  const s = await openSession(ctx, { name: "bad" });
  expect(s.isNew).toBe(true);
  expect(s.warnings[0]).toMatchObject({ code: "session_quarantined" });
  expect(s.warnings[0]?.message).toContain("bad.json.corrupt");
  expect(await readFile(join(sessions, "bad.json.corrupt"), "utf8")).toBe("{oops");
  await writeFile(join(sessions, "cost.json"), '{"total": 3}');
  await expect(openSession(ctx, { name: "cost" })).rejects.toMatchObject({ exitCode: 2 });
});
