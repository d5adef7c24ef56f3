// End to end: `gym eval run --resources-server mcqa|instruction_following` on the shipped example
// rows, every server real on 127.0.0.1, the fake engine answering each prompt with a hand-written
// response. Checks the configs load through the CLI and the rewards, extras and metrics land in the
// output files.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine, type Turn } from "./doubles/fake_engine.js";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const readJsonl = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

const mcqaRows = readJsonl(join(ROOT, "src/environments/mcqa/data/example.jsonl"));
const ifRows = readJsonl(join(ROOT, "src/environments/instruction_following/data/example.jsonl"));

/** What the "model" says to each example prompt (by the prompt's text). */
const ANSWERS = new Map<string, string>([
  // mcqa: right, wrong, right in a \text{} box, option text only (no answer), right.
  [mcqaRows[0]!.responses_create_params.input[0].content, "PCR targets the mutation. \\boxed{B}"],
  [mcqaRows[1]!.responses_create_params.input[0].content, "\\boxed{D}"],
  [mcqaRows[2]!.responses_create_params.input[0].content, "\\boxed{\\text{I: NGS can detect coding and non-coding regions}}"],
  [mcqaRows[3]!.responses_create_params.input[0].content, "\\boxed{A polygenic risk score}"],
  [mcqaRows[4]!.responses_create_params.input[0].content, "\\boxed{E}"],
  // instruction_following: all followed, all followed, the forbidden word "part", all followed, no title.
  [ifRows[0]!.responses_create_params.input[0].content, "He wakes.\n\nHe remembers.\n\nCrash! It all returns.\n\nHe will win this contest"],
  [ifRows[1]!.responses_create_params.input[0].content, "SQL TIPS\n* USE INDEXES\n* FILTER EARLY\n***\n* JOIN ON KEYS\n* LIMIT ROWS\n* AVOID STAR"],
  [ifRows[2]!.responses_create_params.input[0].content, "Relationship games are part of the market. Relationship sims sell."],
  [ifRows[3]!.responses_create_params.input[0].content, Array.from({ length: 17 }, (_, i) => `Topic ${i} is on page [${i}].`).join(" ")],
  [ifRows[4]!.responses_create_params.input[0].content, "Install Java first.\n***\nThen run the jar."],
]);

function policy(turns: Turn[]) {
  const prompt = turns.findLast((t) => t.role === "user")?.content ?? "";
  return { text: ANSWERS.get(prompt) ?? "I do not know." };
}

let engine: FakeEngine;
let dir: string;
beforeAll(async () => {
  engine = await startFakeEngine({ policy });
  dir = mkdtempSync(join(tmpdir(), "gym-mcqa-if-"));
});
afterAll(() => engine.close());

function gym(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/main.ts"), ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

async function evalRun(env: string): Promise<{ rows: Array<Record<string, any>>; metrics: Array<Record<string, any>> }> {
  const output = join(dir, `${env}.jsonl`);
  const result = await gym([
    "eval",
    "run",
    "--resources-server",
    env,
    "--model-type",
    "vllm_model",
    "--model-url",
    engine.baseUrl,
    "--model",
    "fake-model",
    "-i",
    join(ROOT, `src/environments/${env}/data/example.jsonl`),
    "-o",
    output,
    "--num-repeats",
    "2",
    "--quiet",
  ]);
  expect(result.code, result.stderr + result.stdout).toBe(0);
  const rows = readJsonl(output).sort((a, b) => a._ng_task_index - b._ng_task_index || a._ng_rollout_index - b._ng_rollout_index);
  const metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
  return { rows, metrics };
}

describe("gym eval run", () => {
  it("mcqa: extracted answers, rewards and pass/majority metrics", async () => {
    const { rows, metrics } = await evalRun("mcqa");
    expect(rows).toHaveLength(10);
    expect(rows.map((r) => r.extracted_answer)).toEqual(["B", "B", "D", "D", "I", "I", null, null, "E", "E"]);
    expect(rows.map((r) => r.reward)).toEqual([1, 1, 0, 0, 1, 1, 0, 0, 1, 1]);
    const m = metrics[0]!.agent_metrics;
    expect(m["pass@1/accuracy"]).toBeCloseTo(60, 10);
    expect(m["majority@2/accuracy"]).toBeCloseTo(60, 10);
    expect(m["pass@1[avg-of-2]/no_answer"]).toBeCloseTo(20, 10);
    expect(Object.keys(metrics[0]!.key_metrics)).toContain("pass@1[avg-of-2]/accuracy");
  }, 90_000);

  it("instruction_following: per-instruction verdicts and reward", async () => {
    const { rows, metrics } = await evalRun("instruction_following");
    expect(rows).toHaveLength(10);
    expect(rows.map((r) => r.follow_instruction_list)).toEqual(
      [[true, true], [true, true, true], [false, true], [true, true, true], [true, false, true]].flatMap((l) => [l, l]),
    );
    expect(rows.map((r) => r.reward)).toEqual([1, 1, 1, 1, 0, 0, 1, 1, 0, 0]);
    expect(rows[0]!.verifier_metadata.grading_mode).toBe("binary");
    expect(metrics[0]!.agent_metrics["mean/reward"]).toBeCloseTo(0.6, 12);
  }, 90_000);
});
