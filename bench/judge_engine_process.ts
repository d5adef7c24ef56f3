// A fake engine in its own process for the judged-rollouts benchmark (bench/judged.ts): it plays both
// the policy and the judge of math_with_judge and proof_judge, and measures the judge calls in flight
// as it sees them (received, reply not yet written). Judge replies are delayed (a judge is slower than
// the bench's policy), so calls overlap as they would against a real judge. Prints its base URL on the
// first line of stdout; on SIGTERM prints its judge statistics as one JSON line and exits.
// Usage: node --import tsx bench/judge_engine_process.ts [judge delay ms]
import { startFakeEngine, type Turn } from "../test/doubles/fake_engine.js";

const judgeDelayMs = Number(process.argv[2] ?? 20);

const isMathJudge = (text: string) => text.includes("[[A=B]]");
const isProofVerifier = (text: string) => text.startsWith("## Instruction\n\nYour task is to evaluate the quality of a solution");
const isProver = (text: string) => text.startsWith("Your task is to solve a given problem.");

let inFlight = 0;
let maxInFlight = 0;
let judgeCalls = 0;
let weightedSum = 0; // ∑ inFlight · dt over the busy window, for the time-weighted mean
let lastChange = 0;
let firstArrival = 0;
let lastDeparture = 0;

function change(delta: number): void {
  const now = performance.now();
  if (lastChange) weightedSum += inFlight * (now - lastChange);
  lastChange = now;
  inFlight += delta;
  if (delta > 0) {
    judgeCalls++;
    if (!firstArrival) firstArrival = now;
    maxInFlight = Math.max(maxInFlight, inFlight);
  } else {
    lastDeparture = now;
  }
}

const textOf = (turns: Turn[]) => turns.map((t) => t.content).join("\n");
const lastUser = (turns: Turn[]) => turns.findLast((t) => t.role === "user")?.content ?? "";

/** The last user message's text of a Chat Completions or Responses body. */
function lastUserOfBody(body: Record<string, unknown>): string {
  const items = (Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : []) as Array<Record<string, unknown>>;
  const user = items.findLast((m) => m.role === "user");
  const content = user?.content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? "").join("") : "";
}

const engine = await startFakeEngine({
  recordRequests: false,
  policy: (turns) => {
    const all = textOf(turns);
    if (isMathJudge(all)) return { text: "Both answers are 42. [[A=B]]" };
    if (isProofVerifier(lastUser(turns))) return { text: "Every step holds.\n\nBased on my evaluation, the final overall score should be:\n\\boxed{1}" };
    if (isProver(lastUser(turns))) return { text: "## Solution\nBy the lemma and induction the claim holds.\n\n## Self Evaluation\nThe proof is complete. \\boxed{1}" };
    return { text: "It is forty-two." }; // a math answer only the judge can match
  },
  delayMs: (_path, body) => {
    if (!isMathJudge(JSON.stringify(body)) && !isProofVerifier(lastUserOfBody(body))) return 0;
    change(+1);
    setTimeout(() => change(-1), judgeDelayMs);
    return judgeDelayMs;
  },
});
process.stdout.write(`${engine.baseUrl}\n`);
process.on("SIGTERM", () => {
  const window = lastDeparture - firstArrival;
  const stats = { judgeCalls, maxInFlight, meanInFlight: window > 0 ? weightedSum / window : 0 };
  process.stdout.write(`${JSON.stringify(stats)}\n`, () => void engine.close().then(() => process.exit(0)));
});
