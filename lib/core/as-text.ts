/**
 * The one way to turn a value of unknown type into text: a string stays itself, numbers and booleans
 * print, null/undefined are empty, and objects or arrays become JSON — never "[object Object]".
 */
export function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  if (value === null || value === undefined) return "";
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** An identifier-like field (`id`, `name`, `tool_use_id`): strings and numbers only, else "". */
export function asId(value: unknown): string {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
}
