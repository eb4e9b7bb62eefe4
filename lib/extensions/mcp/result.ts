/** An MCP tool result as text for the model: text parts as they are, the rest described. */
export function resultText(result: Record<string, unknown>): { output: string; isError: boolean } {
  const parts: string[] = [];
  const content = Array.isArray(result["content"]) ? result["content"] : [];
  for (const raw of content) {
    const c = (raw ?? {}) as Record<string, unknown>;
    switch (c["type"]) {
      case "text":
        parts.push(String(c["text"] ?? ""));
        break;
      case "image":
      case "audio": {
        const bytes = Math.floor((String(c["data"] ?? "").length * 3) / 4);
        parts.push(`[${c["type"]}: ${String(c["mimeType"] ?? "unknown type")}, ${bytes} bytes]`);
        break;
      }
      case "resource": {
        const r = (c["resource"] ?? {}) as Record<string, unknown>;
        if (typeof r["text"] === "string") parts.push(r["text"]);
        else
          parts.push(`[resource ${String(r["uri"] ?? "")} (${String(r["mimeType"] ?? "binary")})]`);
        break;
      }
      case "resource_link":
        parts.push(
          `[resource link ${String(c["uri"] ?? "")}${c["name"] ? ` (${String(c["name"])})` : ""}]`,
        );
        break;
      default:
        parts.push(JSON.stringify(c));
    }
  }
  // an old server's `toolResult`, or structured content with no text beside it
  if (parts.length === 0 && result["structuredContent"] !== undefined)
    parts.push(JSON.stringify(result["structuredContent"]));
  if (parts.length === 0 && result["toolResult"] !== undefined)
    parts.push(
      typeof result["toolResult"] === "string"
        ? result["toolResult"]
        : JSON.stringify(result["toolResult"]),
    );
  return { output: parts.join("\n"), isError: result["isError"] === true };
}
