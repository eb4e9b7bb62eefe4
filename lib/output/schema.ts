/**
 * The JSON Schema 2020-12 documents `chatcli schema` prints and docs/schema/ holds: built from the
 * same TypeBox schemas the TypeScript types are inferred from (event-schema.ts). Loaded only by
 * `chatcli schema` and the tests.
 */
import type Type from "typebox";
import { Envelope, RUN_EVENTS, streamLine } from "./event-schema.ts";

const DIALECT = "https://json-schema.org/draft/2020-12/schema";
const STAMP_DOC = "every stream-json line also carries seq (0,1,2…), ts (RFC 3339) and session_id";

/** A schema as plain JSON (TypeBox's own markers are symbols: JSON.stringify drops them). */
function plain(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/** The envelope: `--json`'s document; as stream-json's last line it also has seq and ts. */
export function resultSchema(version: string): Record<string, unknown> {
  const base = plain(Envelope);
  const properties = {
    ...(base["properties"] as Record<string, unknown>),
    seq: { type: "integer", minimum: 0, description: "stream-json's last line only" },
    ts: { type: "string", format: "date-time", description: "stream-json's last line only" },
  };
  return {
    $schema: DIALECT,
    $id: `urn:chatcli:schema:${version}:result`,
    title: "chatcli result envelope (CONTRACT §2)",
    description:
      "What --json prints, and the last line of --output-format stream-json (with seq and ts). Fields that do not apply are null, never missing.",
    ...base,
    properties,
  };
}

/** Every stream-json line: one of the events, or the result (always last). */
export function eventsSchema(version: string): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (const [type, schema] of Object.entries(RUN_EVENTS))
    defs[type] = plain(streamLine(schema as Type.TObject));
  const result = resultSchema(version);
  defs["result"] = {
    ...result,
    $schema: undefined,
    $id: undefined,
    required: [...(result["required"] as string[]), "seq", "ts"],
  };
  return {
    $schema: DIALECT,
    $id: `urn:chatcli:schema:${version}:events`,
    title: "chatcli stream-json line (CONTRACT §2)",
    description: `One line of --output-format stream-json; ${STAMP_DOC}. The first line is session.started, the last the result.`,
    $defs: JSON.parse(JSON.stringify(defs)),
    oneOf: Object.keys(defs).map((type) => ({ $ref: `#/$defs/${type}` })),
  };
}

/** The document `chatcli schema KIND` prints. */
export function schemaDocument(kind: "result" | "events", version: string): string {
  const doc = kind === "result" ? resultSchema(version) : eventsSchema(version);
  return `${JSON.stringify(doc, null, 2)}\n`;
}
