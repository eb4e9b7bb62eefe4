/**
 * The mock LLM's Amazon Bedrock runtime for Anthropic models: `POST /model/{modelId}/invoke` (JSON) and
 * `/invoke-with-response-stream`, whose body is AWS event-stream binary framing — each message a
 * prelude (total length, headers length, CRC32 of the two), typed headers (`:event-type chunk`,
 * `:message-type event`), a JSON payload `{"bytes": base64(Anthropic event)}` and a CRC32 of the whole
 * message — which the SDK decodes and checks. Errors: HTTP `{message}` with `x-amzn-errortype`, or an
 * `exception` message inside the stream.
 */
import type { ScriptReply } from "../../lib/llm/providers/script-format.ts";
import { anthropicFrames, anthropicJson, type Json } from "./mock-llm-wire.ts";
import type { ExtraRouteContext } from "./mock-routes.ts";

const BEDROCK_PATH = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3), as the event-stream prelude and message checksums use. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const encoder = new TextEncoder();

/** One event-stream message with string headers (value type 7). */
export function eventStreamMessage(
  headers: Record<string, string>,
  payload: Uint8Array,
): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = encoder.encode(name);
    const v = encoder.encode(value);
    const h = new Uint8Array(1 + n.length + 1 + 2 + v.length);
    h[0] = n.length;
    h.set(n, 1);
    h[1 + n.length] = 7;
    new DataView(h.buffer).setUint16(2 + n.length, v.length);
    h.set(v, 4 + n.length);
    parts.push(h);
  }
  const headerLength = parts.reduce((sum, p) => sum + p.length, 0);
  const total = 12 + headerLength + payload.length + 4;
  const message = new Uint8Array(total);
  const view = new DataView(message.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headerLength);
  view.setUint32(8, crc32(message.subarray(0, 8)));
  let offset = 12;
  for (const p of parts) {
    message.set(p, offset);
    offset += p.length;
  }
  message.set(payload, offset);
  view.setUint32(total - 4, crc32(message.subarray(0, total - 4)));
  return message;
}

function chunkMessage(event: Json): Uint8Array {
  const bytes = Buffer.from(JSON.stringify(event)).toString("base64");
  const payload = encoder.encode(
    JSON.stringify({ bytes, p: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ" }),
  );
  return eventStreamMessage(
    { ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" },
    payload,
  );
}

const STREAM_EXCEPTIONS: Record<number, string> = {
  429: "throttlingException",
  500: "internalServerException",
  503: "serviceUnavailableException",
  424: "modelStreamErrorException",
  400: "validationException",
};

function exceptionMessage(status: number, message: string): Uint8Array {
  return eventStreamMessage(
    {
      ":exception-type": STREAM_EXCEPTIONS[status] ?? "internalServerException",
      ":content-type": "application/json",
      ":message-type": "exception",
    },
    encoder.encode(JSON.stringify({ message })),
  );
}

const HTTP_ERRORS: Record<number, string> = {
  400: "ValidationException",
  401: "UnrecognizedClientException",
  403: "AccessDeniedException",
  404: "ResourceNotFoundException",
  429: "ThrottlingException",
  500: "InternalServerException",
  503: "ServiceUnavailableException",
};

/** The Anthropic stream events of a reply (the same as the Messages API streams). */
function events(
  reply: ScriptReply,
  usage: Parameters<typeof anthropicFrames>[1],
  model: string,
): Json[] {
  return anthropicFrames(reply, usage, model)
    .map((frame) => JSON.parse(frame.slice(frame.indexOf("\ndata: ") + 7)))
    .filter((e: Json) => e.type !== "ping");
}

/** Answers a Bedrock runtime route, or returns undefined for any other path. */
export async function bedrockRoute(ctx: ExtraRouteContext): Promise<Response | undefined> {
  const match = BEDROCK_PATH.exec(ctx.path);
  if (!match || ctx.method !== "POST") return undefined;
  const model = decodeURIComponent(match[1] as string);
  const streaming = match[2] === "invoke-with-response-stream";
  const reply = await ctx.next();
  if (reply.error && !(reply.text && streaming)) {
    const type =
      HTTP_ERRORS[reply.error.status] ??
      (reply.error.status >= 500 ? "InternalServerException" : "ValidationException");
    const headers: Record<string, string> = {
      "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      "x-amzn-requestid": "mock-request-id",
    };
    if (reply.error.retry_after !== undefined)
      headers["retry-after"] = String(reply.error.retry_after);
    return Response.json({ message: reply.error.message }, { status: reply.error.status, headers });
  }
  const usage = ctx.usage(reply, ctx.cache.anthropic(ctx.body));
  if (!streaming) return Response.json(anthropicJson(reply, usage, model));
  let messages = events(reply, usage, model).map(chunkMessage);
  if (reply.error) {
    // the answer starts, then an exception message arrives inside the 200 stream
    messages = [
      ...messages.slice(0, -2),
      exceptionMessage(reply.error.status, reply.error.message),
    ];
  }
  const response = ctx.bytes(
    messages,
    "application/vnd.amazon.eventstream",
    reply.stall ? 3 : undefined,
  );
  response.headers.set("x-amzn-bedrock-content-type", "application/json");
  return response;
}
