import { expect, test } from "bun:test";
import { refusedAddress, refusedHost } from "../../../lib/agent/tools/net-guard.ts";
import { webFetchTool } from "../../../lib/agent/tools/web-fetch.ts";
import { toolCtx } from "./support.ts";

test("metadata and link-local addresses are refused in every spelling", () => {
  for (const a of [
    "169.254.169.254",
    "169.254.0.1",
    "100.100.100.200",
    "168.63.129.16",
    "fe80::1",
    "FE80::abcd%eth0",
    "::ffff:169.254.169.254",
    "::ffff:a9fe:a9fe",
    "0:0:0:0:0:ffff:a9fe:a9fe",
    "::169.254.169.254",
    "64:ff9b::169.254.169.254",
    "64:ff9b::a9fe:a9fe",
    "2002:a9fe:a9fe::1",
    "fd00:ec2::254",
    "fd20:ce::254",
    "0.0.0.0",
    "::",
  ])
    expect([a, refusedAddress(a)]).toEqual([a, expect.any(String)]);
  for (const a of [
    "127.0.0.1",
    "::1",
    "93.184.216.34",
    "2606:2800:220:1::",
    "10.0.0.1",
    "64:ff9b::808:808",
  ])
    expect([a, refusedAddress(a)]).toEqual([a, undefined]);
});

test("a name is judged by every address it resolves to", async () => {
  const lookup = async (host: string) =>
    host === "rebind.example" ? ["93.184.216.34", "::ffff:169.254.169.254"] : ["93.184.216.34"];
  expect(await refusedHost("rebind.example", lookup)).toContain(
    "resolves to ::ffff:169.254.169.254",
  );
  expect(await refusedHost("fine.example", lookup)).toBeUndefined();
  expect(await refusedHost("[fe80::1]", lookup)).toContain("link-local");
});

test("web_fetch checks the resolved address of the first URL and of every redirect, before connecting", async () => {
  const hits: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      hits.push(new URL(req.url).pathname);
      return Response.redirect("http://metadata.attacker.example/latest", 302);
    },
  });
  try {
    const lookup = async (host: string) =>
      host === "metadata.attacker.example" ? ["64:ff9b::a9fe:a9fe"] : ["127.0.0.1"];
    const fetches: string[] = [];
    const ctx = toolCtx("/tmp", {
      lookup,
      fetch: ((input: string, init?: RequestInit) => {
        fetches.push(String(input));
        return fetch(String(input).replace("site.example", `127.0.0.1:${server.port}`), init);
      }) as typeof fetch,
    });
    const r = await webFetchTool.execute({ url: "http://site.example/start" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.output).toContain("redirected from http://site.example/start");
    expect(r.output).toContain("metadata.attacker.example resolves to 64:ff9b::a9fe:a9fe");
    expect(fetches).toEqual(["http://site.example/start"]);
    expect(hits).toEqual(["/start"]);
  } finally {
    server.stop(true);
  }
});
