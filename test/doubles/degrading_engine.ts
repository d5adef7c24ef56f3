// A test double for an engine with a ceiling: up to `knee` model calls in flight each takes
// `latencyMs`; past it every call slows down more than the extra work is worth (latency grows as
// (in flight / knee)², so throughput falls), and past `rejectAbove` (default 1.5 × knee) a call is
// refused at once with 503, as a server whose queue is full. It plays the shipped example
// environments like the plain fake engine (test/doubles/fake_engine.ts), which it is built on.
import { startFakeEngine, type FakeEngine } from "./fake_engine.js";

export interface DegradingEngineOptions {
  knee: number;
  latencyMs: number;
  /** In flight past which calls are refused with 503; default 1.5 × knee. */
  rejectAbove?: number;
  port?: number;
}

export interface DegradingEngine extends FakeEngine {
  /** Model calls answered 200 and refused 503 so far, and the most ever in flight. */
  stats: { answered: number; refused: number; peakInFlight: number };
}

/** The latency of a call that arrives with `inFlight` calls (itself included) in flight. */
export function degradedLatencyMs(inFlight: number, knee: number, latencyMs: number): number {
  return inFlight <= knee ? latencyMs : latencyMs * (inFlight / knee) ** 2;
}

export async function startDegradingEngine(options: DegradingEngineOptions): Promise<DegradingEngine> {
  const rejectAbove = options.rejectAbove ?? Math.floor(options.knee * 1.5);
  const refused = new WeakSet<object>();
  const stats = { answered: 0, refused: 0, peakInFlight: 0 };
  let inFlight = 0;
  const isModelCall = (path: string) => path.endsWith("/responses") || path.endsWith("/chat/completions") || path.endsWith("/completions");
  const engine = await startFakeEngine({
    port: options.port ?? 0,
    recordRequests: false,
    delayMs: (path, body) => {
      if (!isModelCall(path)) return 0;
      if (inFlight + 1 > rejectAbove) {
        refused.add(body);
        stats.refused++;
        return 0;
      }
      inFlight++;
      stats.peakInFlight = Math.max(stats.peakInFlight, inFlight);
      stats.answered++;
      const delay = degradedLatencyMs(inFlight, options.knee, options.latencyMs);
      setTimeout(() => inFlight--, delay);
      return delay;
    },
    respond: (_path, body) => (refused.has(body) ? { status: 503, body: { error: { message: "engine overloaded: queue full" } } } : undefined),
  });
  return Object.assign(engine, { stats });
}
