/**
 * Asks the runtime to collect what is garbage now. JavaScriptCore lets the heap grow to about twice
 * its live size before it collects, so a command that reads a large file, parses it and writes a
 * transformed copy holds the file's text and the pieces already written long after it needs them:
 * at 75 MB, `chatcli compact` peaked at 4.6× the input (issue 23). `full`: a synchronous full
 * collection — cheap while few objects are live, ~60 ms once 100k messages are; otherwise a light
 * one (Bun.gc(false)).
 */
export function releaseGarbage(full = false): void {
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(full);
}

/**
 * releaseGarbage(true) after one turn of the event loop: a value just handed through promises (a
 * file's text read by an async function) stays referenced by the finished job until then.
 */
export async function releaseGarbageAfterTurn(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  releaseGarbage(true);
}
