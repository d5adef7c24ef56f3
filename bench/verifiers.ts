// `npm run bench -- verifiers [--repeat N]`: the math verifier. (1) Agreement with math-verify on the
// corpus (test/fixtures/math/corpus.jsonl), per category, and what a naive "last \boxed + the
// compute engine's isEqual" check would score on the same pairs. (2) Throughput and latency of the
// worker pool on this machine's cores: the corpus predictions embedded in ~2 KB of model-style
// reasoning text, all submitted at once. (3) Pathological inputs against the deadline.
// Results are in bench/README.md.
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { ComputeEngine } from "@cortex-js/compute-engine";
import { MathVerifierPool } from "../src/verifiers/math/pool.js";
import { boxedAt } from "../src/verifiers/math/normalize.js";
import { stripGoldDelimiters, verifyAnswer } from "../src/verifiers/math/verify.js";
import { machineLine, markdownTable } from "./machine.js";

interface CorpusRow {
  category: string;
  gold: string;
  prediction: string;
  expected: 0 | 1;
}

const corpus: CorpusRow[] = readFileSync(new URL("../test/fixtures/math/corpus.jsonl", import.meta.url), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line));

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const pct = (a: number, n: number) => `${((100 * a) / n).toFixed(1)}%`;

/** The naive check: the last \boxed{} of the text, compared with the engine's `isEqual`. */
function naive(ce: ComputeEngine, gold: string, prediction: string): number {
  const start = prediction.lastIndexOf("\\boxed");
  const box = start >= 0 ? boxedAt(prediction, start) : undefined;
  if (!box) return 0;
  try {
    return ce.parse(stripGoldDelimiters(gold)).isEqual(ce.parse(box.content)) === true ? 1 : 0;
  } catch {
    return 0;
  }
}

function agreement(): string {
  const ce = new ComputeEngine();
  const stats = new Map<string, { n: number; traps: number; agree: number; fp: number; naive: number; naiveFp: number }>();
  const total = { n: 0, traps: 0, agree: 0, fp: 0, naive: 0, naiveFp: 0 };
  for (const row of corpus) {
    const s = stats.get(row.category) ?? { n: 0, traps: 0, agree: 0, fp: 0, naive: 0, naiveFp: 0 };
    const reward = verifyAnswer(row.gold, row.prediction).reward;
    // The naive check on the pathological rows would block for minutes (that is the point of them).
    const naiveReward = row.category === "pathological" ? 0 : naive(ce, row.gold, row.prediction);
    for (const acc of [s, total]) {
      acc.n++;
      if (row.expected === 0) acc.traps++;
      if (reward === row.expected) acc.agree++;
      if (reward === 1 && row.expected === 0) acc.fp++;
      if (naiveReward === row.expected) acc.naive++;
      if (naiveReward === 1 && row.expected === 0) acc.naiveFp++;
    }
    stats.set(row.category, s);
  }
  const rows = [...stats].map(([category, s]) => [category, s.n, s.traps, pct(s.agree, s.n), s.fp, pct(s.naive, s.n), s.naiveFp]);
  rows.push(["**all**", total.n, total.traps, `**${pct(total.agree, total.n)}**`, `**${total.fp}**`, pct(total.naive, total.n), total.naiveFp]);
  return markdownTable(["category", "pairs", "must-not-match", "agreement", "false positives", "naive agreement", "naive false positives"], rows);
}

/** A model-style answer: reasoning with numbers and inline math, then the prediction. */
function asModelText(prediction: string, i: number): string {
  const reasoning = [
    `Let me think step by step. We are given the values $a = ${i % 7}$ and $b = ${(i * 3) % 11}$.`,
    `First, compute $a + b = ${(i % 7) + ((i * 3) % 11)}$, and note that $2^{3} = 8$, so the first bound is 8.`,
    "Next we consider the cases separately. In the first case the expression simplifies to $\\frac{x+1}{2}$,",
    "which is positive for all $x > -1$. In the second case, substituting $x = 3$ gives $\\frac{4}{2} = 2$.",
    `Checking the arithmetic again: ${i} + 1 = ${i + 1}, and ${i} * 2 = ${i * 2}. Everything is consistent.`,
  ].join(" ");
  return `${reasoning.repeat(3)}\n\nTherefore, ${prediction}`;
}

