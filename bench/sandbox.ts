// `npm run bench -- sandbox [runs]`: what isolation costs. Sandbox runs per second and the overhead
// per run against a plain spawn of the same program at 1/2/8-way concurrency; then the cost of
// grading one code_gen problem with 1, 10 and 100 tests, one sandbox per test vs batched.
// Prints the tables (paste them into bench/README.md).
import { spawn } from "node:child_process";
import os from "node:os";
import { PYTHON } from "../src/sandbox/languages.js";
import { Sandbox } from "../src/sandbox/runner.js";
import { runBatched, runPerTest, type TestMode } from "../src/verifiers/code/run_tests.js";
import { machineLine, markdownTable } from "./machine.js";

function plainRun(argv: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

/** Runs `total` jobs `concurrency` at a time; returns runs/s and the mean latency of one run. */
async function measure(total: number, concurrency: number, job: () => Promise<void>): Promise<{ perSecond: number; latencyMs: number }> {
  let next = 0;
  let latency = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const t = performance.now();
        await job();
        latency += performance.now() - t;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: total / seconds, latencyMs: latency / total };
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function overheadTable(runs: number): Promise<string> {
  const rows: Array<Array<string | number>> = [];
  const programs: Array<[string, string[]]> = [
    ["/bin/true", ["/bin/true"]],
    ["python3 -c pass", [PYTHON, "-c", "pass"]],
  ];
  for (const concurrency of [1, 2, 8]) {
    const sandbox = await Sandbox.create({ concurrency, maxSessions: 1 });
    try {
      for (const [name, argv] of programs) {
        // Warm both paths (page cache, first cgroup use) before timing.
        await measure(concurrency * 2, concurrency, () => plainRun(argv));
        await measure(concurrency * 2, concurrency, async () => void (await sandbox.run({ argv })));
        const plain = await measure(runs, concurrency, () => plainRun(argv));
        const boxed = await measure(runs, concurrency, async () => {
          const result = await sandbox.run({ argv });
          if (result.status !== "ok") throw new Error(`sandbox run failed: ${result.status} ${result.reason}`);
        });
        rows.push([
          name,
          concurrency,
          fmt(plain.perSecond),
          fmt(boxed.perSecond),
          fmt(plain.latencyMs),
          fmt(boxed.latencyMs),
          fmt(boxed.latencyMs - plain.latencyMs),
          sandbox.isolation,
        ]);
      }
    } finally {
      await sandbox.close();
    }
  }
  return markdownTable(
    ["program", "concurrency", "plain spawn runs/s", "sandbox runs/s", "plain ms/run", "sandbox ms/run", "overhead ms/run", "isolation"],
    rows,
  );
}

async function codeGenTable(): Promise<string> {
  const sandbox = await Sandbox.create({ concurrency: 1, maxSessions: 1 });
  const code = "n = int(input())\nprint(2 * n)\n";
  const rows: Array<Array<string | number>> = [];
  try {
    for (const count of [1, 10, 100]) {
      const tests = { inputs: Array.from({ length: count }, (_, i) => `${i}\n`), outputs: Array.from({ length: count }, (_, i) => String(2 * i)), fn_name: null };
      const cells: Record<TestMode, number> = { per_test: 0, batched: 0 };
      for (const mode of ["per_test", "batched"] as const) {
        const grade = mode === "batched" ? runBatched : runPerTest;
        await grade(sandbox, code, tests, { timeoutSecs: 10 }); // warm
        const repeats = count === 100 ? 2 : 5;
        const started = performance.now();
        for (let i = 0; i < repeats; i++) {
          const { result } = await grade(sandbox, code, tests, { timeoutSecs: 10 });
          if (result.length !== count || !result.every((r) => r === true)) throw new Error(`${mode}: unexpected result ${JSON.stringify(result)}`);
        }
        cells[mode] = (performance.now() - started) / repeats;
      }
      rows.push([count, fmt(cells.per_test, 0), fmt(cells.per_test / count), fmt(cells.batched, 0), fmt(cells.batched / count), fmt(cells.per_test / cells.batched, 1)]);
    }
  } finally {
    await sandbox.close();
  }
  return markdownTable(["tests", "per_test ms/problem", "per_test ms/test", "batched ms/problem", "batched ms/test", "per_test / batched"], rows);
}

export default async function main(args: string[]): Promise<void> {
  const runs = Number(args[0] ?? 200);
  const load = os.loadavg().map((n) => n.toFixed(1)).join(" ");
  const overhead = await overheadTable(runs);
  const codeGen = await codeGenTable();
  const text = [
    `### Sandbox (\`npm run bench -- sandbox ${runs}\`)`,
    "",
    machineLine(),
    `load average at start: ${load} (other work on the machine makes every number noisier)`,
    "",
    `Each row: ${runs} runs of the program, N at a time, plainly spawned vs through the sandbox (bubblewrap as`,
    "the slot's uid, cgroup slot, rlimits, capped pipes, leftover sweep). ms/run is the mean latency of one run.",
    "",
    overhead,
    "",
    "One code_gen problem (stdin/stdout, `print(2 * n)`, all tests pass), graded one sandbox per test vs",
    "batched (one sandbox, a fresh fork of a warm harness per test), one problem at a time. (code_gen",
    "grades a one-test problem per_test even in batched mode; the 1-test batched cell is measured anyway.)",
    "",
    codeGen,
    "",
  ].join("\n");
  process.stdout.write(text);
}
