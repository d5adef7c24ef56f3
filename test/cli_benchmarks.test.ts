// Benchmarks as NeMo Gym defines them, through the real `gym`: `gym eval prepare --benchmark aime25`
// from a Hugging Face-shaped datasets server on 127.0.0.1 (a test double of the hub's rows API, the
// only network used), then `gym eval run --benchmark aime25` against the fake engine (the dataset's
// num_repeats and prompt_config applied); NeMo Gym's own benchmarks/aime25/config.yaml and
// benchmarks/prompts/generic/math.yaml (fixture copies, unchanged) with rows prepared from a local
// file; and `gym eval aggregate +config_paths=[...]` recomputing the environment's pass@k.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine, type Policy } from "./doubles/fake_engine.js";
import { readJsonlFile, REPO_ROOT, runGym } from "./helpers/cli.js";

// Answers "What is A+B?" in \boxed{} — right for sums below 5, wrong (off by one) otherwise.
const mathPolicy: Policy = (turns) => {
  const user = [...turns].reverse().find((t) => t.role === "user")?.content ?? "";
  const match = /What is (\d+)\+(\d+)\?/.exec(user);
  if (!match) return { text: "I do not know." };
  const sum = Number(match[1]) + Number(match[2]);
  return { text: `The answer is \\boxed{${sum < 5 ? sum : sum + 1}}.` };
};

const AIME_ROWS = [
  { problem: "What is 1+1?", answer: 2, id: "I-1" },
  { problem: "What is 4+5?", answer: 9, id: "I-2" },
];

interface HubDouble {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

// The datasets server's GET /rows, paged as the real one pages (offset, length, num_rows_total).
async function startHubDouble(datasets: Record<string, Array<Record<string, unknown>>>): Promise<HubDouble> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? "");
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const rows = datasets[`${url.searchParams.get("dataset")}/${url.searchParams.get("config")}/${url.searchParams.get("split")}`];
    if (url.pathname !== "/rows" || !rows) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
      return;
    }
    const offset = Number(url.searchParams.get("offset") ?? 0);
    const length = Number(url.searchParams.get("length") ?? 100);
    const page = rows.slice(offset, offset + length).map((row, i) => ({ row_idx: offset + i, row, truncated_cells: [] }));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ features: [], rows: page, num_rows_total: rows.length, num_rows_per_page: 100, partial: false }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let engine: FakeEngine;
let hub: HubDouble;
let dir: string;

beforeAll(async () => {
  engine = await startFakeEngine({ policy: mathPolicy });
  hub = await startHubDouble({ "MathArena/aime_2025/default/train": AIME_ROWS });
  dir = mkdtempSync(join(tmpdir(), "gym-benchmarks-"));
});
afterAll(async () => {
  await engine.close();
  await hub.close();
});

const model = () => ["--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m"];
const metricsOf = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Array<{ agent_ref: { name: string }; [key: string]: unknown }>;

