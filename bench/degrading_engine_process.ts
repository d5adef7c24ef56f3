// The degrading fake engine (test/doubles/degrading_engine.ts) in its own process, for
// bench/concurrency.ts. Prints its base URL on the first line of stdout.
// Usage: node --import tsx bench/degrading_engine_process.ts KNEE LATENCY_MS
import { startDegradingEngine } from "../test/doubles/degrading_engine.js";

const engine = await startDegradingEngine({ knee: Number(process.argv[2] ?? 32), latencyMs: Number(process.argv[3] ?? 1000) });
process.stdout.write(`${engine.baseUrl}\n`);
process.on("SIGTERM", () => {
  process.stderr.write(`degrading engine: ${JSON.stringify(engine.stats)}\n`);
  void engine.close().then(() => process.exit(0));
});
