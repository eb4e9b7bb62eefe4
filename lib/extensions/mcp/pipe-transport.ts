/**
 * The stdio transport for MCP servers, over chatcli's one spawn door (the SDK's own stdio transport
 * spawns by itself, with the parent's environment). Newline-delimited JSON-RPC, as the spec says.
 */
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type PipedChild, spawnPiped } from "../../sandbox/spawn.ts";

const STDERR_TAIL = 2000;

export class PipeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child?: PipedChild;
  private readonly buffer = new ReadBuffer();
  private stderrTail = "";
  private closed = false;

  constructor(
    private readonly argv: readonly string[],
    private readonly options: { cwd: string; env: Record<string, string> },
  ) {}

  /** The last lines the server wrote on stderr (for the warning when it fails). */
  stderr(): string {
    return this.stderrTail.trim();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const child = spawnPiped(this.argv, this.options);
    this.child = child;
    child.stdout.on("data", (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (error) {
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    void child.exited.then(() => this.finish());
    const problem = await child.started;
    if (problem) throw new Error(`cannot start ${this.argv[0]}: ${problem}`);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (!child || this.closed) throw new Error("the MCP server is not running");
    const line = serializeMessage(message);
    await new Promise<void>((resolve, reject) => {
      child.stdin.write(line, (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    await this.child?.stop();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}
