/**
 * search_files' built-in matcher (no ripgrep): the regex runs in a Worker, one file at a time, so a
 * catastrophic pattern like `(a+)+$` costs at most the per-file budget — the worker is terminated and
 * the file reported as skipped — and an abort (--timeout, SIGTERM) stops the search at once.
 */

/** Runs in the worker: matches one file's text and returns the formatted lines. */
const WORKER_SOURCE = `
self.onmessage = (event) => {
  const { text, rel, source, flags, context, budget } = event.data;
  const re = new RegExp(source, flags);
  const lines = text.split(/\\r?\\n/);
  const out = [];
  let matches = 0;
  let lastShown = -1;
  for (let i = 0; i < lines.length && matches < budget; i++) {
    if (!re.test(lines[i])) continue;
    matches++;
    const from = Math.max(lastShown + 1, i - context);
    if (context > 0 && lastShown >= 0 && from > lastShown + 1) out.push("--");
    for (let k = from; k <= Math.min(lines.length - 1, i + context); k++) {
      out.push(rel + (k === i ? ":" : "-") + (k + 1) + (k === i ? ":" : "-") + lines[k]);
      lastShown = k;
    }
  }
  self.postMessage({ lines: out, matches });
};
`;

export interface FileToSearch {
  rel: string;
  text: string;
}

export interface WorkerSearch {
  source: string;
  flags: string;
  context: number;
  maxResults: number;
  /** Milliseconds one file may take before it is skipped. */
  perFileMs: number;
  signal: AbortSignal;
}

export interface WorkerSearchResult {
  lines: string[];
  matches: number;
  /** Files whose matching took longer than the budget. */
  skipped: string[];
  aborted: boolean;
}

type Reply = { lines: string[]; matches: number };

/** Searches `files` (read lazily, one at a time) with the regex in a terminable worker. */
export async function searchWithWorker(
  files: AsyncIterable<FileToSearch>,
  options: WorkerSearch,
): Promise<WorkerSearchResult> {
  const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
  let worker: Worker | undefined;
  const result: WorkerSearchResult = { lines: [], matches: 0, skipped: [], aborted: false };
  try {
    for await (const file of files) {
      if (options.signal.aborted) {
        result.aborted = true;
        break;
      }
      if (result.matches >= options.maxResults) break;
      worker ??= new Worker(url);
      const active = worker;
      const reply = await new Promise<Reply | "timeout" | "aborted">((resolve) => {
        const timer = setTimeout(() => done("timeout"), options.perFileMs);
        const onAbort = () => done("aborted");
        function done(value: Reply | "timeout" | "aborted") {
          clearTimeout(timer);
          options.signal.removeEventListener("abort", onAbort);
          active.onmessage = null;
          resolve(value);
        }
        options.signal.addEventListener("abort", onAbort, { once: true });
        active.onmessage = (event: MessageEvent<Reply>) => done(event.data);
        active.onerror = () => done({ lines: [], matches: 0 });
        active.postMessage({
          text: file.text,
          rel: file.rel,
          source: options.source,
          flags: options.flags,
          context: options.context,
          budget: options.maxResults - result.matches,
        });
      });
      if (reply === "timeout" || reply === "aborted") {
        worker.terminate();
        worker = undefined;
        if (reply === "aborted") {
          result.aborted = true;
          break;
        }
        result.skipped.push(file.rel);
        continue;
      }
      result.lines.push(...reply.lines);
      result.matches += reply.matches;
    }
  } finally {
    worker?.terminate();
    URL.revokeObjectURL(url);
  }
  return result;
}