async function throughput(repeat: number): Promise<string> {
  const rows: Array<Array<string | number>> = [];
  const everyday = corpus.filter((row) => row.category !== "pathological");
  // Symbolic identity tests, relations and radicals: the CPU-heavy part of the corpus.
  const heavy = corpus.filter((row) => ["symbolic", "relation", "radical"].includes(row.category));
  for (const [label, jobs] of [["all categories", everyday], ["symbolic, relation, radical", heavy]] as const) {
    for (const size of [1, availableParallelism()]) {
      const pool = new MathVerifierPool({ size, timeoutMs: 10_000 });
      // Warm every worker before timing.
      await Promise.all(Array.from({ length: size * 4 }, () => pool.verify("1", "\\boxed{1}")));
      const work = Array.from({ length: repeat }, (_, r) => jobs.map((row, i) => [row.gold, asModelText(row.prediction, i + r)] as const)).flat();
      const started = performance.now();
      const verdicts = await Promise.all(work.map(([gold, text]) => pool.verify(gold, text)));
      const wall = (performance.now() - started) / 1000;
      const workerMs = verdicts.map((v) => v.elapsedMs);
      rows.push([
        label,
        size,
        verdicts.length,
        `${(verdicts.length / wall).toFixed(0)}`,
        `${percentile(workerMs, 50).toFixed(1)} ms`,
        `${percentile(workerMs, 99).toFixed(1)} ms`,
        `${Math.max(...workerMs).toFixed(0)} ms`,
        verdicts.filter((v) => v.outcome !== "ok").length,
      ]);
      await pool.close();
    }
  }
  return markdownTable(["workload", "workers", "verifications", "verifications/s", "p50 latency", "p99 latency", "max", "not ok"], rows);
}

async function pathological(): Promise<string> {
  const cases: Array<[string, string, string]> = [
    ["`9^{9^{9^9}}`", "5", "\\boxed{9^{9^{9^9}}}"],
    ["10,000-character sum", "1", `\\boxed{${Array.from({ length: 5000 }, () => "1").join("+")}}`],
    ["`\\binom{10^{100}}{5000}` (seconds of exact work)", "1", "\\boxed{\\binom{10^{100}}{5000}}"],
  ];
  const rows: Array<Array<string | number>> = [];
  for (const timeoutMs of [10_000, 1_000]) {
    const pool = new MathVerifierPool({ size: 2, timeoutMs });
    await Promise.all([pool.verify("1", "\\boxed{1}"), pool.verify("1", "\\boxed{1}")]);
    for (const [label, gold, text] of cases) {
      const t = performance.now();
      const verdict = await pool.verify(gold, text);
      rows.push([label, `${timeoutMs / 1000} s`, verdict.reward, verdict.outcome, `${(performance.now() - t).toFixed(0)} ms`]);
    }
    await pool.close();
  }
  return markdownTable(["input", "deadline", "reward", "outcome", "answered after"], rows);
}

export default async function main(args: string[]): Promise<void> {
  const repeatIndex = args.indexOf("--repeat");
  const repeat = repeatIndex >= 0 ? Number(args[repeatIndex + 1]) : 5;
  process.stdout.write(`${machineLine()}\n\n`);
  process.stdout.write(`### Agreement with math-verify (${corpus.length} pairs)\n\n${agreement()}\n\n`);
  process.stdout.write(`### Worker pool throughput (corpus answers inside ~2 KB of reasoning, ×${repeat})\n\n${await throughput(repeat)}\n\n`);
  process.stdout.write(`### Pathological inputs\n\n${await pathological()}\n`);
}
