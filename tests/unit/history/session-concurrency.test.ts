import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { openSession } from "../../../lib/history/session.ts";
import { tempDir } from "../../support/ctx.ts";
import { asst, call, result, user } from "./build.ts";

function ctxFor(home: string) {
  return { env: { CHATCLI_HOME: join(home, ".chatcli") }, cwd: home, now: () => new Date() };
}

async function onDisk(home: string, name: string): Promise<string[]> {
  const text = await readFile(join(home, ".chatcli", "sessions", `${name}.json`), "utf8");
  return JSON.parse(text).chat_history.map((m: { content: string }) => m.content);
}

test("two processes answer in the same session at once: both turns are kept, in save order", async () => {
  await using dir = await tempDir();
  const ctx = ctxFor(dir.path);
  const first = await openSession(ctx, { name: "ci" });
  first.append(user("q0"), asst("a0"));
  await first.save();
  const a = await openSession(ctx, { name: "ci" });
  const b = await openSession(ctx, { name: "ci" });
  a.replaceMessages([...a.messages, user("qa"), asst("aa")]);
  b.replaceMessages([...b.messages, user("qb"), asst("ab")]);
  await a.save();
  await b.save();
  expect(await onDisk(dir.path, "ci")).toEqual(["q0", "a0", "qa", "aa", "qb", "ab"]);
  expect(b.messages.map((m) => m.content)).toEqual(["q0", "a0", "qa", "aa", "qb", "ab"]);
  // Each side keeps saving what it adds later, without duplicating what it merged.
  a.append(user("qa2"), asst("aa2"));
  await a.save();
  expect(await onDisk(dir.path, "ci")).toEqual(["q0", "a0", "qa", "aa", "qb", "ab", "qa2", "aa2"]);
});

test("two new sessions of the same name created at once keep both first turns", async () => {
  await using dir = await tempDir();
  const ctx = ctxFor(dir.path);
  const a = await openSession(ctx, { name: "fresh" });
  const b = await openSession(ctx, { name: "fresh" });
  a.append(user("qa"), call("c1", "read_file", { path: "x" }), result("c1", "body"), asst("aa"));
  b.append(user("qb"), asst("ab"));
  await a.save();
  await b.save();
  expect(await onDisk(dir.path, "fresh")).toEqual(["qa", "", "body", "aa", "qb", "ab"]);
});

test("a history rewritten by another process (compaction) is not merged into: the later save wins", async () => {
  await using dir = await tempDir();
  const ctx = ctxFor(dir.path);
  const first = await openSession(ctx, { name: "c" });
  first.append(user("q0"), asst("a0"), user("q1"), asst("a1"));
  await first.save();
  const a = await openSession(ctx, { name: "c" });
  const b = await openSession(ctx, { name: "c" });
  a.replaceMessages([user("[summary]"), asst("ok")]);
  await a.save();
  b.append(user("qb"), asst("ab"));
  await b.save();
  expect(await onDisk(dir.path, "c")).toEqual(["q0", "a0", "q1", "a1", "qb", "ab"]);
});

test("a process that already re-read the other's turns does not duplicate them", async () => {
  await using dir = await tempDir();
  const ctx = ctxFor(dir.path);
  const a = await openSession(ctx, { name: "r" });
  const b = await openSession(ctx, { name: "r" });
  a.append(user("qa"), asst("aa"));
  await a.save();
  b.replaceMessages([user("qa"), asst("aa"), user("qb"), asst("ab")]); // the REPL adopted a's turn
  await b.save();
  expect(await onDisk(dir.path, "r")).toEqual(["qa", "aa", "qb", "ab"]);
});
