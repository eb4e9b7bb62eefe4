/** The network allowlist's pure parts: entries, matching, address classes, request heads, SNI. */
import { describe, expect, test } from "bun:test";
import { Duplex } from "node:stream";
import { connect as tlsConnect } from "node:tls";
import {
  looksLikeHostList,
  networkFlags,
  separateNetworkFlag,
} from "../../../commands/network-flag.ts";
import { addressClass } from "../../../lib/sandbox/net-address.ts";
import { bridgeEnv, parseBridgeArgs } from "../../../lib/sandbox/net-bridge.ts";
import {
  addressRefusal,
  matchNetEntry,
  type NetEntry,
  normalizeNetHost,
  parseNetAllow,
  parseNetEntry,
} from "../../../lib/sandbox/net-hosts.ts";
import { clientHelloSni, parseProxyRequest } from "../../../lib/sandbox/net-http.ts";

const entry = (text: string) => parseNetEntry(text) as NetEntry;

describe("allowlist entries", () => {
  test("hosts, wildcards, ports and addresses are normalised", () => {
    expect(entry("Registry.NPMJS.org.")).toMatchObject({
      host: "registry.npmjs.org",
      wildcard: false,
      ip: false,
    });
    expect(entry("*.PyPI.org")).toMatchObject({ host: "*.pypi.org", wildcard: true });
    expect(entry("localhost:4873")).toMatchObject({ host: "localhost", port: 4873 });
    expect(entry("[::1]:8080")).toMatchObject({
      host: "::1",
      port: 8080,
      ip: true,
      text: "[::1]:8080",
    });
    expect(entry("0x7f.0.0.1")).toMatchObject({ host: "127.0.0.1", ip: true });
    expect(entry("bücher.example")).toMatchObject({ host: "xn--bcher-kva.example" });
  });

  test("what is not a host is refused with the reason", () => {
    for (const [raw, why] of [
      ["*", /every host/],
      ["https://registry.npmjs.org/", /not a URL/],
      [".example.com", /\*\.example\.com/],
      ["10.0.0.0/8", /CIDR/],
      ["host:0", /not a host/],
      ["host:99999", /not a host/],
      ["*.10.0.0.1", /addresses/],
      ["user@host", /not a host name/],
      ["a b", /not a host/],
    ] as const)
      expect([raw, parseNetEntry(raw)]).toEqual([raw, expect.stringMatching(why)]);
    expect(() => parseNetAllow(["ok.example,*"], "--allow-network")).toThrow(
      /--allow-network: "\*": .*every host/,
    );
  });

  test("items may hold several hosts; duplicates collapse", () => {
    const list = parseNetAllow(["a.example,b.example", " a.example ", "", "b.example:443"], "x");
    expect(list.map((e) => e.text)).toEqual(["a.example", "b.example", "b.example:443"]);
  });
});

describe("matching a request", () => {
  const list = parseNetAllow(
    ["registry.npmjs.org", "*.pypi.org", "127.0.0.1:8080", "localhost", "[::1]:9000"],
    "t",
  );
  const m = (host: string, port = 443) => matchNetEntry(list, { host, port })?.text;

  test("a name matches itself; *. only strict subdomains", () => {
    expect(m("registry.npmjs.org")).toBe("registry.npmjs.org");
    expect(m("evil.registry.npmjs.org")).toBeUndefined();
    expect(m("files.pypi.org")).toBe("*.pypi.org");
    expect(m("pypi.org")).toBeUndefined();
    expect(m("pypi.org.evil.example")).toBeUndefined();
    expect(m("npmjs.org")).toBeUndefined();
  });

  test("an address only when that address is named, for its port", () => {
    expect(m("127.0.0.1", 8080)).toBe("127.0.0.1:8080");
    expect(m("127.0.0.1", 8081)).toBeUndefined();
    expect(m("::1", 9000)).toBe("[::1]:9000");
    expect(m("::1", 80)).toBeUndefined();
    // a name never stands for an address, nor an address for a name
    expect(m("104.16.0.35")).toBeUndefined();
    expect(matchNetEntry(parseNetAllow(["10.0.0.5"], "t"), { host: "x.example", port: 1 })).toBe(
      undefined,
    );
  });

  test("every spelling of an address is the same address", () => {
    for (const spelled of ["2130706433", "0x7f000001", "0177.0.0.1", "127.1"])
      expect([spelled, normalizeNetHost(spelled)]).toEqual([spelled, "127.0.0.1"]);
    expect(normalizeNetHost("[0:0:0:0:0:0:0:1]")).toBe("::1");
    expect(normalizeNetHost("bad host")).toBeUndefined();
  });
});

