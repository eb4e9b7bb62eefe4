/**
 * The `openai` SDK client, keeping the words of OpenAI-compatible servers' errors. SDK 6 (the line
 * whose `engines` accepts Node 20) reads only an error body's `error` field; Mistral, vLLM and others
 * answer `{"object":"error","message":…}` unwrapped, whose message SDK 6 would drop ("400 status code
 * (no body)"). Such a body is wrapped as `{error: body}` first, as SDK 7 reads it.
 */
import OpenAI from "openai";

export class OpenAICompatible extends OpenAI {
  protected override makeStatusError(
    status: number,
    error: object,
    message: string | undefined,
    headers: Headers,
  ) {
    const body = error as Record<string, unknown> | undefined;
    const unwrapped =
      typeof body === "object" && body !== null && !("error" in body) && "message" in body;
    return super.makeStatusError(status, unwrapped ? { error: body } : error, message, headers);
  }
}
