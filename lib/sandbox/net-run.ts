/**
 * A run's network allowlist for sandboxed commands (`--allow-network HOST,…`, `sandbox.allow_network`):
 * each command that may use the network is started as `chatcli __net-bridge -- COMMAND` inside its
 * sandbox, and gets its own proxy (net-proxy.ts) on the host, on the pipe the one door hands over.
 * What was allowed and refused comes back as the command's `[network]` lines; a refusal is also
 * reported once per host to the user, with the flag that would allow it.
 */
import type { Duplex } from "node:stream";
import { ConfigError } from "../core/errors.ts";
import type { KnownSecret } from "../core/secrets.ts";
import { addressClass } from "./net-address.ts";
import { bridgeArgs } from "./net-bridge.ts";
import { type NetEntry, parseNetAllow } from "./net-hosts.ts";
import { hostPort, type NetEvent, type NetLookup, NetProxy } from "./net-proxy.ts";

export interface NetworkOptions {
  entries: readonly NetEntry[];
  secrets: readonly KnownSecret[];
  lookup?: NetLookup;
  /** Called once per refused host:port in the run (a warning for the user). */
  onDenied?: (event: NetEvent, message: string) => void;
}

/** One command's proxy: attach it to the pipe, read its log when the command is done. */
export interface CommandNetwork {
  attach(pipe: Duplex): void;
  /** Closes every connection the command still had, and returns its `[network]` lines. */
  finish(): string[];
}

export class SandboxNetwork {
  private readonly warned = new Set<string>();
  /** Whether the allowlist names the host's loopback (then `localhost` goes through the proxy). */
  readonly loopbackViaProxy: boolean;

  constructor(private readonly o: NetworkOptions) {
    this.loopbackViaProxy = o.entries.some(
      (e) => e.host === "localhost" || (e.ip && addressClass(e.host) === "loopback"),
    );
  }

  /** What the envelope shows: the entries as written (normalised). */
  get allowed(): string[] {
    return this.o.entries.map((e) => e.text);
  }

  /** argv to start inside the sandbox for `command`, given chatcli's own argv. */
  wrap(selfArgv: readonly string[], command: readonly string[]): string[] {
    return [...selfArgv, "__net-bridge", ...bridgeArgs(command, this.loopbackViaProxy)];
  }

  forCommand(): CommandNetwork {
    const events = new Map<string, { event: NetEvent; count: number }>();
    let proxy: NetProxy | undefined;
    const record = (event: NetEvent) => {
      const key = `${event.allowed}|${hostPort(event.host, event.port)}|${event.why ?? ""}`;
      const seen = events.get(key);
      if (seen) seen.count++;
      else events.set(key, { event, count: 1 });
      if (!event.allowed) this.warnOnce(event);
    };
    return {
      attach: (pipe) => {
        proxy = new NetProxy(
          { entries: this.o.entries, secrets: this.o.secrets, lookup: this.o.lookup },
          (bytes) => {
            if (!pipe.destroyed) pipe.write(bytes);
          },
          record,
        );
        pipe.on("data", (chunk: Buffer) => proxy?.feed(chunk));
        pipe.on("close", () => proxy?.close());
      },
      finish: () => {
        proxy?.close();
        return [...events.values()].map(({ event, count }) => networkLine(event, count));
      },
    };
  }

  private warnOnce(event: NetEvent): void {
    const key = hostPort(event.host, event.port);
    if (this.warned.has(key) || !this.o.onDenied) return;
    this.warned.add(key);
    this.o.onDenied(event, networkLine(event, 1));
  }
}

/**
 * The run's allowlist proxy, when hosts are named and commands do not have the whole network (auto +
 * a bare --allow-network, or no sandbox in force): only under bubblewrap, with chatcli's own argv to
 * start the bridge; otherwise `unsupported` says why the hosts are not reachable.
 */
export function sandboxNetwork(o: {
  entries: readonly NetEntry[];
  wholeNetwork: boolean;
  kind: string | undefined;
  selfArgv: readonly string[] | undefined;
  secrets: readonly KnownSecret[];
  lookup?: NetLookup;
  onDenied?: (message: string) => void;
}): { net?: SandboxNetwork; unsupported?: string } {
  if (o.entries.length === 0 || o.wholeNetwork) return {};
  if (o.kind !== "bubblewrap")
    return {
      unsupported: "--allow-network HOST needs bubblewrap (Linux); commands have no network here",
    };
  if (!o.selfArgv?.length)
    return {
      unsupported:
        "--allow-network HOST: chatcli cannot start its network bridge; commands have no network",
    };
  return {
    net: new SandboxNetwork({
      entries: o.entries,
      secrets: o.secrets,
      lookup: o.lookup,
      onDenied: (_e, message) => o.onDenied?.(message),
    }),
  };
}

/** `sandbox.allow_network` of the user's own config, parsed (a bad entry is a config error). */
export function userAllowlist(user: { allowNetwork: string[]; allowNetworkError?: string }) {
  try {
    if (user.allowNetworkError) throw new Error(user.allowNetworkError);
    return parseNetAllow(user.allowNetwork, "sandbox.allow_network in ~/.chatcli/config.json");
  } catch (error) {
    throw new ConfigError((error as Error).message, {
      hint: 'list hosts: "sandbox": {"allow_network": ["registry.npmjs.org", "*.pypi.org"]}',
    });
  }
}

/** `allowed registry.npmjs.org:443 (3 connections)`, `denied evil.example:443: … ; to allow it: …`. */
export function networkLine(event: NetEvent, count: number): string {
  const where = hostPort(event.host, event.port);
  const times = count > 1 ? ` (${count} connections)` : "";
  if (event.allowed) return `network: allowed ${where}${times}`;
  const fix = event.flag
    ? `; to allow it: ${event.flag} (or sandbox.allow_network in ~/.chatcli/config.json)`
    : "";
  return `network: denied ${where}${times}: ${event.why ?? "refused"}${fix}`;
}
