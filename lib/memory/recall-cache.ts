import { readFile, stat } from "node:fs/promises";
import { writeFileAtomic } from "../core/fs.ts";
import type { Fact } from "./facts.ts";
import type { Corpus } from "./recall-corpus.ts";
import { FactIndex } from "./retrieve.ts";
import { loadFacts, type Memory, memPath } from "./store.ts";

/**
 * The recall index persisted next to the store (`memory/.chatcli-recall-index`, a file the Go tool
 * never reads): the analysed corpus (terms, postings, dates, live-score numbers) as raw typed arrays
 * and the facts as JSON rows decoded only for the hits — a cold `memory recall` maps one file
 * instead of parsing and analysing the whole index. It is keyed by the inode, size and mtime of
 * `memory_index.json` and `memory_tombstones.json` (an atomic rewrite of either gets a new inode),
 * so any change — chatcli's or the Go tool's — invalidates it. Layout: `CCRI`, u32 header length,
 * header JSON, the vocabulary (UTF-8, "\n"-joined), each array 8-byte aligned, the rows (UTF-8).
 */
export const RECALL_CACHE = ".chatcli-recall-index";
const MAGIC = 0x49524343; // "CCRI" little-endian
const VERSION = 12;

type Row = [
  id: string,
  content: string,
  category: string,
  tags: string[] | null,
  created_at: string,
  last_accessed: string,
  access_count: number,
  confidence: number,
  source_project: string,
];

const ARRAYS = {
  seqStart: Uint32Array,
  seq: Uint32Array,
  tagStart: Uint32Array,
  tags: Uint32Array,
  postStart: Uint32Array,
  postDoc: Uint32Array,
  postTf: Uint32Array,
  tagPostStart: Uint32Array,
  tagDoc: Uint32Array,
  order: Uint32Array,
  speaker: Int32Array,
  asks: Uint8Array,
  mentionBack: Int16Array,
  mentionSpread: Uint8Array,
  month: Int32Array,
  lastMs: Float64Array,
  bornMs: Float64Array,
  byTime: Uint32Array,
  timeRank: Uint32Array,
  access: Float64Array,
  confidence: Float64Array,
  project: Uint32Array,
  category: Uint32Array,
} as const;
type ArrayName = keyof typeof ARRAYS;
const NAMES = Object.keys(ARRAYS) as ArrayName[];

interface Header {
  v: number;
  key: string;
  n: number;
  /** Byte length of the vocabulary (terms joined by "\n", stored right after the header). */
  vocabBytes: number;
  projects: string[];
  categories: string[];
  /** Element counts of the arrays, in NAMES order; then the rows' byte offsets (n + 1). */
  lengths: number[];
}

async function storeKey(mem: Memory): Promise<string> {
  const part = async (name: string) => {
    const s = await stat(memPath(mem, name)).catch(() => undefined);
    return s ? `${s.ino}:${s.size}:${s.mtimeMs}` : "-";
  };
  return `${await part("memory_index.json")}|${await part("memory_tombstones.json")}`;
}

function toFact(r: Row): Fact {
  const [id, content, category, tags, created_at, last_accessed, access_count, confidence, src] = r;
  const fact: Fact = { id, content, category, created_at, last_accessed, access_count, score: 0 };
  if (tags) fact.tags = tags;
  if (confidence) fact.confidence = confidence;
  if (src) fact.source_project = src;
  return fact;
}

const toRow = (f: Fact): Row => [
  f.id,
  f.content,
  f.category,
  f.tags ?? null,
  f.created_at,
  f.last_accessed,
  f.access_count,
  f.confidence ?? 0,
  f.source_project ?? "",
];

const pad8 = (x: number) => (x + 7) & ~7;

