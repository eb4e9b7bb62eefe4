import { describe, expect, test } from "bun:test";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openSession } from "../../../lib/history/session.ts";
import { run, tempDir } from "../../support/ctx.ts";
import { asst, user } from "./build.ts";

async function agentRun(home: string, cwd: string) {
  const ctx = { env: { CHATCLI_HOME: home }, cwd, now: () => new Date() };
  const s = await openSession(ctx, { name: "work" });
  s.append(user("first task"), asst("ok"));
  await s.save();
  await s.checkpoint("edit the file");
  await s.snapshotFile("src.txt");
  await writeFile(join(cwd, "src.txt"), "agent version\n");
  await s.snapshotFile("made.txt");
  await writeFile(join(cwd, "made.txt"), "new\n");
  s.append(user("edit the file"), asst("edited"));
  await s.save();
  return ctx.env;
}

describe("chatcli rewind", () => {
  test("--list (text and json), then restore conversation and files", async () => {
    await using home = await tempDir();
    await using repo = await tempDir();
    await writeFile(join(repo.path, "src.txt"), "original\n");
    const env = await agentRun(home.path, repo.path);

    const list = await run(["rewind", "--list"], { env, cwd: repo.path });
    expect(list.code).toBe(0);
    expect(list.out).toContain("Checkpoints of session 'work'");
    expect(list.out).toMatch(/ {4}1 {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {5}2 {6}2 {2}edit the file/);
    const json = JSON.parse((await run(["rewind", "--json"], { env, cwd: repo.path })).out);
    expect(json.session).toBe("work");
    expect(json.checkpoints[0]).toMatchObject({ id: 1, label: "edit the file", message_count: 2 });

    const dry = await run(["rewind", "--to", "1", "--both", "--dry-run"], { env, cwd: repo.path });
    expect(dry.code).toBe(0);
    expect(dry.out).toContain("Would rewind session 'work' to checkpoint 1");
    expect(await readFile(join(repo.path, "src.txt"), "utf8")).toBe("agent version\n");

    const res = await run(["rewind", "--to", "1", "--both", "--json"], { env, cwd: repo.path });
    expect(res.code).toBe(0);
    const envelope = JSON.parse(res.out);
    expect(envelope).toMatchObject({
      command: "rewind",
      session_id: "work",
      exit_code: 0,
      checkpoints: { count: 1, last: 1 },
      rewind: { checkpoint: 1, scope: "both", messages_before: 4, messages_after: 2 },
    });
    expect(envelope.files_changed).toEqual([
      { path: join(repo.path, "src.txt"), change: "modified" },
      { path: join(repo.path, "made.txt"), change: "deleted" },
    ]);
    expect(await readFile(join(repo.path, "src.txt"), "utf8")).toBe("original\n");
    expect(await Bun.file(join(repo.path, "made.txt")).exists()).toBe(false);
    const saved = JSON.parse(await readFile(join(home.path, "sessions", "work.json"), "utf8"));
    expect(saved.chat_history).toEqual([user("first task"), asst("ok")]);
  });

  test("a file edited after the agent → exit 9, nothing restored; --force overrides", async () => {
    await using home = await tempDir();
    await using repo = await tempDir();
    await writeFile(join(repo.path, "src.txt"), "original\n");
    const env = await agentRun(home.path, repo.path);
    await writeFile(join(repo.path, "src.txt"), "my own edit\n");
    const res = await run(["rewind", "--session", "work", "--to", "1", "--code"], {
      env,
      cwd: repo.path,
    });
    expect(res.code).toBe(9);
    expect(res.err).toContain("changed since checkpoint 1");
    expect(await readFile(join(repo.path, "src.txt"), "utf8")).toBe("my own edit\n");
    expect(await Bun.file(join(repo.path, "made.txt")).exists()).toBe(true);
    const dry = await run(["rewind", "--to", "1", "--code", "--dry-run", "--json"], {
      env,
      cwd: repo.path,
    });
    expect(JSON.parse(dry.out)).toMatchObject({ exit_code: 9, terminal_reason: "rewind_conflict" });
    const forced = await run(["rewind", "--to", "1", "--code", "--force"], { env, cwd: repo.path });
    expect(forced.code).toBe(0);
    expect(forced.out).toContain("restored (modified): ");
    expect(await readFile(join(repo.path, "src.txt"), "utf8")).toBe("original\n");
    const saved = JSON.parse(await readFile(join(home.path, "sessions", "work.json"), "utf8"));
    expect(saved.chat_history).toHaveLength(4);
  });

  test("unknown checkpoint or session → exit 2", async () => {
    await using home = await tempDir();
    await using repo = await tempDir();
    await writeFile(join(repo.path, "src.txt"), "original\n");
    const env = await agentRun(home.path, repo.path);
    expect((await run(["rewind", "--to", "7"], { env, cwd: repo.path })).code).toBe(2);
    expect((await run(["rewind", "--session", "nope"], { env, cwd: repo.path })).code).toBe(2);
    expect((await run(["rewind", "--to", "1"], { env, cwd: home.path })).code).toBe(2);
    // Listing with no session for the workspace is an empty list (read-only commands: exit 0).
    const empty = await run(["rewind", "--json"], { env, cwd: home.path });
    expect(empty.code).toBe(0);
    expect(JSON.parse(empty.out)).toEqual({ session: null, checkpoints: [] });
    expect(
      (await run(["rewind", "--to", "1", "--code", "--both"], { env, cwd: repo.path })).code,
    ).toBe(2);
  });
});

describe("chatcli sessions", () => {
  test("list, show, rm with --json; empty list is []", async () => {
    await using home = await tempDir();
    const env = { CHATCLI_HOME: home.path };
    const empty = await run(["sessions", "list", "--json"], { env });
    expect(empty).toMatchObject({ code: 0, out: "[]\n" });
    const s = await openSession({ env, cwd: home.path, now: () => new Date() }, { name: "demo" });
    s.append(user("hello there"), asst("hi"));
    await s.save();
    const list = JSON.parse((await run(["sessions", "list", "--json"], { env })).out);
    expect(list).toEqual([
      expect.objectContaining({ name: "demo", title: "hello there", messages: 2, checkpoints: 0 }),
    ]);
    expect((await run(["sessions", "list"], { env })).out).toMatch(
      /^demo — hello there \(2 msgs, /,
    );
    const show = JSON.parse((await run(["sessions", "show", "demo", "--json"], { env })).out);
    expect(show.messages).toEqual([user("hello there"), asst("hi")]);
    expect((await run(["sessions", "show", "demo"], { env })).out).toContain("[user] hello there");
    expect((await run(["sessions", "show", "nope"], { env })).code).toBe(2);
    const rm = await run(["sessions", "rm", "demo", "--json"], { env });
    expect(JSON.parse(rm.out)).toEqual({ name: "demo", deleted: true });
    expect((await run(["sessions", "rm", "demo"], { env })).code).toBe(2);
  });
});

describe("chatcli sessions list with damaged files", () => {
  test("a session file that does not parse is named on stderr; the others are listed", async () => {
    await using home = await tempDir();
    const env = { CHATCLI_HOME: home.path };
    const s = await openSession({ env, cwd: home.path, now: () => new Date() }, { name: "good" });
    s.append(user("hello"), asst("hi"));
    await s.save();
    const bad = join(home.path, "sessions", "bad.json");
    await writeFile(bad, "{torn");
    await writeFile(join(home.path, "sessions", "notes.json"), '{"x":1}'); // not a session: quiet
    const r = await run(["sessions", "list", "--json"], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).map((e: { name: string }) => e.name)).toEqual(["good"]);
    expect(r.err).toMatch(new RegExp(`^chatcli: warning: skipped ${bad}: .+\\n$`));
    expect(await readFile(bad, "utf8")).toBe("{torn"); // listing never moves or rewrites it
  });
});

describe("long session names", () => {
  test("the longest name that fits (245) saves and reloads; one more is a usage error that writes nothing", async () => {
    await using home = await tempDir();
    const env = { CHATCLI_HOME: home.path };
    const longest = "s".repeat(245);
    expect((await run(["ask", "-m", "mock:echo", "--session", longest, "one"], { env })).code).toBe(
      0,
    );
    expect((await run(["ask", "-m", "mock:echo", "--session", longest, "two"], { env })).code).toBe(
      0,
    );
    const saved = JSON.parse(
      await readFile(join(home.path, "sessions", `${longest}.json`), "utf8"),
    );
    expect(saved.chat_history).toHaveLength(4);
    const tooLong = await run(["ask", "-m", "mock:echo", "--session", `${longest}x`, "hi"], {
      env,
    });
    expect(tooLong.code).toBe(2);
    expect(tooLong.err).toBe(
      "chatcli: invalid session name: 246 characters, at most 245 (its files must fit the file system's 255-byte names)\n",
    );
    expect((await readdir(join(home.path, "sessions"))).sort()).toEqual([
      `${longest}.chatcli`,
      `${longest}.json`,
    ]);
  });
});
