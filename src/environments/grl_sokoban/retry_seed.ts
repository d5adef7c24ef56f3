// The seed NeMo Gym's SokobanEnv.reset retries with when generation fails: abs(hash(str(seed))) % 2**32.
// CPython hashes a str with SipHash-1-3 keyed by the process's hash secret, which is random per process
// unless PYTHONHASHSEED is set, so NeMo Gym's retry levels cannot be reproduced in general. Gymkit
// computes the hash with the key PYTHONHASHSEED=0 gives (all zeros): the same levels as a NeMo Gym
// server started with PYTHONHASHSEED=0 (testdata/levels.json, `retry_seed`, proves it).

const MASK = (1n << 64n) - 1n;
const rotl = (x: bigint, b: bigint) => ((x << b) | (x >> (64n - b))) & MASK;

/** CPython's siphash13 (Python/pyhash.c) over bytes, key (k0, k1). */
function siphash13(k0: bigint, k1: bigint, bytes: Uint8Array): bigint {
  let v0 = k0 ^ 0x736f6d6570736575n;
  let v1 = k1 ^ 0x646f72616e646f6dn;
  let v2 = k0 ^ 0x6c7967656e657261n;
  let v3 = k1 ^ 0x7465646279746573n;
  const round = () => {
    v0 = (v0 + v1) & MASK; v2 = (v2 + v3) & MASK; v1 = rotl(v1, 13n) ^ v0; v3 = rotl(v3, 16n) ^ v2; v0 = rotl(v0, 32n);
    v2 = (v2 + v1) & MASK; v0 = (v0 + v3) & MASK; v1 = rotl(v1, 17n) ^ v2; v3 = rotl(v3, 21n) ^ v0; v2 = rotl(v2, 32n);
  };
  const word = (start: number, length: number) => {
    let m = 0n;
    for (let i = length - 1; i >= 0; i--) m = (m << 8n) | BigInt(bytes[start + i]!);
    return m;
  };
  let offset = 0;
  for (; bytes.length - offset >= 8; offset += 8) {
    const m = word(offset, 8);
    v3 ^= m;
    round();
    v0 ^= m;
  }
  const b = ((BigInt(bytes.length) << 56n) & MASK) | word(offset, bytes.length - offset);
  v3 ^= b;
  round();
  v0 ^= b;
  v2 ^= 0xffn;
  round();
  round();
  round();
  return v0 ^ v1 ^ v2 ^ v3;
}

/** abs(hash(str(seed))) % 2**32 for an integer seed, as CPython computes it with PYTHONHASHSEED=0. */
export function retrySeed(seed: number): number {
  // str(int) is ASCII, hashed as its one-byte characters.
  const bytes = new TextEncoder().encode(String(seed));
  let hash = BigInt.asIntN(64, siphash13(0n, 0n, bytes));
  if (hash === -1n) hash = -2n;
  if (hash < 0n) hash = -hash;
  return Number(hash % (1n << 32n));
}
