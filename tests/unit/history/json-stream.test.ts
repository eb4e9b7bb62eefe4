import { describe, expect, test } from "bun:test";
import { redact, redactPieces } from "../../../lib/core/redact.ts";
import { compactHistory } from "../../../lib/history/compact.ts";
import { parseConversation } from "../../../lib/history/formats.ts";
import { stringifyPieces } from "../../../lib/history/json-stream.ts";
import { compactCases } from "../../support/compact-cases.ts";

describe("JSON in pieces", () => {
  test("stringifyPieces joined is JSON.stringify, for every indent and shape", () => {
    const items = [{ a: 1, b: [1, 2, { c: "x\ny" }] }, "s", 3, null, [], {}, { u: undefined }];
    for (const indent of [undefined, 0, 1, 2, 4, 12]) {
      for (const list of [items, [], [{}]]) {
        expect([...stringifyPieces(undefined, undefined, list, indent)].join("")).toBe(
          JSON.stringify(list, null, indent),
        );
        const doc = { model: "m", messages: list, tools: [{ t: 1 }], n: 0 };
        expect([...stringifyPieces(doc, "messages", list, indent)].join("")).toBe(
          JSON.stringify(doc, null, indent),
        );
        const appended = { model: "m" };
        expect([...stringifyPieces(appended, "messages", list, indent)].join("")).toBe(
          JSON.stringify({ ...appended, messages: list }, null, indent),
        );
      }
    }
  });

  test("every format's parts are its render, before and after compaction", async () => {
    for (const [name, input] of Object.entries(compactCases())) {
      const conversation = parseConversation(input);
      for (const maxLevel of [1, 3] as const) {
        const result = await compactHistory(conversation.messages, {
          budgetTokens: 3000,
          maxLevel,
        });
        const rendered = conversation.render(result.messages);
        expect({ name, text: [...conversation.parts(result.messages)].join("") }).toEqual({
          name,
          text: rendered,
        });
      }
      expect([...conversation.parts(conversation.messages)].join("")).toBe(
        conversation.render(conversation.messages),
      );
    }
  });

  test("redactPieces is redact of the whole, whatever the chunk size", () => {
    const secrets = ["conf1gured-secret-value-123"];
    const messages = [
      { role: "user", content: "x sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 y" },
      { role: "tool", content: "conf1gured-secret-value-123 z AKIAABCDEFGHIJKLMNOP" },
      { role: "user", content: "-----BEGIN RSA PRIVATE KEY-----\nMII" },
      { role: "assistant", content: "def\n-----END RSA PRIVATE KEY----- after" },
      { role: "user", content: "-----BEGIN EC PRIVATE KEY----- no end" },
      { role: "user", content: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" },
    ];
    for (let from = 0; from < messages.length; from++) {
      const list = messages.slice(from);
      for (const indent of [undefined, 2]) {
        const text = JSON.stringify(list, null, indent);
        for (const chunk of [1, 40, 1000]) {
          const pieces = stringifyPieces(undefined, undefined, list, indent);
          expect([...redactPieces(pieces, secrets, chunk)].join("")).toBe(redact(text, secrets));
        }
      }
    }
    // a secret with JSON punctuation could match across pieces: redacted whole
    const odd = [{ k: "ab" }, { k: "cd" }];
    const text = JSON.stringify(odd);
    const pieces = stringifyPieces(undefined, undefined, odd, undefined);
    expect([...redactPieces(pieces, ['ab"},{"k', "zz"], 1)].join("")).toBe(
      redact(text, ['ab"},{"k', "zz"]),
    );
    expect(redact(text, ['ab"},{"k'])).not.toBe(text);
  });
});
