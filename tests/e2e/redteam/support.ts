/**
 * The red-team suite's bookkeeping: every case has a stable id and ends as a verdict (held or
 * broken). A file's broken set must equal the ids `known-broken.ts` lists for it — so a fix and a
 * regression both show — and with REDTEAM_STRICT=1 it must be empty. REDTEAM_CONTROLS=1 also runs
 * the controls: the same attacks with the user's own widening (`--sandbox off`, bypass, an explicit
 * allow), which must come out broken, so a class cannot pass because its probe sees nothing.
 * A known-broken reason starting "[intermittent]" marks a race that breaks on some interleavings
 * only: either outcome passes (STRICT still requires it held).
 * REDTEAM_OUT=FILE appends every verdict as a JSON line (the dev note's tables come from it).
 */
import { expect } from "bun:test";
import { appendFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { KNOWN_BROKEN } from "./known-broken.ts";

export interface Verdict {
  id: string;
  broken: boolean;
  /** What was seen when broken (a short excerpt), or why it held. */
  note?: string;
}

export const STRICT = process.env["REDTEAM_STRICT"] === "1";
export const CONTROLS = process.env["REDTEAM_CONTROLS"] === "1";

function record(verdicts: Verdict[], kind: string): void {
  const out = process.env["REDTEAM_OUT"];
  if (!out) return;
  for (const v of verdicts) appendFileSync(out, `${JSON.stringify({ kind, ...v })}\n`);
}

/**
 * Asserts the broken ids among `verdicts` are exactly the known-broken ones (or none, strict).
 * `expected` are the case ids the table declared: each must have exactly one verdict, so a case
 * that silently produced nothing fails the file rather than passing.
 */
export function settle(expected: readonly string[], verdicts: Verdict[]): void {
  record(verdicts, "case");
  const got = verdicts.map((v) => v.id).sort();
  expect(got).toEqual([...expected].sort());
  const broken = verdicts.filter((v) => v.broken);
  const mine = new Set(expected);
  const known = new Set(Object.keys(KNOWN_BROKEN).filter((id) => mine.has(id)));
  const want = STRICT ? new Set<string>() : known;
  // a race that breaks only on some interleavings: either outcome is accepted (never under STRICT)
  const intermittent = (id: string) => !STRICT && KNOWN_BROKEN[id]?.startsWith("[intermittent]");
  const newly = broken.filter((v) => !want.has(v.id));
  const fixed = [...want].filter((id) => !intermittent(id) && !broken.some((v) => v.id === id));
  const show = (v: Verdict) =>
    `${v.id}${v.note ? ` — ${v.note.replace(/\s+/g, " ").slice(0, 140)}` : ""}`;
  expect({ newlyBroken: newly.map(show), nowHolding: fixed.sort() }).toEqual({
    newlyBroken: [],
    nowHolding: [],
  });
}

/** Controls: each must be broken (the harness can see a break of this kind). */
export function settleControls(verdicts: Verdict[]): void {
  record(verdicts, "control");
  expect(verdicts.length).toBeGreaterThan(0);
  const held = verdicts.filter((v) => !v.broken).map((v) => v.id);
  expect({ controlsThatSawNothing: held }).toEqual({ controlsThatSawNothing: [] });
}

/** Writes files under `root` (paths relative to it; parents created). */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const path = join(root, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  }
}

/** Tool results the provider got, by tool_call_id (OpenAI wire), across every request. */
export function toolResults(requests: { body: unknown }[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of requests) {
    const messages = (r.body as { messages?: unknown[] } | null)?.messages ?? [];
    for (const m of messages as Array<Record<string, unknown>>) {
      if (m["role"] !== "tool") continue;
      const content = m["content"];
      const text = typeof content === "string" ? content : JSON.stringify(content);
      out.set(String(m["tool_call_id"]), text);
    }
  }
  return out;
}

/** Splits a script's output into its `@@case ID` sections. */
export function sections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | undefined;
  for (const line of text.split(/\\n|\n/)) {
    const m = /@@case (\S+)/.exec(line);
    if (m) {
      current = m[1] as string;
      out.set(current, "");
    } else if (current) out.set(current, `${out.get(current)}${line}\n`);
  }
  return out;
}

/** A stable slug for ids: lower case, [a-z0-9.-]. */
export const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/^[~/.]+/, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

export interface Site {
  port: number;
  url: string;
  /** `METHOD /path?query {headers} body` of every request, one string each. */
  hits: string[];
  stop(): void;
}

/** A recording HTTP server on 127.0.0.1; `route` may answer (a redirect), else a small page. */
export function recorder(
  route: (u: URL, req: Request) => Response | undefined = () => undefined,
): Site {
  const hits: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      let u: URL;
      try {
        u = new URL(req.url);
      } catch {
        hits.push(`${req.method} ${req.url}`);
        return new Response("page");
      }
      const headers = JSON.stringify(Object.fromEntries(req.headers));
      hits.push(`${req.method} ${u.pathname}${u.search} ${headers} ${await req.text()}`);
      return (
        route(u, req) ??
        new Response("<html><body>page</body></html>", { headers: { "content-type": "text/html" } })
      );
    },
  });
  const port = server.port as number;
  return { port, url: `http://127.0.0.1:${port}`, hits, stop: () => server.stop(true) };
}