/** Serialises a corpus (and its facts) for the cache. */
export function encodeCache(key: string, c: Corpus): Uint8Array {
  const enc = new TextEncoder();
  const rows: Uint8Array[] = [];
  const rowStart = new Uint32Array(c.n + 1);
  let total = 0;
  for (let i = 0; i < c.n; i++) {
    const bytes = enc.encode(JSON.stringify(toRow(c.fact(i))));
    rows.push(bytes);
    rowStart[i] = total;
    total += bytes.byteLength;
  }
  rowStart[c.n] = total;
  const vocab = enc.encode(c.vocab.join("\n"));
  // byte offsets of each term in the "\n"-joined vocabulary (a loaded index decodes terms lazily)
  const vocabStart = new Uint32Array(c.vocab.length + 1);
  for (let t = 0, at = 0; t < c.vocab.length; t++) {
    vocabStart[t] = at;
    at += enc.encode(c.vocab[t] as string).byteLength + 1;
  }
  vocabStart[c.vocab.length] = vocab.byteLength + 1;
  const arrays = [...NAMES.map((k) => c[k]), rowStart, vocabStart];
  const header: Header = {
    v: VERSION,
    key,
    n: c.n,
    vocabBytes: vocab.byteLength,
    projects: c.projects,
    categories: c.categories,
    lengths: arrays.map((a) => a.length),
  };
  const head = enc.encode(JSON.stringify(header));
  let size = pad8(8 + head.byteLength) + pad8(vocab.byteLength);
  for (const a of arrays) size += pad8(a.byteLength);
  const out = new Uint8Array(size + total);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, head.byteLength, true);
  out.set(head, 8);
  out.set(vocab, pad8(8 + head.byteLength));
  let off = pad8(8 + head.byteLength) + pad8(vocab.byteLength);
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), off);
    off += pad8(a.byteLength);
  }
  let at = off;
  for (const r of rows) {
    out.set(r, at);
    at += r.byteLength;
  }
  return out;
}

/** The corpus in a cache file, or undefined when it is not one (of this version and key). */
export function decodeCache(bytes: Uint8Array, key: string): Corpus | undefined {
  // Typed-array views need aligned offsets: work on an exclusive, 8-aligned copy if needed.
  const buf = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  if (buf.byteLength < 8) return undefined;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (view.getUint32(0, true) !== MAGIC) return undefined;
  const headLen = view.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + headLen))) as Header;
  if (header.v !== VERSION || header.key !== key) return undefined;
  const vocabAt = pad8(8 + headLen);
  let off = vocabAt + pad8(header.vocabBytes);
  const arrays: Record<string, ArrayBufferView & ArrayLike<number>> = {};
  for (const [k, name] of [...NAMES, "rowStart" as const, "vocabStart" as const].entries()) {
    const Type = name === "rowStart" || name === "vocabStart" ? Uint32Array : ARRAYS[name];
    const len = header.lengths[k] as number;
    arrays[name] = new Type(buf.buffer as ArrayBuffer, buf.byteOffset + off, len);
    off += pad8(len * Type.BYTES_PER_ELEMENT);
  }
  const rowStart = arrays["rowStart"] as Uint32Array;
  const vocabStart = arrays["vocabStart"] as Uint32Array;
  const rowsAt = off;
  const dec = new TextDecoder();
  const made: Array<Fact | undefined> = [];
  const terms: Array<string | undefined> = [];
  let all: string[] | undefined;
  const corpus = {
    n: header.n,
    get vocab(): string[] {
      all ??= Array.from({ length: vocabStart.length - 1 }, (_, t) => corpus.term(t));
      return all;
    },
    term(t: number): string {
      const from = vocabAt + (vocabStart[t] as number);
      const to = vocabAt + (vocabStart[t + 1] as number) - 1;
      terms[t] ??= dec.decode(buf.subarray(from, to));
      return terms[t] as string;
    },
    projects: header.projects,
    categories: header.categories,
    ...arrays,
    fact(i: number): Fact {
      const from = rowsAt + (rowStart[i] as number);
      const to = rowsAt + (rowStart[i + 1] as number);
      made[i] ??= toFact(JSON.parse(dec.decode(buf.subarray(from, to))) as Row);
      return made[i] as Fact;
    },
  };
  return corpus as unknown as Corpus;
}

/**
 * The recall index of the store: from the cache when it matches the store, else built from the
 * store (and the cache rewritten, unless the memory is read-only).
 */
export async function recallIndex(mem: Memory): Promise<FactIndex> {
  const key = await storeKey(mem);
  const path = memPath(mem, RECALL_CACHE);
  if (!key.startsWith("-")) {
    try {
      // mapped, not read: a search touches a small part of the file
      const bytes =
        typeof Bun !== "undefined" ? Bun.mmap(path, { shared: false }) : await readFile(path);
      const corpus = decodeCache(bytes, key);
      if (corpus) return new FactIndex(corpus);
    } catch {
      // missing or unreadable: rebuilt below
    }
  }
  const state = await loadFacts(mem);
  const index = new FactIndex(state.facts.values());
  // Only a store that existed when we looked, and did not change while we read it, is cached.
  if (!mem.readOnly && !key.startsWith("-") && (await storeKey(mem)) === key) {
    await writeFileAtomic(path, encodeCache(key, index.corpus)).catch(() => {}); // best effort
  }
  return index;
}
