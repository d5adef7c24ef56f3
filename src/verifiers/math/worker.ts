// Pool worker: verifies one (expected, generated) pair per message. Runs in a worker thread so the
// pool can kill it when a pathological answer (`9^{9^{9^9}}`, a 10,000-character expression) takes
// longer than the deadline; nothing here needs to be interruptible.
import { parentPort } from "node:worker_threads";
import type { EquivalenceOptions } from "./equivalence.js";
import { verifyAnswer } from "./verify.js";

export interface WorkerRequest {
  id: number;
  expected: string;
  generated: string;
  options: EquivalenceOptions;
}

export type WorkerReply =
  | { ready: true }
  | { id: number; ok: true; reward: number; extracted: string | null }
  | { id: number; ok: false; error: string };

const port = parentPort;
if (!port) throw new Error("verifiers/math/worker.ts must run in a worker thread");

port.on("message", (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    const verdict = verifyAnswer(request.expected, request.generated, request.options);
    reply = { id: request.id, ok: true, ...verdict };
  } catch (error) {
    reply = { id: request.id, ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  port.postMessage(reply);
});

// Warm up (parser dictionary, decimal.js constants) before taking work, so the first job's deadline
// measures verification, not module start-up.
verifyAnswer("\\frac{1}{2}", "\\boxed{0.5}");
port.postMessage({ ready: true } satisfies WorkerReply);
