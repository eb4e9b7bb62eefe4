/** Scores per fact for recall (lib/memory/retrieve.ts), and a partial top-k. */
/** Scores per fact: a Map's interface over a dense array (searches touch thousands of facts). */
export class Scores {
  private readonly s: Float64Array;
  private readonly seen: Uint8Array;
  private readonly list: number[] = [];
  constructor(n: number) {
    this.s = new Float64Array(n);
    this.seen = new Uint8Array(n);
  }
  get size(): number {
    return this.list.length;
  }
  has(i: number): boolean {
    return this.seen[i] === 1;
  }
  get(i: number): number | undefined {
    return this.seen[i] ? this.s[i] : undefined;
  }
  set(i: number, v: number): this {
    if (!this.seen[i]) {
      this.seen[i] = 1;
      this.list.push(i);
    }
    this.s[i] = v;
    return this;
  }
  /** Adds `v` to fact i's score (0 when it had none). */
  add(i: number, v: number): void {
    if (!this.seen[i]) {
      this.seen[i] = 1;
      this.list.push(i);
      this.s[i] = v;
    } else this.s[i] = (this.s[i] as number) + v;
  }
  keys(): number[] {
    return this.list;
  }
  /**
   * The facts whose score × `weight(i)` is among the `k` best (ties at the cut included), in no
   * particular order — all of them when there are no more than k.
   */
  best(k: number, weight: (i: number) => number): number[] {
    if (this.list.length <= k) return this.list;
    const v = new Float64Array(this.list.length);
    for (let j = 0; j < this.list.length; j++) {
      const i = this.list[j] as number;
      v[j] = (this.s[i] as number) * weight(i);
    }
    const cut = (Float64Array.from(v).sort()[v.length - k] as number) ?? Number.NEGATIVE_INFINITY;
    return this.list.filter((_, j) => (v[j] as number) >= cut);
  }
  /**
   * The k best facts by score × `weight(i)`, best first (ties: the earlier added first). Small k
   * keeps a sorted list; larger k cuts at the k-th value (a native sort of the values) first.
   */
  top(k: number, weight: (i: number) => number = () => 1): Array<[number, number]> {
    const n = this.list.length;
    if (k > 16 && n > 2 * k) return this.topByCut(k, weight);
    const out: Array<[number, number]> = [];
    let floor = Number.NEGATIVE_INFINITY;
    for (const i of this.list) {
      const v = (this.s[i] as number) * weight(i);
      if (out.length >= k && v <= floor) continue;
      let j = out.length;
      while (j > 0 && (out[j - 1] as [number, number])[1] < v) j--;
      out.splice(j, 0, [i, v]);
      if (out.length > k) out.pop();
      floor = (out[out.length - 1] as [number, number])[1];
    }
    return out;
  }

  private topByCut(k: number, weight: (i: number) => number): Array<[number, number]> {
    const n = this.list.length;
    const v = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      const i = this.list[j] as number;
      v[j] = (this.s[i] as number) * weight(i);
    }
    const cut = Float64Array.from(v).sort()[n - k] as number;
    const pos: number[] = [];
    for (let j = 0; j < n; j++) if ((v[j] as number) > cut) pos.push(j);
    for (let j = 0; j < n && pos.length < k; j++) if (v[j] === cut) pos.push(j);
    pos.sort((a, b) => (v[b] as number) - (v[a] as number) || a - b);
    return pos.map((j) => [this.list[j] as number, v[j] as number]);
  }

  entries(): Array<[number, number]> {
    return this.list.map((i) => [i, this.s[i] as number]);
  }
  [Symbol.iterator](): IterableIterator<[number, number]> {
    return this.entries()[Symbol.iterator]();
  }
}

export interface Ranked {
  i: number;
  score: number;
  relevance: number;
  live: number;
}

/** The k first of `list` in `order` (unsorted), without sorting the whole list. */
export function topOf(
  list: Ranked[],
  k: number,
  order: (a: Ranked, b: Ranked) => number,
): Ranked[] {
  if (list.length <= k) return [...list];
  const out: Ranked[] = [];
  for (const r of list) {
    if (out.length >= k && order(r, out[k - 1] as Ranked) >= 0) continue;
    let j = out.length;
    while (j > 0 && order(r, out[j - 1] as Ranked) < 0) j--;
    out.splice(j, 0, r);
    if (out.length > k) out.pop();
  }
  return out;
}
