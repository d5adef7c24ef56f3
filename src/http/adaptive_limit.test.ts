// The AIMD gate of `--concurrency auto` on its own, against an engine played by a latency rule (no
// server, no clock: each call's latency is given when it is released). The callers keep the gate in
// use as a run does: one more call always waits, and each finished call is replaced by a new one.
import { describe, expect, it } from "vitest";
import { AdaptiveLimit, type SampleKind } from "./adaptive_limit.js";

type Release = (kind: SampleKind, latencyMs?: number) => void;

/** 100 ms up to `knee` in flight, (in flight / knee)² × that past it: throughput falls past the knee. */
const engine = (knee: number) => (inFlight: number) => (inFlight <= knee ? 100 : 100 * (inFlight / knee) ** 2);

class Load {
  private readonly pending: Array<Promise<Release>> = [];
  constructor(
    private readonly gate: AdaptiveLimit,
    public latency: (inFlight: number) => number,
  ) {}

  private fill(): void {
    while (this.gate.queued === 0) this.pending.push(this.gate.acquire());
  }

  /** `calls` calls finish, in the order they were let in, each with the latency of the calls in flight. */
  async finish(calls: number): Promise<void> {
    this.fill();
    for (let i = 0; i < calls; i++) {
      const release = await this.pending.shift()!;
      release("ok", this.latency(this.gate.inFlight));
      this.fill();
    }
  }

  /** About one call latency: as many calls finish as the limit. */
  round(): Promise<void> {
    return this.finish(this.gate.limit);
  }

  /** Runs `rounds` rounds; the limit's mean over the last `last` of them. */
  async settled(rounds: number, last: number): Promise<number> {
    const seen: number[] = [];
    for (let i = 0; i < rounds; i++) {
      await this.round();
      seen.push(this.gate.limit);
    }
    return seen.slice(-last).reduce((a, b) => a + b, 0) / last;
  }
}

function expectWithin20(mean: number, knee: number): void {
  expect(mean).toBeGreaterThanOrEqual(knee * 0.8);
  expect(mean).toBeLessThanOrEqual(knee * 1.2);
}

describe("AdaptiveLimit", () => {
  it("doubles per call latency in slow start; the first slow round ends it, and the cuts find the knee", async () => {
    const gate = new AdaptiveLimit({ name: "t", min: 4, max: 512, lag: () => 0 });
    const load = new Load(gate, engine(64));
    let rounds = 0;
    while (!gate.trajectory.some((p) => p.reason === "latency") && rounds < 20) {
      await load.round();
      rounds++;
    }
    // 4 → 64 is four doublings; the round past the knee shows it (a round per limit's worth of calls),
    // having grown for two rounds at most (a round ends a call latency after the calls it measures began).
    expect(rounds).toBeLessThanOrEqual(8);
    expect(Math.max(...gate.trajectory.map((p) => p.limit))).toBeLessThanOrEqual(64 * 3.2);
    expectWithin20(await load.settled(30, 20), 64);
  });

  it("finds a ceiling of 400 again within a few rounds of a cut, where +1 per round would take dozens", async () => {
    const gate = new AdaptiveLimit({ name: "t", min: 4, max: 512, initial: 300, lag: () => 0 });
    // Out of slow start: one refusal.
    const release = await gate.acquire();
    release("overload");
    const cutTo = gate.limit;
    expect(cutTo).toBe(210);
    const load = new Load(gate, engine(400));
    let rounds = 0;
    while (gate.limit < 0.9 * 300 && rounds < 40) {
      await load.round();
      rounds++;
    }
    expect(rounds).toBeLessThanOrEqual(12);
    // And it keeps probing past where it was cut, up to the knee, without staying far past it.
    expectWithin20(await load.settled(40, 20), 400);
  });

  it("settles within 20% of a knee of 8, which one call more passes (the throughput it implies falls)", async () => {
    const gate = new AdaptiveLimit({ name: "t", min: 2, max: 512, lag: () => 0 });
    const load = new Load(gate, engine(8));
    expectWithin20(await load.settled(60, 30), 8);
  });

  it("cuts once for lag that does not go away (other processes' load), again only when it gets worse", async () => {
    let lag = 0;
    const gate = new AdaptiveLimit({ name: "t", min: 2, max: 64, initial: 16, lag: () => lag });
    const release = await gate.acquire();
    release("overload"); // out of slow start
    const load = new Load(gate, () => 100);
    lag = 300;
    for (let i = 0; i < 10; i++) await load.round();
    const lagCuts = () => gate.trajectory.filter((p) => p.reason === "lag").length;
    expect(lagCuts()).toBe(1);
    // Still growing under it: the lag is not this gate's doing.
    expect(gate.trajectory.at(-1)!.reason).toBe("increase");
    lag = 600;
    await load.finish(3 * gate.limit);
    expect(lagCuts()).toBe(2);
    // Gone and back: a new spell, a new cut.
    lag = 0;
    await load.finish(3 * gate.limit);
    lag = 300;
    await load.finish(3 * gate.limit);
    expect(lagCuts()).toBe(3);
  });
});