describe("where a name may lead", () => {
  test("address classes, IPv4 inside IPv6 included", () => {
    expect(addressClass("169.254.169.254")).toBe("metadata");
    expect(addressClass("::ffff:169.254.169.254")).toBe("metadata");
    expect(addressClass("fd00:ec2::254")).toBe("metadata");
    expect(addressClass("fe80::1")).toBe("link-local");
    expect(addressClass("127.0.0.2")).toBe("loopback");
    expect(addressClass("::1")).toBe("loopback");
    expect(addressClass("::ffff:127.0.0.1")).toBe("loopback");
    expect(addressClass("10.1.2.3")).toBe("private");
    expect(addressClass("172.20.0.1")).toBe("private");
    expect(addressClass("192.168.1.1")).toBe("private");
    expect(addressClass("100.64.0.1")).toBe("private");
    expect(addressClass("fd12::1")).toBe("private");
    expect(addressClass("0.0.0.0")).toBe("unspecified");
    expect(addressClass("224.0.0.1")).toBe("reserved");
    expect(addressClass("93.184.216.34")).toBe("public");
    expect(addressClass("2606:4700::1111")).toBe("public");
    expect(addressClass("example.com")).toBeUndefined();
  });

  test("a named name: public yes; loopback only via localhost; private not via a wildcard; metadata never", () => {
    const named = entry("npm.corp.example");
    const wild = entry("*.corp.example");
    expect(addressRefusal(named, "104.16.0.35")).toBeUndefined();
    expect(addressRefusal(named, "10.0.0.5")).toBeUndefined();
    expect(addressRefusal(wild, "10.0.0.5")).toMatch(/private address, through the wildcard/);
    expect(addressRefusal(named, "127.0.0.1")).toMatch(/loopback.*--allow-network 127\.0\.0\.1/);
    expect(addressRefusal(entry("localhost"), "127.0.0.1")).toBeUndefined();
    expect(addressRefusal(entry("localhost"), "::1")).toBeUndefined();
    expect(addressRefusal(named, "169.254.169.254")).toMatch(/metadata/);
    expect(addressRefusal(named, "::ffff:a9fe:a9fe")).toMatch(/metadata/);
    expect(addressRefusal(named, "0.0.0.0")).toMatch(/unspecified/);
    // an address the user named is theirs to reach
    expect(addressRefusal(entry("169.254.169.254"), "169.254.169.254")).toBeUndefined();
  });
});

describe("proxy request heads", () => {
  const req = (text: string) => parseProxyRequest(Buffer.from(text, "latin1"));

  test("CONNECT host:port", () => {
    expect(req("CONNECT Registry.npmjs.org:443 HTTP/1.1\r\nHost: x\r\n\r\nHELLO")).toMatchObject({
      kind: "connect",
      host: "registry.npmjs.org",
      port: 443,
      rest: Buffer.from("HELLO"),
    });
    expect(req("CONNECT registry.npmjs.org HTTP/1.1\r\n\r\n")).toMatchObject({ status: 400 });
    expect(req("CONNECT user:pw@host:443 HTTP/1.1\r\n\r\n")).toMatchObject({ status: 400 });
    expect(req("CONNECT host:443 HTTP/1.1\r\n")).toBe("more");
  });

  test("an absolute http URL becomes origin-form, without hop-by-hop or proxy headers", () => {
    const r = req(
      "GET http://Example.com:8080/a/b?q=1 HTTP/1.1\r\nHost: example.com:8080\r\nProxy-Authorization: Basic eA==\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive, X-Drop\r\nX-Drop: 1\r\nAccept: */*\r\n\r\nBODY",
    );
    expect(r).toMatchObject({ kind: "forward", host: "example.com", port: 8080 });
    if (r === "more" || r.kind !== "forward") throw new Error("not forward");
    expect(r.head.toString()).toBe(
      "GET /a/b?q=1 HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n",
    );
    expect(r.rest.toString()).toBe("BODY");
    expect(req("GET http://x.example HTTP/1.0\r\n\r\n")).toMatchObject({ port: 80 });
  });

  test("anything else is refused", () => {
    expect(req("GET / HTTP/1.1\r\nHost: x\r\n\r\n")).toMatchObject({ status: 400 });
    expect(req("GET https://x.example/ HTTP/1.1\r\n\r\n")).toMatchObject({
      why: "https goes through CONNECT",
    });
    expect(req("GET http://u:p@x.example/ HTTP/1.1\r\n\r\n")).toMatchObject({
      why: "user info in the URL",
    });
    expect(req("SSH-2.0-OpenSSH\r\n\r\n")).toMatchObject({ status: 400 });
    expect(req(`GET http://x.example/ HTTP/1.1\r\nA: ${"x".repeat(70_000)}`)).toMatchObject({
      status: 431,
    });
  });
});

