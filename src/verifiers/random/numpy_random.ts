// numpy's legacy global random state, as far as Arena-Elo's bootstrap uses it: `np.random.seed(s)`
// (Mersenne Twister MT19937 initialised by init_genrand) and the row positions pandas'
// `DataFrame.sample(frac=1.0, replace=True)` draws from it (`RandomState.choice(n, size=n)`, which is
// the legacy `randint(0, n)`: a 32-bit output masked to the smallest all-ones mask covering n − 1,
// redrawn while above n − 1; nothing is drawn when n is 1). Checked against numpy 2.4 and pandas 2.3
// draws in src/environments/arena_judge/testdata/elo.json (`draws`); shared from here (also used by
// grl_sokoban, proved there against src/environments/grl_sokoban/testdata/levels.json).

const N = 624;
const M = 397;

export class Mt19937 {
  private readonly mt = new Uint32Array(N);
  private index = N;

  /** `np.random.seed(seed)` for an integer seed in [0, 2^32). */
  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError("Seed must be between 0 and 2**32 - 1");
    this.mt[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = this.mt[i - 1]! ^ (this.mt[i - 1]! >>> 30);
      this.mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
  }

  /** The next 32-bit output (genrand_int32). */
  nextUint32(): number {
    const mt = this.mt;
    if (this.index >= N) {
      for (let k = 0; k < N; k++) {
        const y = (mt[k]! & 0x80000000) | (mt[(k + 1) % N]! & 0x7fffffff);
        mt[k] = mt[(k + M) % N]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** Legacy `randint(0, n)` for 1 ≤ n ≤ 2^32: masked rejection sampling on 32-bit outputs. */
  below(n: number): number {
    const range = n - 1;
    if (range === 0) return 0;
    let mask = range;
    mask |= mask >>> 1;
    mask |= mask >>> 2;
    mask |= mask >>> 4;
    mask |= mask >>> 8;
    mask |= mask >>> 16;
    mask >>>= 0;
    for (;;) {
      const value = (this.nextUint32() & mask) >>> 0;
      if (value <= range) return value;
    }
  }

  /** The positions `sample(frac=1.0, replace=True)` takes from a table of n rows. */
  resamplePositions(n: number): number[] {
    return Array.from({ length: n }, () => this.below(n));
  }
}
