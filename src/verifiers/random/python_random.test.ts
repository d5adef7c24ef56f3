// CPython's random.Random beyond what langdetect used: shuffle, both sample strategies, uniform,
// getrandbits past 32 bits and randint over ranges past 2^32, one seeded stream compared with what
// CPython 3.11.7 drew (the values below were printed by it: random.Random(12345), the calls in this order).
import { describe, expect, it } from "vitest";
import { PythonRandom } from "./python_random.js";

describe("PythonRandom draws what CPython's random.Random(12345) draws", () => {
  it("shuffle, sample (pool and set strategies), uniform, getrandbits(100), randint and randrange past 2^32", () => {
    const r = new PythonRandom(12345);
    const items = Array.from({ length: 20 }, (_, i) => i);
    r.shuffle(items);
    expect(items).toEqual([16, 18, 3, 8, 19, 10, 7, 14, 12, 1, 5, 2, 15, 17, 4, 6, 11, 9, 0, 13]);
    expect(r.sample(Array.from({ length: 30 }, (_, i) => i), 7)).toEqual([16, 23, 13, 18, 29, 5, 4]);
    expect(r.sample(Array.from({ length: 1000 }, (_, i) => i), 12)).toEqual([210, 736, 79, 194, 857, 349, 329, 24, 469, 347, 27, 990]);
    expect([r.uniform(-3.5, 10), r.uniform(-3.5, 10), r.uniform(-3.5, 10)]).toEqual([3.3945819937719337, 5.82459795885649, 2.1089594181376494]);
    expect(r.getrandbitsBig(100)).toBe(1082565691127590110429627897725n);
    const big = 10n ** 30n;
    expect([r.randintBig(-big, big), r.randintBig(-big, big), r.randintBig(-big, big)]).toEqual([-557898198270004663109626674736n, 81665682308591157928221538895n, 480094018146938854070881603442n]);
    expect([r.randbelow(2 ** 40), r.randbelow(2 ** 40), r.randbelow(2 ** 40)]).toEqual([512711731176, 506979017700, 474590557138]);
  });

  it("refuses an empty range and an oversized sample as Python does", () => {
    const r = new PythonRandom(1);
    expect(() => r.randintBig(5n, 4n)).toThrow(RangeError);
    expect(() => r.sample([1, 2], 3)).toThrow(/Sample larger than population/);
  });
});
