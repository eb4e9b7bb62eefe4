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
  node:fs alone costs ~2 ms, a quarter of the floor). \`bootstrap show WORDS\` and \`memory facts
  [CATEGORY] [--json]\` run without commander (commands/fast.ts, the same bytes as the commander
  path). What is left is work: reading settings (~2 ms), building the system context (5 files, 20
  rules: ~3 ms cold), loading and ranking 500 facts (lib/memory: ~10 ms cold, most of it parsing
  dates and the store's JSON), and the runtime loading node:fs and the module chunks the command
  needs. See docs/dev-notes/performance.md for the split.
- **Microcompact replay.** In-process and deterministic (not timed: no load dependence). The three
  trajectory sets are GENERATED; the real-shaped ones are calibrated to what issue 14's rule scored
  on the held-out real runs. Cost is in uncached-input tokens: reads 0.1× (OpenAI also 0.5×),
  Anthropic writes 1.25×.
- **Level 1.** The input is the synthetic history of scripts/bench-compact.ts (GENERATED): level 1
  shrinks it to about a quarter, so the CLI stringifies less than the floor but runs level 1 and
  redaction. \`compact --level 1|3 [--no-llm] [FILE]\` runs without commander and without the
  session, provider-chain and stdin modules (commands/fast-compact.ts, commands/compact-run.ts).
  RSS ÷ input counts the whole process; the idle binary alone is ~40 MB (the floor on the same
  one-message file ~30 MB), which is more than 4× a 7 MB input — hence the (RSS − idle) column.
  \`bun scripts/bench-level1-ab.ts A B\` compares two binaries against the floor, interleaved.
- The mock's cache simulation counts the whole repeated prefix as cached, so "cache read on
  request 2" shows the prefix is byte-stable across runs rather than a real provider's ratio.`;
