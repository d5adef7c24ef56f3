// The worker pool: verifications run in worker threads under a hard deadline; a verification that
// overruns is answered with reward 0 at the deadline and its worker replaced, while the other
// workers keep answering. Exercised from src (the .ts worker through tsx) and from the built dist.
import { existsSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { MathVerifierPool } from "./pool.js";

/** A legitimate but slow answer: an exact binomial with a 10^100 top takes seconds (SymPy's too). */
const SLOW = "\\boxed{\\binom{10^{100}}{5000}}";
const TOWER = "\\boxed{9^{9^{9^9}}}";
/** 10,000 characters of arithmetic. */
const LONG = `\\boxed{${Array.from({ length: 5000 }, () => "1").join("+")}}`;

describe("MathVerifierPool from src", () => {
  const pools: MathVerifierPool[] = [];
  const pool = (options: ConstructorParameters<typeof MathVerifierPool>[0]) => {
    const p = new MathVerifierPool(options);
    pools.push(p);
    return p;
  };
  afterAll(() => Promise.all(pools.map((p) => p.close())));

  it("verifies in a worker thread", async () => {
    const p = pool({ size: 1 });
    expect(await p.verify("8", "3 + 5 = \\boxed{8}")).toMatchObject({ reward: 1, extracted: "8", outcome: "ok" });
    expect(await p.verify("17.001", "\\boxed{17}")).toMatchObject({ reward: 0, extracted: "17", outcome: "ok" });
  });

  it("answers a power tower and a 10,000-character expression with 0, in time, while others complete", async () => {
    expect(LONG.length).toBeGreaterThanOrEqual(10_000);
    const p = pool({ size: 2, timeoutMs: 10_000 });
    const hard = [p.verify("5", TOWER), p.verify("1", LONG)];
    const normal = Array.from({ length: 20 }, (_, i) => p.verify(String(i), `The answer is \\boxed{${i}}.`));
    // Refused by the verifier itself ("ok"), not cut by the 10 s deadline ("timeout", a worker
    // replaced): neither input is computed. Classified rather than timed, so a busy machine cannot
    // turn a refusal into a failure.
    for (const verdict of await Promise.all(hard)) expect(verdict).toMatchObject({ reward: 0, outcome: "ok" });
    expect((await Promise.all(normal)).map((v) => v.reward)).toEqual(Array(20).fill(1));
    expect(p.replaced).toBe(0);
  });

  it("kills a verification at its deadline, answers 0, replaces the worker, and keeps serving", async () => {
    const p = pool({ size: 2, timeoutMs: 1_000 });
    await p.verify("1", "\\boxed{1}"); // both workers warm
    const started = performance.now();
    const slow = p.verify("1", SLOW);
    const others = Array.from({ length: 10 }, (_, i) => p.verify(String(i), `\\boxed{${i}}`));
    const verdict = await slow;
    const elapsed = performance.now() - started;
    // Answered at the deadline, not when the computation would have finished (seconds later):
    // "timeout" comes only from the deadline timer, which answers only while the worker has not
    // replied yet, i.e. while the computation is still running. A timer never fires early, so the
    // verdict cannot come before the deadline either.
    expect(verdict).toMatchObject({ reward: 0, extracted: null, outcome: "timeout" });
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect((await Promise.all(others)).every((v) => v.reward === 1)).toBe(true);
    expect(p.replaced).toBe(1);
    // The replacement worker serves the next verification.
    expect(await p.verify("\\frac{1}{2}", "\\boxed{0.5}")).toMatchObject({ reward: 1, outcome: "ok" });
  });

  it("after close, answers 0 without work", async () => {
    const p = pool({ size: 1 });
    await p.close();
    expect(await p.verify("1", "\\boxed{1}")).toMatchObject({ reward: 0, outcome: "error" });
  });
});

// `npm test` builds dist before vitest; run alone, the dist check is skipped if there is no build.
const distPool = new URL("../../../dist/verifiers/math/pool.js", import.meta.url);
describe.skipIf(!existsSync(distPool))("MathVerifierPool from the built dist", () => {
  it("loads the .js worker and verifies, including a deadline kill", async () => {
    const { MathVerifierPool: DistPool } = (await import(distPool.href)) as typeof import("./pool.js");
    const p = new DistPool({ size: 1, timeoutMs: 1_000 });
    try {
      expect(await p.verify("\\(\\frac{333}{1997}\\)", "So $\\boxed{\\dfrac{333}{1997}}$.")).toMatchObject({ reward: 1, outcome: "ok" });
      expect(await p.verify("1", SLOW)).toMatchObject({ reward: 0, outcome: "timeout" });
      expect(await p.verify("2", "\\boxed{2}")).toMatchObject({ reward: 1, outcome: "ok" });
      expect(p.replaced).toBe(1);
    } finally {
      await p.close();
    }
  });
});
