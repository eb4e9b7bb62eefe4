// The "Reading these numbers" part of docs/bench.md, written with the tables by `npm run bench`.
export const NOTES = `## Reading these numbers

- **Floors.** Start-up is measured against a compiled \`console.log\` (scripts/bench-lib.ts); level 1
  against a binary compiled the same way that reads the file, JSON.parse, JSON.stringify and writes
  it. Both are built in the same run and run interleaved with what they are compared to; the figures
  are medians. Absolute milliseconds move with the machine's load (given beside each section); the
  ratios move much less, and the floor, being shortest, is hurt least by load, so a ratio measured
  under load is an upper bound. The CPU columns (user + system time of the process, from wait4)
  depend least on the load: on a busy machine, read those.
- **Start-up.** \`--version\` loads only package.json and writes with Bun's own writer (loading
  node:fs alone costs ~1 ms and ~5–8 MB, a fifth of the floor). \`bootstrap show WORDS\` and
  \`memory facts [CATEGORY] [--json]\` run without commander (commands/fast.ts, the same bytes as the
  commander path). The two **job floors** (scripts/bench-job-floor.ts) are binaries compiled the
  same way that do only the job, nothing else: the 25 reads and writes of bootstrap show; the read,
  JSON.parse, live score, sort and JSON.stringify of 500 facts (a store written as chatcli and Go
  write it: in score order). They cost more than the 1.3×
  budget by themselves (about 1.35× and 1.65× of the hello-world here): what a command costs above
  its job floor is chatcli's own (settings, workspace and trust, the store's checks, redaction, the
  module chunks it loads), the rest is the runtime doing the work at all, cold.
- **Microcompact replay.** In-process and deterministic (not timed: no load dependence). The three
  trajectory sets are GENERATED; the real-shaped ones are calibrated to what issue 14's rule scored
  on the held-out real runs. Cost is in uncached-input tokens: reads 0.1× (OpenAI also 0.5×),
  Anthropic writes 1.25×. \`bun scripts/replay-trajectories.ts PATH…\` prints this table for
  trajectories from files (SWE-agent, mini-SWE-agent, OpenAI/Anthropic messages, ChatCLI sessions).
- **Level 1.** The input is the synthetic history of scripts/bench-compact.ts (GENERATED): level 1
  shrinks it to about a quarter, so the CLI stringifies less than the floor but runs level 1 and
  redaction. \`compact --level 1|3 [--no-llm] [FILE]\` runs without commander and without the
  session, provider-chain and stdin modules (commands/fast-compact.ts, commands/compact-run.ts).
  RSS ÷ input counts the whole process; the idle binary alone is ~40 MB (the floor on the same
  one-message file ~30 MB), which is more than 4× a 7 MB input — hence the (RSS − idle) column.
  \`bun scripts/bench-level1-ab.ts A B\` compares two binaries against the floor, interleaved.
- The mock's cache simulation counts the whole repeated prefix as cached, so "cache read on
  request 2" shows the prefix is byte-stable across runs rather than a real provider's ratio.`;
