// A fresh `eval run` gathers its metrics as it writes each rollout line (MetricsSpool.addWritten)
// instead of reading the whole output again: the metrics file must come out byte for byte as the
// read of the file gives it, whatever the rows hold and in whatever order rollouts finish.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeRunMetrics, MetricsSpool, type RunMetrics, type RunMetricsOptions } from "../src/collect/run_metrics.js";
import { resultLine } from "../src/collect/lines.js";
import mcqa from "../src/environments/mcqa/index.js";
import { startInstance, type RunningInstance } from "../src/environment_kit/testing.js";
import { seededRandom } from "./helpers/seeded_random.js";

/**
 * A reply as the collector gets it: the JSON text an agent sent, parsed. The text holds what JSON
 * reads back differently from how it is written (-0, 1e400 → Infinity → null), numbers of every
 * kind, booleans, long and short strings, nested usage and the keys metrics read inside objects.
 */
function reply(next: () => number, task: number, rollout: number): Record<string, unknown> {
  const pick = <T,>(xs: T[]): T => xs[Math.floor(next() * xs.length)]!;
  const members = [
    `"_ng_task_index":${task}`,
    `"_ng_rollout_index":${rollout}`,
    `"responses_create_params":{"input":"q${task}","temperature":${pick(["1", "0.7", "null"])}}`,
    `"response":{"id":"r","created_at":${1700000000 + rollout},"output":[{"type":"message","content":"${"x".repeat(Math.floor(next() * 50))}"}],"usage":{"input_tokens":${Math.floor(next() * 900)},"output_tokens":${pick(["0", "-0", "12", "7.5"])},"total_tokens":${Math.floor(next() * 1000)}}}`,
    `"reward":${pick(["1", "0", "-0", "0.25", "1e400", "1.0", String(next())])}`,
    `"extracted_answer":${pick(['"A"', '"B"', "null", `"${"y".repeat(1100)}"`])}`,
    `"is_correct":${pick(["true", "false"])}`,
    `"set_overlap":${pick(["0.5", "1", "3", "-2", "1e-7"])}`,
    ...(next() < 0.5 ? [`"reward_components":{"format":${pick(["1", "0.5"])},"answer":0}`] : []),
    ...(next() < 0.3 ? [`"judge_evaluations":[{"verdict":"A","raw":"long text"},{"verdict":"B"}]`] : []),
    ...(next() < 0.2 ? [`"details":{"test_case_results":{"t1":{"score":${pick(["1", "0.5"])},"output":"..."},"t2":null}}`] : []),
    ...(next() < 0.3 ? [`"_ng_attempt_index":1`] : []),
  ];
  // Keys in varying order, as different environments order them.
  const order = members.map((m) => [next(), m] as const).sort((a, b) => a[0] - b[0]);
  return JSON.parse(`{${order.map(([, m]) => m).join(",")}}`) as Record<string, unknown>;
}

const AGENTS = [
  { type: "responses_api_agents", name: "first_agent" },
  { type: "responses_api_agents", name: "second_agent" },
];

let dir: string;
let env: RunningInstance;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gym-metrics-live-"));
  env = await startInstance(mcqa);
});

afterAll(async () => {
  await env?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every (task, rollout) of `tasks` tasks with 1–4 rollouts each, finishing in random order. */
function shuffledPairs(next: () => number, tasks = 40): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (let task = 0; task < tasks; task++) for (let rollout = 0; rollout < 1 + (task % 4); rollout++) pairs.push([task, rollout]);
  return pairs.sort(() => next() - 0.5);
}

async function bothWays(name: string, seed: number, options: RunMetricsOptions, order = shuffledPairs, extra: Record<string, unknown> = {}): Promise<{ fromFile: string; live: string }> {
  const next = seededRandom(seed);
  const output = join(dir, `${name}.jsonl`);
  const pairs = order(next);
  const spool = new MetricsSpool();
  for (const [task, rollout] of pairs) {
    // What the scheduler does with a reply: the row it writes, and the line.
    const row: Record<string, unknown> = { ...reply(next, task, rollout), ...extra, agent_ref: AGENTS[task % 2] };
    appendFileSync(output, resultLine(task, rollout, row));
    spool.addWritten(task, rollout, row);
  }
  const write = (computed: RunMetrics, path: string) => {
    try {
      computed.write(path);
    } finally {
      computed.dispose();
    }
    return readFileSync(path, "utf8");
  };
  const fromFile = write(await computeRunMetrics(output, options), join(dir, `${name}_file_metrics.json`));
  const live = write(await spool.finish(options), join(dir, `${name}_live_metrics.json`));
  return { fromFile, live };
}

describe("metrics gathered while the lines are written", () => {
  it("equal the metrics read from the output file, byte for byte (the collector's own statistics)", async () => {
    for (const seed of [1, 2, 3]) {
      const { fromFile, live } = await bothWays(`local_${seed}`, seed, {});
      expect(fromFile).toContain('"group_level_metrics"');
      expect(fromFile).toContain('"mean/set_overlap"');
      expect(live).toBe(fromFile);
    }
  });

  it("equal them too when an environment's /aggregate_metrics gets the rows, over several chunks", async () => {
    const { fromFile, live } = await bothWays("env", 4, { aggregateUrlOf: () => `${env.url}/aggregate_metrics`, chunkRollouts: 25 });
    expect(fromFile).toContain('"group_level_metrics"');
    expect(live).toBe(fromFile);
  });

  it("read back rows spooled over several MiB, near where task order expects them and far from it", async () => {
    // Mostly in task order, shuffled within what would be in flight together, as a fresh run writes
    // them; one task in ten written again at the end, as a resumed run's retried rollouts are.
    const order = (next: () => number) => {
      const pairs: Array<[number, number]> = [];
      for (let task = 0; task < 3000; task++) if (task % 10 !== 3) pairs.push([task, 0]);
      for (let at = 0; at < pairs.length; at += 64) pairs.splice(at, 64, ...pairs.slice(at, at + 64).sort(() => next() - 0.5));
      for (let task = 3; task < 3000; task += 10) pairs.push([task, 0]);
      return pairs;
    };
    // A kilobyte of text per row that metrics keep (strings up to 1,024 characters): a spool of ~3.5 MB.
    const { fromFile, live } = await bothWays("windows", 5, {}, order, { note: "n".repeat(1000) });
    expect(fromFile.match(/"rollout_id":/g)?.length).toBe(3000);
    expect(live).toBe(fromFile);
  });
});

