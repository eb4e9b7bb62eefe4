import { describe, expect, test } from "bun:test";
import { KeyReader, Screen } from "../../../lib/repl/tty.ts";
import { FakeKeyboard, fakeTty } from "./fakes.ts";

describe("KeyReader", () => {
  test("keys queue until read; an aborted read gives way to the next reader", async () => {
    const keyboard = new FakeKeyboard();
    const keys = new KeyReader(() => keyboard.chunks());
    const stop = new AbortController();
    const first = keys.next(stop.signal);
    stop.abort();
    expect(await first).toBeUndefined();
    await keyboard.type("a", "\r");
    expect(await keys.next()).toEqual({ name: "char", text: "a" });
    keys.unread([{ name: "tab" }]);
    expect(await keys.next()).toEqual({ name: "tab" });
    expect(await keys.next()).toEqual({ name: "enter" });
    keyboard.end();
    expect(await keys.next()).toBeUndefined();
    expect(keys.closed).toBe(true);
  });

  test("two readers at once is a bug, not a race", async () => {
    const keyboard = new FakeKeyboard();
    const keys = new KeyReader(() => keyboard.chunks());
    void keys.next();
    expect(() => keys.next()).toThrow("two readers");
  });
});

describe("Screen", () => {
  test("raw mode: newlines become CRLF and bracketed paste is switched on and off", () => {
    const tty = fakeTty();
    const screen = new Screen(tty.ctx);
    screen.write("a\n");
    screen.rawMode(true);
    screen.write("b\nc\r\n");
    screen.rawMode(false);
    expect(tty.screen.raw()).toBe("a\n\u001b[?2004hb\r\nc\r\n\u001b[?2004l");
    expect(tty.keyboard.rawModes).toEqual([true, false]);
  });
});
