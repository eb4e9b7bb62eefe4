import { Command } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { acceptOutputFormat, type RunState } from "./_shared.ts";

/** `chatcli schema result|events`: JSON Schema 2020-12 of the envelope and of every stream-json line. */
export function schemaCommand(ctx: Ctx, state: RunState) {
  const command = new Command("schema")
    .description("JSON Schema 2020-12 of the result envelope or of every stream-json event")
    .argument("<kind>", "result (the --json envelope) or events (a stream-json line)")
    // the document is JSON whatever the format: the flags scripts pass every command are accepted
    .option("--json", "the schema (always JSON)")
    .action(async (kind) => {
      if (kind !== "result" && kind !== "events")
        throw new UsageError(`schema: unknown kind ${JSON.stringify(kind)}; use result or events`);
      // built from the types' schemas, loaded only here (no other command pays for it)
      const { schemaDocument } = await import("../lib/output/schema.ts");
      // the schema names no version-specific URL: the same file for every build
      ctx.stdout.write(schemaDocument(kind, "v1"));
      state.exitCode = 0;
    });
  acceptOutputFormat(command);
  return command;
}
