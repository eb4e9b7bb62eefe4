import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { remember } from "../../../lib/memory/ops.ts";
import { run } from "../../support/ctx.ts";
import { memFile, memoryHome, testMemory } from "./support.ts";

const CONCEPTS = [
  ["postgres", "database", "persisted", "records", "storage"],
  ["deploy", "release", "ship", "rollout"],
  ["coffee", "espresso"],
];

/** A fake OpenAI /v1/embeddings: one dimension per concept, counted by word. */
function embedServer(status = 200) {
  const requests: Array<{ input: string[]; auth: string | null }> = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { input: string[] };
      requests.push({ input: body.input, auth: req.headers.get("authorization") });
      if (status !== 200) return new Response("down", { status });
      const data = body.input.map((text, index) => ({
        index,
        embedding: CONCEPTS.map(
          (words) => words.filter((w) => text.toLowerCase().includes(w)).length + 0.01,
        ),
      }));
      return Response.json({ data });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    [Symbol.dispose]: () => server.stop(true),
  };
}

describe("optional embeddings", () => {
  test("semantic hits surface facts with no shared keyword; vectors are cached on disk", async () => {
    using srv = embedServer();
    await using home = await memoryHome();
    const env = {
      ...home.env,
      CHATCLI_EMBED_PROVIDER: "openai",
      OPENAI_API_KEY: "test-key-123456",
      OPENAI_BASE_URL: srv.url,
    };
    const mem = testMemory(env);
    await remember(mem, "Postgres keeps all the user records");
    await remember(mem, "Release notes are written by hand");
    await remember(mem, "The office espresso machine is broken");
    const r = await run(["memory", "recall", "where", "is", "data", "persisted", "--json"], {
      env,
    });
    const hits = JSON.parse(r.out);
    expect(hits[0].content).toBe("Postgres keeps all the user records");
    expect(srv.requests[0]?.input).toHaveLength(3);
    expect(srv.requests[0]?.auth).toBe("Bearer test-key-123456");
    const index = JSON.parse(await readFile(memFile(home, "vector_index.json"), "utf8"));
    expect(index.provider).toBe("openai:text-embedding-3-small");
    expect(Object.keys(index.entries)).toHaveLength(3);
    await run(["memory", "recall", "shipping", "--json"], { env });
    expect(srv.requests.at(-1)?.input).toEqual(["shipping"]);
    expect(srv.requests).toHaveLength(3);
  });

  test("an embeddings outage falls back to keyword recall with a warning", async () => {
    using srv = embedServer(500);
    await using home = await memoryHome();
    const env = {
      ...home.env,
      CHATCLI_EMBED_PROVIDER: "openai",
      OPENAI_API_KEY: "test-key-123456",
      OPENAI_BASE_URL: srv.url,
    };
    await remember(testMemory(env), "Postgres keeps all the user records");
    const r = await run(["memory", "recall", "postgres", "--json"], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)[0].content).toBe("Postgres keeps all the user records");
    expect(r.err).toContain(
      "memory: embeddings unavailable (embeddings: HTTP 500); keyword recall only",
    );
  });
});
