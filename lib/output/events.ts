/**
 * The one event union of a run (CONTRACT §2). Every front end — text, json, stream-json, the REPL —
 * renders these; the engine never looks at the output format. The types are inferred from the
 * schemas in event-schema.ts (imported as types only: nothing of TypeBox loads at run time), so
 * `chatcli schema events` is what the code is typed as.
 */
import type { Static } from "typebox";
import type { Envelope as EnvelopeSchema, RUN_EVENTS } from "./event-schema.ts";

type Schemas = typeof RUN_EVENTS;
export type RunEventType = keyof Schemas;
/** One event of the given type. */
export type EventOf<K extends RunEventType> = Static<Schemas[K]>;
/** Every event a run yields. */
export type RunEvent = { [K in RunEventType]: EventOf<K> }[RunEventType];
/** An event's fields without its `type`. */
export type PayloadOf<K extends RunEventType> = Omit<EventOf<K>, "type">;
/** The result envelope (CONTRACT §2). */
export type Envelope = Static<typeof EnvelopeSchema>;

/**
 * A line for people (stderr, the REPL): a tip, a migration notice. Not part of the contract: never
 * printed in stream-json and not folded into the envelope. `detail` lines show in text mode only.
 */
export interface Note {
  type: "note";
  text: string;
  detail: boolean;
  parent_id: string | null;
}

/** What the engine emits: the public events and notes. */
export type Emitted = RunEvent | Note;

export type PermissionDenial = Envelope["permission_denials"][number];
export type BootstrapFileInfo = Envelope["bootstrap_files"][number];
export type Warning = Envelope["warnings"][number];

/** Where a run's events go. */
export type Emit = (event: Emitted) => void;

/** A note for people (see Note). */
export function note(
  text: string,
  options: { detail?: boolean; parent_id?: string | null } = {},
): Note {
  return {
    type: "note",
    text,
    detail: options.detail ?? false,
    parent_id: options.parent_id ?? null,
  };
}

/** Builds an event of `type` from its payload (the type checks every key is there). */
export function ev<K extends RunEventType>(type: K, payload: PayloadOf<K>): EventOf<K> {
  return { type, ...payload } as EventOf<K>;
}

/** The `error` event of a failure (a ChatcliError or a run's error), with the exit code it ends with. */
export function errorEvent(
  failure: { code: string; message: string; retryable: boolean; hint?: string | null },
  exitCode: number,
  terminalReason: PayloadOf<"error">["terminal_reason"],
): EventOf<"error"> {
  return ev("error", {
    code: failure.code,
    message: failure.message,
    retryable: failure.retryable,
    hint: failure.hint ?? null,
    exit_code: exitCode,
    terminal_reason: terminalReason,
  } as PayloadOf<"error">);
}
