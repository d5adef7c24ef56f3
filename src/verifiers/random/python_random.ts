// CPython's `random.Random` (MT19937, Lib/random.py of CPython 3.x): `seed(int)`, `random()`,
// `getrandbits()`, `randbelow`/`randrange`/`randint` (also beyond 2^32, as BigInt), `choice()`,
// `shuffle()`, `sample()`, `uniform()` and `gauss()`, bit for bit, so that seeded Python programs
// (langdetect's detection, the grl games, reasoning-gym's generators) draw the same values here.

const N = 624;
const M = 397;

export class PythonRandom {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;
  private gaussNext: number | undefined;

  constructor(seed = 0) {
    this.seed(seed);
  }

  /** `random.seed(n)` for a non-negative integer below 2^53 (the key is its 32-bit words). */
  seed(n: number): void {
    let a = Math.abs(Math.trunc(n));
    const key: number[] = [];
    do {
      key.push(a % 0x100000000);
      a = Math.floor(a / 0x100000000);
    } while (a > 0);
    this.initByArray(key);
    this.gaussNext = undefined;
  }

  /**
   * `random.seed(n)` for an integer of any size, given as its 32-bit words from the least significant
   * (CPython drops the high zero words; pass [0] for 0).
   */
  seedWords(words: readonly number[]): void {
    const key = [...words];
    while (key.length > 1 && key[key.length - 1] === 0) key.pop();
    this.initByArray(key.length > 0 ? key.map((w) => w >>> 0) : [0]);
    this.gaussNext = undefined;
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]!;
      mt[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(prev ^ (prev >>> 30), 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(prev ^ (prev >>> 30), 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** `genrand_uint32`. */
  private nextUint32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk]! & 0x80000000) | (mt[kk + 1]! & 0x7fffffff);
        mt[kk] = mt[kk + M]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk]! & 0x80000000) | (mt[kk + 1]! & 0x7fffffff);
        mt[kk] = mt[kk + (M - N)]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      const y = (mt[N - 1]! & 0x80000000) | (mt[0]! & 0x7fffffff);
      mt[N - 1] = mt[M - 1]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random()`: 53 random bits in [0, 1). */
  random(): number {
    const a = this.nextUint32() >>> 5;
    const b = this.nextUint32() >>> 6;
    return (a * 67108864 + b) * (1 / 9007199254740992);
  }

  /** `getrandbits(k)` for 1 ≤ k ≤ 32. */
  private getrandbits(k: number): number {
    return this.nextUint32() >>> (32 - k);
  }

  /** `getrandbits(k)` for any k ≥ 1: 32-bit words from the least significant up, the last one cut to what is left. */
  getrandbitsBig(k: number): bigint {
    let result = 0n;
    let shift = 0n;
    for (let left = k; left > 0; left -= 32) {
      const word = left < 32 ? this.nextUint32() >>> (32 - left) : this.nextUint32();
      result |= BigInt(word) << shift;
      shift += 32n;
    }
    return result;
  }

  /** `_randbelow(n)` by rejection sampling on `n.bit_length()` bits (n < 2^32). */
  randbelow(n: number): number {
    if (n <= 0) return 0;
    if (n > 0xffffffff) return Number(this.randbelowBig(BigInt(n)));
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `_randbelow(n)` for an n of any size. */
  randbelowBig(n: bigint): bigint {
    if (n <= 0n) return 0n;
    if (n <= 0xffffffffn) return BigInt(this.randbelow(Number(n)));
    const k = n.toString(2).length;
    let r = this.getrandbitsBig(k);
    while (r >= n) r = this.getrandbitsBig(k);
    return r;
  }

  /** `randrange(start, stop)` (step 1); throws as Python does on an empty range. */
  randrangeBig(start: bigint, stop: bigint): bigint {
    const width = stop - start;
    if (width <= 0n) throw new RangeError(`empty range in randrange(${start}, ${stop})`);
    return start + this.randbelowBig(width);
  }

  /** `randint(a, b)`, both ends included, as BigInt (any size). */
  randintBig(a: bigint, b: bigint): bigint {
    return this.randrangeBig(a, b + 1n);
  }

  /** `randint(a, b)` for safe integers. */
  randint(a: number, b: number): number {
    return Number(this.randintBig(BigInt(a), BigInt(b)));
  }

  /** `shuffle(x)` in place (Fisher–Yates from the end, `_randbelow(i + 1)`). */
  shuffle<T>(items: T[]): void {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
  }

  /** `sample(population, k)`: CPython's two strategies (a pool for small populations, a selected-set otherwise). */
  sample<T>(population: readonly T[], k: number): T[] {
    const n = population.length;
    if (k < 0 || k > n) throw new RangeError("Sample larger than population or is negative");
    const result: T[] = new Array<T>(k);
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    if (n <= setsize) {
      const pool = [...population];
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result[i] = pool[j]!;
        pool[j] = pool[n - i - 1]!;
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result[i] = population[j]!;
      }
    }
    return result;
  }

  /** `uniform(a, b)`. */
  uniform(a: number, b: number): number {
    return a + (b - a) * this.random();
  }

  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("Cannot choose from an empty sequence");
    return items[this.randbelow(items.length)]!;
  }

  /** `gauss(mu, sigma)` with CPython's cached second value. */
  gauss(mu = 0, sigma = 1): number {
    let z = this.gaussNext;
    this.gaussNext = undefined;
    if (z === undefined) {
      const x2pi = this.random() * 2 * Math.PI;
      const g2rad = Math.sqrt(-2 * Math.log(1 - this.random()));
      z = Math.cos(x2pi) * g2rad;
      this.gaussNext = Math.sin(x2pi) * g2rad;
    }
    return mu + z * sigma;
  }
}
