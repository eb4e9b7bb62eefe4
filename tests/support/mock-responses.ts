/**
 * The mock LLM's OpenAI Responses API: `POST …/responses`, streamed as the real API's typed SSE
 * events (response.created, output_item.added/done, output_text.delta, function_call_arguments.delta,
 * reasoning items and reasoning_summary_text.delta, response.completed with usage incl. cached and
 * reasoning tokens; response.incomplete for a max_tokens stop; response.failed for a mid-stream
 * error), or as one JSON response.
 */
import {
  type ScriptReply,
  scriptArgumentsText,
  scriptStop,
} from "../../lib/llm/providers/script-format.ts";
import { errorJson, type Json, type WireUsage } from "./mock-llm-wire.ts";
import type { ExtraRouteContext } from "./mock-routes.ts";

function usageOf(u: WireUsage): Json {
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.output,
  };
}

function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The output items of a reply, in order: reasoning, message, function calls. */
function outputItems(reply: ScriptReply): Json[] {
  const items: Json[] = [];
  if (reply.reasoning) {
    items.push({
      type: "reasoning",
      id: "rs_mock_1",
      summary: [{ type: "summary_text", text: reply.reasoning }],
      encrypted_content: "gAAAA-encrypted-reasoning-1",
    });
  }
  if (reply.text) {
    items.push({
      type: "message",
      id: "msg_mock_1",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    });
  }
  for (const [i, call] of (reply.tool_calls ?? []).entries()) {
    items.push({
      type: "function_call",
      id: `fc_mock_${i + 1}`,
      call_id: call.id ?? `call_${i + 1}`,
      name: call.name,
      arguments: scriptArgumentsText(call),
      status: "completed",
    });
  }
  return items;
}

function responseObject(
  _reply: ScriptReply,
  model: string,
  status: string,
  extra: Json = {},
): Json {
  return {
    id: "resp_mock",
    object: "response",
    created_at: 0,
    model,
    status,
    output: [],
    ...extra,
  };
}

/** The SSE events of a streamed response. */
export function responsesEvents(reply: ScriptReply, usage: WireUsage, model: string): Json[] {
  const events: Json[] = [
    { type: "response.created", response: responseObject(reply, model, "in_progress") },
    { type: "response.in_progress", response: responseObject(reply, model, "in_progress") },
  ];
  for (const [index, item] of outputItems(reply).entries()) {
    const opened =
      item.type === "function_call"
        ? { ...item, arguments: "", status: "in_progress" }
        : item.type === "message"
          ? { ...item, content: [], status: "in_progress" }
          : { ...item, summary: [] };
    events.push({ type: "response.output_item.added", output_index: index, item: opened });
    if (item.type === "reasoning") {
      const text = item.summary[0].text as string;
      for (const delta of pieces(text)) {
        events.push({
          type: "response.reasoning_summary_text.delta",
          item_id: item.id,
          output_index: index,
          summary_index: 0,
          delta,
        });
      }
    } else if (item.type === "message") {
      events.push({
        type: "response.content_part.added",
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part: { type: "output_text", text: "" },
      });
      for (const delta of pieces(item.content[0].text)) {
        events.push({
          type: "response.output_text.delta",
          item_id: item.id,
          output_index: index,
          content_index: 0,
          delta,
        });
      }
      events.push({
        type: "response.output_text.done",
        item_id: item.id,
        output_index: index,
        content_index: 0,
        text: item.content[0].text,
      });
    } else {
      for (const delta of pieces(item.arguments)) {
        events.push({
          type: "response.function_call_arguments.delta",
          item_id: item.id,
          output_index: index,
          delta,
        });
      }
      events.push({
        type: "response.function_call_arguments.done",
        item_id: item.id,
        output_index: index,
        arguments: item.arguments,
      });
    }
    events.push({ type: "response.output_item.done", output_index: index, item });
  }
  const stop = scriptStop(reply);
  const output = outputItems(reply);
  if (stop === "max_tokens" || stop === "other") {
    const reason = stop === "max_tokens" ? "max_output_tokens" : "content_filter";
    events.push({
      type: "response.incomplete",
      response: responseObject(reply, model, "incomplete", {
        output,
        incomplete_details: { reason },
        usage: usageOf(usage),
      }),
    });
  } else {
    events.push({
      type: "response.completed",
      response: responseObject(reply, model, "completed", { output, usage: usageOf(usage) }),
    });
  }
  return events.map((e, i) => ({ ...e, sequence_number: i }));
}

function frame(event: Json): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Answers `POST …/responses`, or returns undefined for any other path. */
export async function responsesRoute(ctx: ExtraRouteContext): Promise<Response | undefined> {
  if (ctx.method !== "POST" || !/\/responses$/.test(ctx.path)) return undefined;
  const body = ctx.body as Json;
  const reply = await ctx.next();
  const model = String(body?.model ?? "mock-model");
  const streaming = body?.stream === true;
  if (reply.error && !(reply.text && streaming)) {
    const headers: Record<string, string> = {};
    if (reply.error.retry_after !== undefined)
      headers["retry-after"] = String(reply.error.retry_after);
    return Response.json(errorJson("openai", reply.error.status, reply.error.message), {
      status: reply.error.status,
      headers,
    });
  }
  const cached = ctx.cache.openai({
    tools: body?.tools ?? [],
    messages: [body?.instructions ?? "", ...(body?.input ?? [])],
  });
  const usage = ctx.usage(reply, cached);
  if (!streaming) {
    return Response.json(
      responseObject(reply, model, "completed", {
        output: outputItems(reply),
        usage: usageOf(usage),
      }),
    );
  }
  let events = responsesEvents(reply, usage, model);
  if (reply.error) {
    // the answer starts, then the response fails inside the 200 stream
    const failed = {
      type: "response.failed",
      response: responseObject(reply, model, "failed", {
        error: {
          code: reply.error.status >= 500 ? "server_error" : "invalid_prompt",
          message: reply.error.message,
        },
      }),
    };
    events = [...events.filter((e) => e.type !== "response.completed"), failed];
  }
  return ctx.sse(events.map(frame), reply.stall ? 3 : undefined);
}
