// `npm run bench -- judged [--rollouts 2000] [--concurrency 64] [--judge-delay-ms 20]`
// Judged rollouts against a fake engine in its own process that plays the policy and the judge
// (bench/judge_engine_process.ts; judge replies delayed): math_with_judge with the judge on and
// answers only the judge can match (two judge calls per rollout, the swap check), and proof_judge with
// NeMo Gym's config values (one verifier call per rollout). One process (`gym eval run`) per run.
// Prints, per environment: rollouts/s, CPU-ms per rollout of Gymkit's process tree (the engine
// excluded), judge calls, and judge calls in flight as the engine saw them (max, time-weighted mean).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gym, TreeMeter, waitFor } from "./collect.js";
import { machineLine, markdownTable } from "./machine.js";
import { REPO_ROOT } from "../test/helpers/cli.js";

export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

interface JudgeStats {
  judgeCalls: number;
  maxInFlight: number;
  meanInFlight: number;
}

export async function startEngine(judgeDelayMs: number): Promise<{ url: string; stop: () => Promise<JudgeStats> }> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "bench", "judge_engine_process.ts"), String(judgeDelayMs)], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const lines: string[] = [];
  let buffered = "";
  const waiters: Array<() => void> = [];
  child.stdout!.on("data", (d: Buffer) => {
    buffered += d.toString();
    let at: number;
    while ((at = buffered.indexOf("\n")) >= 0) {
      lines.push(buffered.slice(0, at));
      buffered = buffered.slice(at + 1);
      waiters.shift()?.();
    }
  });
  const nextLine = async (): Promise<string> => {
    if (lines.length === 0) await new Promise<void>((resolve) => waiters.push(resolve));
    return lines.shift()!;
  };
  const url = await nextLine();
  return {
    url,
    stop: async () => {
      child.kill("SIGTERM");
      const stats = JSON.parse(await nextLine()) as JudgeStats;
      await new Promise((r) => child.once("exit", r));
      return stats;
    },
  };
}

interface Measurement {
  environment: string;
  rollouts: number;
  concurrency: number;
  seconds: number;
  cpuMsPerRollout: number;
  judge: JudgeStats;
  ok: boolean;
}

const MATH_JUDGED = [
  "++math_with_judge.resources_servers.math_with_judge.should_use_judge=true",
];

async function run(environment: string, args: string[], rollouts: number, concurrency: number, judgeDelayMs: number, dir: string): Promise<Measurement> {
  const engine = await startEngine(judgeDelayMs);
  const output = join(dir, `${environment}.jsonl`);
  const started = Date.now();
  const child = gym(["eval", "run", ...args, "--model-type", "vllm_model", "--model-url", engine.url, "--model", "m", "-o", output, "--concurrency", String(concurrency), "--overwrite", "--quiet"]);
  const meter = new TreeMeter(() => [child.pid!]);
  meter.start();
  const code = await waitFor(child);
  meter.sample();
  meter.stop();
  const seconds = (Date.now() - started) / 1000;
  const judge = await engine.stop();
  const rows = readFileSync(output, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as { reward: number });
  const allRewarded = rows.length === rollouts && rows.every((r) => r.reward > 0);
  return { environment, rollouts, concurrency, seconds, cpuMsPerRollout: meter.cpuMs() / rollouts, judge, ok: code === 0 && allRewarded };
}

export default async function main(): Promise<void> {
  const rollouts = Number(arg("rollouts", "2000"));
  const concurrency = Number(arg("concurrency", "64"));
  const judgeDelayMs = Number(arg("judge-delay-ms", "20"));
  const dir = mkdtempSync(join(tmpdir(), "gym-bench-judged-"));
  try {
    // math_with_judge: distinct questions, an answer in words the symbolic check cannot read.
    const mathInput = join(dir, "math.jsonl");
    writeFileSync(
      mathInput,
      Array.from({ length: rollouts }, (_, i) => JSON.stringify({ responses_create_params: { input: [{ role: "user", content: `(${i}) What is 21 plus 21?` }] }, question: `(${i}) What is 21 plus 21?`, expected_answer: "42" })).join("\n") + "\n",
    );
    // proof_judge: NeMo Gym's five example rows, repeated.
    const proofRows = join(REPO_ROOT, "src", "environments", "proof_judge", "data", "example.jsonl");
    const proofRepeats = Math.ceil(rollouts / 5);
    const rows: Measurement[] = [];
    rows.push(await run("math_with_judge", ["--resources-server", "math_with_judge", ...MATH_JUDGED, "-i", mathInput], rollouts, concurrency, judgeDelayMs, dir));
    process.stderr.write("math_with_judge: done\n");
    rows.push(await run("proof_judge", ["--resources-server", "proof_judge", "-i", proofRows, "--num-repeats", String(proofRepeats)], proofRepeats * 5, concurrency, judgeDelayMs, dir));
    process.stderr.write("proof_judge: done\n");
    const headers = ["environment", "rollouts", "concurrency", "judge calls", "rollouts/s", "CPU ms / rollout", "judge calls in flight: max", "mean", "all rewarded, exit 0"];
    const fmt = (m: Measurement) => [m.environment, m.rollouts, m.concurrency, m.judge.judgeCalls, (m.rollouts / m.seconds).toFixed(0), m.cpuMsPerRollout.toFixed(2), m.judge.maxInFlight, m.judge.meanInFlight.toFixed(1), m.ok ? "yes" : "NO"];
    process.stdout.write(`## judged\n\n${machineLine()} · judge reply delay ${judgeDelayMs} ms\n\n${markdownTable(headers, rows.map(fmt))}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