/** The first bytes a real TLS client sends for `servername`. */
async function clientHello(servername?: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let got: () => void = () => {};
  const done = new Promise<void>((r) => {
    got = r;
  });
  const sink = new Duplex({
    read() {},
    write(chunk, _enc, cb) {
      chunks.push(Buffer.from(chunk));
      got();
      cb();
    },
  });
  const socket = tlsConnect({ socket: sink, ...(servername ? { servername } : {}) });
  socket.on("error", () => {});
  await done;
  socket.destroy();
  return Buffer.concat(chunks);
}

describe("TLS server name", () => {
  test("found in a real ClientHello, whatever the chunking", async () => {
    const hello = await clientHello("files.pythonhosted.org");
    expect(clientHelloSni(hello)).toEqual({ tls: true, sni: "files.pythonhosted.org" });
    expect(clientHelloSni(hello.subarray(0, 3))).toBe("more");
    expect(clientHelloSni(hello.subarray(0, hello.length - 1))).toBe("more");
  });

  test("none named, not TLS, or cut across records", async () => {
    expect(clientHelloSni(await clientHello())).toEqual({ tls: true });
    expect(clientHelloSni(Buffer.from("GET / HTTP/1.1\r\n"))).toEqual({ tls: false });
    const hello = await clientHello("a.example");
    // the same hello claiming a longer body than its record holds
    const cut = Buffer.from(hello);
    cut.writeUInt8(0xff, 6);
    expect(clientHelloSni(cut)).toEqual({ tls: true, cut: true });
  });
});

describe("the bridge's side", () => {
  test("arguments", () => {
    expect(parseBridgeArgs(["--", "sh", "-c", "x"])).toEqual({
      command: ["sh", "-c", "x"],
      loopbackViaProxy: false,
    });
    expect(parseBridgeArgs(["--loopback-via-proxy", "--", "true"])?.loopbackViaProxy).toBe(true);
    expect(parseBridgeArgs(["sh"])).toBeUndefined();
    expect(parseBridgeArgs(["--other", "--", "sh"])).toBeUndefined();
  });

  test("every proxy variable points at the bridge; NO_PROXY is the sandbox's own loopback", () => {
    const env = bridgeEnv(
      { PATH: "/bin", NO_PROXY: ".corp.example", HTTPS_PROXY: "http://corp:3128" },
      4242,
      false,
    );
    for (const k of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"])
      expect([k, env[k]]).toEqual([k, "http://127.0.0.1:4242"]);
    expect(env["npm_config_https_proxy"]).toBe("http://127.0.0.1:4242");
    expect(env["NO_PROXY"]).toBe("localhost,127.0.0.1,::1");
    expect(env["no_proxy"]).toBe("localhost,127.0.0.1,::1");
    expect(env["NODE_USE_ENV_PROXY"]).toBe("1");
    expect(env["PATH"]).toBe("/bin");
    // the host's loopback is named: localhost must go through the proxy
    expect(bridgeEnv({}, 1, true)["NO_PROXY"]).toBe("");
  });
});

describe("--allow-network on the command line", () => {
  test("a host list is taken; a prompt stays a prompt", () => {
    for (const w of [
      "registry.npmjs.org",
      "a.example,b.example",
      "*.pypi.org",
      "localhost",
      "127.0.0.1:8080",
      "[::1]:9",
      "::1",
    ])
      expect([w, looksLikeHostList(w)]).toEqual([w, true]);
    for (const w of ["fix the tests", "fix", "hello,world", ""])
      expect([w, looksLikeHostList(w)]).toEqual([w, false]);
    expect(separateNetworkFlag(["agent", "--allow-network", "fix the tests"])).toEqual([
      "agent",
      "--allow-network=",
      "fix the tests",
    ]);
    expect(separateNetworkFlag(["agent", "--allow-network", "a.example", "go"])).toEqual([
      "agent",
      "--allow-network",
      "a.example",
      "go",
    ]);
    expect(separateNetworkFlag(["agent", "--", "--allow-network", "x"])).toEqual([
      "agent",
      "--",
      "--allow-network",
      "x",
    ]);
  });

  test("bare, hosts, or both", () => {
    expect(networkFlags(undefined)).toEqual({ allowNetwork: false, allowNetworkHosts: [] });
    expect(networkFlags(true)).toEqual({ allowNetwork: true, allowNetworkHosts: [] });
    expect(networkFlags(["a.example", ""])).toEqual({
      allowNetwork: true,
      allowNetworkHosts: ["a.example"],
    });
  });
});