describe("--benchmark aime25: prepared from a Hugging Face-shaped server, then run", () => {
  it("prepares once into the cache and runs the benchmark with its prompt and num_repeats", async () => {
    const cache = join(dir, "cache");
    // The hub's variables point at the double; nothing else is reachable by design.
    const env = { HF_DATASETS_SERVER_URL: hub.url, HF_ENDPOINT: hub.url, GYM_BENCHMARK_CACHE: cache };
    const prepared = await runGym(["eval", "prepare", "--benchmark", "aime25"], { cwd: dir, env });
    expect(prepared.stderr).toBe("");
    expect(prepared.code).toBe(0);
    const file = join(cache, "aime25", "aime25_benchmark.jsonl");
    expect(prepared.stdout).toContain(file);
    // prepare.py's mapping: question ← problem, expected_answer ← str(answer); nothing else kept.
    expect(readJsonlFile(file)).toEqual([
      { question: "What is 1+1?", expected_answer: "2" },
      { question: "What is 4+5?", expected_answer: "9" },
    ]);
    expect(hub.requests.some((r) => r.startsWith("/rows?dataset=MathArena%2Faime_2025&config=default&split=train&offset=0"))).toBe(true);

    const asked = hub.requests.length;
    const run = await runGym(["eval", "run", "--benchmark", "aime25", ...model(), "--quiet", "-o", "results/aime25.jsonl"], { cwd: dir, env, timeoutMs: 180_000 });
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    // The cache is reused: the run asked the hub nothing.
    expect(hub.requests.length).toBe(asked);
    const rollouts = readJsonlFile(join(dir, "results", "aime25.jsonl"));
    // NeMo Gym's aime25 config: num_repeats 32 for its one dataset.
    expect(rollouts).toHaveLength(64);
    const byTask = new Map<string, number[]>();
    for (const r of rollouts) byTask.set(String(r.responses_create_params.input[0].content), [...(byTask.get(String(r.responses_create_params.input[0].content)) ?? []), r.reward]);
    // benchmarks/prompts/generic/math.yaml, with its {{}} as literal braces.
    const first = "Solve the following math problem. Make sure to put the answer (and only answer) inside \\boxed{}.\n\nWhat is 1+1?";
    expect(byTask.get(first)).toEqual(Array(32).fill(1));
    expect([...byTask.values()].flat().filter((reward) => reward === 0)).toHaveLength(32);
    const [metrics] = metricsOf(join(dir, "results", "aime25_aggregate_metrics.json"));
    expect(metrics!.agent_ref.name).toBe("aime25_math_with_judge_simple_agent");
    const key = metrics!.key_metrics as Record<string, number>;
    expect(key["pass@32/symbolic_accuracy"]).toBe(50);
    expect(key["pass@1[avg-of-32]/symbolic_accuracy"]).toBe(50);
  });
});

describe("NeMo Gym's benchmarks/aime25/config.yaml, unchanged, with rows prepared from a local file", () => {
  let project: string;
  beforeAll(() => {
    project = join(dir, "nemo_gym_project");
    cpSync(join(REPO_ROOT, "test", "fixtures", "nemo_gym", "benchmarks"), join(project, "benchmarks"), { recursive: true });
    writeFileSync(join(project, "aime_2025.jsonl"), AIME_ROWS.map((row) => `${JSON.stringify(row)}\n`).join(""));
  });

  it("prepares, runs shards with +config_paths, and aggregate recomputes the environment's pass@k", async () => {
    const env = { GYM_BENCHMARK_CACHE: join(project, "cache") };
    const prepared = await runGym(["eval", "prepare", "--config", "benchmarks/aime25/config.yaml", "--from-file", "aime_2025.jsonl"], { cwd: project, env });
    expect(prepared.stderr).toBe("");
    expect(prepared.code).toBe(0);
    expect(readJsonlFile(join(project, "cache", "aime25", "aime25_benchmark.jsonl")).map((row) => row.expected_answer)).toEqual(["2", "9"]);

    const configPaths = "+config_paths=[benchmarks/aime25/config.yaml]";
    const run = await runGym(["eval", "run", configPaths, ...model(), "--quiet", "--split", "benchmark", "--num-repeats", "4", "--disable-aggregation", "-o", "results/out.jsonl"], {
      cwd: project,
      env,
      timeoutMs: 180_000,
    });
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    const rollouts = readJsonlFile(join(project, "results", "out.jsonl"));
    expect(rollouts).toHaveLength(8);
    // --disable-aggregation: the run's own metrics file has no environment metrics.
    expect(JSON.stringify(metricsOf(join(project, "results", "out_aggregate_metrics.json")))).not.toContain("pass@4");

    const merged = await runGym(["eval", "aggregate", configPaths, "--input-glob", "results/out.jsonl", "--allow-partial", "-o", "results/merged.jsonl"], { cwd: project, env, timeoutMs: 120_000 });
    expect(merged.stderr).not.toMatch(/error/i);
    expect(merged.code).toBe(0);
    const [metrics] = metricsOf(join(project, "results", "merged_aggregate_metrics.json"));
    expect(metrics!.agent_ref.name).toBe("aime25_math_with_judge_simple_agent");
    // Recomputed by the environment's /aggregate_metrics: one task always right, one never.
    const key = metrics!.key_metrics as Record<string, number>;
    expect(key["pass@4/symbolic_accuracy"]).toBe(50);
    expect(key["majority@4/symbolic_accuracy"]).toBe(50);
  });
});
