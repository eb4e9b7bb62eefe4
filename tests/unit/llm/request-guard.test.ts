import { describe, expect, test } from "bun:test";
import { ProviderError } from "../../../lib/llm/errors.ts";
import { guardRequest } from "../../../lib/llm/providers/request-guard.ts";

function guard(outer = new AbortController().signal, idleTimeoutMs = 60_000) {
  return guardRequest(outer, {
    provider: "openai",
    fetch: globalThis.fetch,
    idleTimeoutMs,
    authHint: "set KEY",
  });
}

describe("request guard: error mapping", () => {
  test("HTTP errors by status, with retry-after and the server's message", () => {
    const g = guard();
    const error = g.toError({
      status: 429,
      headers: new Headers({ "retry-after": "4" }),
      error: { message: "Rate limit reached for gpt-5.4", type: "requests" },
      message: "429 Rate limit reached for gpt-5.4",
    });
    expect(error.kind).toBe("rate_limit");
    expect(error.retryAfterMs).toBe(4000);
    expect(error.message).toBe("openai: 429 Rate limit reached for gpt-5.4");
    const auth = g.toError({
      status: 403,
      error: { type: "error", error: { type: "permission_error", message: "no" } },
    });
    expect(auth.kind).toBe("auth");
    expect(auth.hint).toBe("set KEY");
    expect(g.toError({ status: 503, error: {} }).kind).toBe("server");
    expect(g.toError({ status: 404, error: { message: "model not found" } }).kind).toBe(
      "not_found",
    );
    expect(
      g.toError({ status: 400, error: { message: "bad", code: "context_length_exceeded" } }).kind,
    ).toBe("context_length");
    g.dispose();
  });

  test("error events inside a stream are classified by their type", () => {
    const g = guard();
    const overloaded = g.toError({
      error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    });
    expect(overloaded.kind).toBe("server");
    expect(overloaded.message).toBe("openai: Overloaded");
    expect(g.toError({ error: { type: "server_error", message: "oops" } }).kind).toBe("server");
    expect(
      g.toError({ error: { type: "invalid_request_error", message: "prompt is too long" } }).kind,
    ).toBe("context_length");
    g.dispose();
  });

  test("connection failures are network errors; SDK timeouts are timeouts", () => {
    const g = guard();
    const network = g.toError({
      name: "APIConnectionError",
      message: "Connection error.",
      cause: new Error("ECONNRESET"),
    });
    expect(network.kind).toBe("network");
    expect(network.message).toContain("ECONNRESET");
    expect(
      g.toError({ name: "APIConnectionTimeoutError", message: "Request timed out." }).kind,
    ).toBe("timeout");
    g.dispose();
  });

  test("after the caller aborts, anything is cancelled; ProviderErrors pass through", () => {
    const controller = new AbortController();
    const g = guard(controller.signal);
    const original = new ProviderError("server", "x", { provider: "openai" });
    expect(g.toError(original)).toBe(original);
    controller.abort();
    expect(g.signal.aborted).toBe(true);
    expect(g.toError(new Error("whatever")).kind).toBe("cancelled");
    g.dispose();
  });

  test("the idle watchdog aborts the request signal and yields timeout", async () => {
    const g = guard(new AbortController().signal, 10);
    await new Promise((resolve) => g.signal.addEventListener("abort", resolve));
    expect(g.toError(new Error("aborted")).kind).toBe("timeout");
    g.dispose();
  });
});
