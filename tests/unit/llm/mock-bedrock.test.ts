/** The mock's AWS event-stream framing is what Bedrock sends: the SDK's own decoder reads it and checks its CRCs. */
import { expect, test } from "bun:test";
import { eventStreamToSSEResponse } from "@anthropic-ai/bedrock-sdk/core/streaming";
import { crc32, eventStreamMessage } from "../../support/mock-bedrock.ts";

function chunk(event: object): Uint8Array {
  const bytes = Buffer.from(JSON.stringify(event)).toString("base64");
  return eventStreamMessage(
    { ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" },
    new TextEncoder().encode(JSON.stringify({ bytes })),
  );
}

function decode(...messages: Uint8Array[]): Promise<string> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const m of messages) controller.enqueue(m);
      controller.close();
    },
  });
  const response = new Response(body, {
    headers: { "content-type": "application/vnd.amazon.eventstream" },
  });
  return eventStreamToSSEResponse(response).text();
}

test("CRC-32 check value", () => {
  expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
});

test("chunks decode to the Anthropic events they carry", async () => {
  const text = await decode(chunk({ type: "message_stop" }), chunk({ type: "ping" }));
  expect(text).toBe(
    'event: message_stop\ndata: {"type":"message_stop"}\n\nevent: ping\ndata: {"type":"ping"}\n\n',
  );
});

test("a corrupted message fails its CRC check instead of decoding", async () => {
  const good = chunk({ type: "message_stop" });
  const bad = good.slice();
  bad[bad.length - 10] = (bad[bad.length - 10] as number) ^ 0xff;
  await expect(decode(bad)).rejects.toThrow(/checksum|crc/i);
  const prelude = good.slice();
  prelude[9] = (prelude[9] as number) ^ 0xff;
  await expect(decode(prelude)).rejects.toThrow(/checksum|crc/i);
});

test("an exception message becomes an SSE error event typed by its exception type", async () => {
  const exception = eventStreamMessage(
    {
      ":exception-type": "throttlingException",
      ":content-type": "application/json",
      ":message-type": "exception",
    },
    new TextEncoder().encode(JSON.stringify({ message: "Too many requests" })),
  );
  const text = await decode(chunk({ type: "message_start" }), exception);
  expect(text).toContain("event: error");
  expect(text).toContain('"type":"throttlingException"');
  expect(text).toContain("Too many requests");
});
