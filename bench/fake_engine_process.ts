// A fast fake engine in its own process, so benchmarks measure Gymkit's CPU, not the engine's.
// Prints its base URL on the first line of stdout. Usage: node --import tsx bench/fake_engine_process.ts [port] [delay ms]
// (a delay per reply makes a run slow enough for tests to interrupt it).
import { startFakeEngine } from "../test/doubles/fake_engine.js";

const engine = await startFakeEngine({ port: Number(process.argv[2] ?? 0), delayMs: Number(process.argv[3] ?? 0), recordRequests: false });
process.stdout.write(`${engine.baseUrl}\n`);
process.on("SIGTERM", () => void engine.close().then(() => process.exit(0)));
