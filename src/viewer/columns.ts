// Growable typed-array columns. The viewer's index keeps a few numbers per line and no objects, so a
// file of millions of lines costs tens of MB and the garbage collector never walks it.

type NumberArray = Float64Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Uint16Array<ArrayBuffer> | Uint8Array<ArrayBuffer>;

export class Column<T extends NumberArray> {
  private data: T;
  length = 0;

  constructor(
    private readonly make: (length: number) => T,
    capacity = 1024,
  ) {
    this.data = make(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = this.make(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  /** The values pushed so far, without a copy: valid until the next push that grows the column. */
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }

  /** The values pushed, in an array of exactly that length (the slack left by doubling is freed). */
  seal(): T {
    return this.data.slice(0, this.length) as T;
  }
}

export const float64Column = () => new Column((n) => new Float64Array(n));
export const uint32Column = () => new Column((n) => new Uint32Array(n));
export const uint16Column = () => new Column((n) => new Uint16Array(n));
export const uint8Column = () => new Column((n) => new Uint8Array(n));

/** Small string ↔ id tables (agent names, failure classes) with a bounded number of ids. */
export class Interner {
  private readonly ids = new Map<string, number>();
  readonly names: string[] = [];

  /** `overflow` names the id every string past `maxIds` shares, so a column of Uint16 never wraps. */
  constructor(
    private readonly maxIds: number,
    private readonly overflow: string,
  ) {}

  id(name: string): number {
    const known = this.ids.get(name);
    if (known !== undefined) return known;
    if (this.names.length < this.maxIds - 1) return this.add(name);
    // The last id is kept for the overflow name, whatever comes after.
    return this.ids.get(this.overflow) ?? this.add(this.overflow);
  }

  find(name: string): number | undefined {
    return this.ids.get(name);
  }

  private add(name: string): number {
    const id = this.names.length;
    this.ids.set(name, id);
    this.names.push(name);
    return id;
  }
}
