import { asText } from "../core/as-text.ts";
import type { JsonSchema } from "./types.ts";

type Args = Record<string, unknown>;

/**
 * Validates (and gently coerces) tool arguments against the small JSON-Schema subset tools use:
 * object properties with type string|integer|number|boolean|array|object, required, enum, minimum.
 * Returns the coerced arguments or an error written for the model.
 */
export function validateArgs(
  schema: JsonSchema,
  args: unknown,
): { ok: true; args: Args } | { ok: false; error: string } {
  if (args === null || args === undefined) args = {};
  if (typeof args !== "object" || Array.isArray(args)) {
    return { ok: false, error: "arguments must be a JSON object" };
  }
  const input = args as Args;
  const props = (schema["properties"] ?? {}) as Record<string, JsonSchema>;
  const required = (schema["required"] ?? []) as string[];
  const out: Args = { ...input };
  const problems: string[] = [];
  for (const name of required) {
    if (input[name] === undefined || input[name] === null) problems.push(`"${name}" is required`);
  }
  for (const [name, prop] of Object.entries(props)) {
    const value = input[name];
    if (value === undefined || value === null) {
      delete out[name];
      continue;
    }
    const coerced = coerce(value, prop);
    if (coerced === INVALID) {
      problems.push(`"${name}" must be ${describe(prop)}`);
      continue;
    }
    const allowed = prop["enum"] as unknown[] | undefined;
    if (allowed && !allowed.includes(coerced)) {
      problems.push(`"${name}" must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`);
      continue;
    }
    const min = prop["minimum"] as number | undefined;
    if (min !== undefined && typeof coerced === "number" && coerced < min) {
      problems.push(`"${name}" must be ≥ ${min}`);
      continue;
    }
    out[name] = coerced;
  }
  if (problems.length > 0) {
    const known = Object.keys(props).join(", ");
    return {
      ok: false,
      error: `invalid arguments: ${problems.join("; ")}. Rewrite the call so it satisfies the schema (parameters: ${known}).`,
    };
  }
  return { ok: true, args: out };
}

const INVALID = Symbol("invalid");

function coerce(value: unknown, prop: JsonSchema): unknown {
  const type = prop["type"];
  switch (type) {
    case "string":
      if (typeof value === "string") return value;
      if (typeof value === "number" || typeof value === "boolean") return String(value);
      return INVALID;
    case "integer":
    case "number": {
      const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
      if (typeof n !== "number" || !Number.isFinite(n)) return INVALID;
      if (type === "integer" && !Number.isInteger(n)) return INVALID;
      return n;
    }
    case "boolean":
      if (typeof value === "boolean") return value;
      if (value === "true") return true;
      if (value === "false") return false;
      return INVALID;
    case "array":
      return Array.isArray(value) ? value : INVALID;
    case "object":
      return typeof value === "object" && !Array.isArray(value) ? value : INVALID;
    default:
      return value;
  }
}

function describe(prop: JsonSchema): string {
  const type = Array.isArray(prop["type"])
    ? prop["type"].map(asText).join(" or ")
    : asText(prop["type"] ?? "value") || "value";
  return type === "integer"
    ? "an integer"
    : type === "array" || type === "object"
      ? `an ${type}`
      : `a ${type}`;
}
