// Shared by the science judge ports (issue 16: frontierscience_judge, physics_judge, ugphysics_judge,
// math_with_autograder): a judge model instance (vllm_model, the real one) in front of a fake engine
// scripted from the judge prompt, for in-process tests; and one of NeMo Gym's config files run
// unchanged with `gym eval run` from a NeMo Gym-shaped checkout, with a policy engine answering each
// example prompt and a separate judge engine answering each judge prompt.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startInstance, type RunningInstance } from "../../src/environment_kit/testing.js";
import vllmModel from "../../src/models/vllm_model.js";
import { startFakeEngine, type FakeEngine, type FakeEngineOptions } from "../doubles/fake_engine.js";
import { runGym, type GymResult } from "./cli.js";
import { nemoGymCheckout } from "./nemo_gym_catalog.js";
import { promptOf } from "./mcq_slice.js";

/** The last user turn's text, as the judge engine sees it. */
export const lastUser = (turns: Array<{ role: string; content: string }>) => turns.findLast((t) => t.role === "user")?.content ?? "";

export interface JudgeStack {
  engine: FakeEngine;
  /** The judge model instance (vllm_model named `judge_model`) in front of the engine. */
  judge: RunningInstance;
  /** Judge replies are taken from here first (FIFO); when empty, `fallback(prompt)` answers. */
  verdicts: string[];
  /** Calls the engine received on this path suffix. */
  calls(path: "/responses" | "/chat/completions"): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startJudgeStack(fallback: (prompt: string) => string = () => "no verdict here", engineOptions: FakeEngineOptions = {}): Promise<JudgeStack> {
  const verdicts: string[] = [];
  const engine = await startFakeEngine({ model: "judge", policy: (turns) => ({ text: verdicts.shift() ?? fallback(lastUser(turns)) }), ...engineOptions });
  const judge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: engine.baseUrl, model: "judge", max_retries: 0 } });
  return {
    engine,
    judge,
    verdicts,
    calls: (path) => engine.requests.filter((r) => r.path.endsWith(path)).map((r) => r.body),
    async close() {
      await judge.close();
      await engine.close();
    },
  };
}

export interface ScienceConfigRun {
  result: GymResult;
  /** Output rollouts, ordered by task then rollout index. */
  rows: Array<Record<string, any>>;
  failures: Array<Record<string, any>>;
  metrics: Array<Record<string, any>>;
  /** Request bodies the judge engine received, with their paths. */
  judgeRequests: Array<{ path: string; body: Record<string, unknown> }>;
}

const readJsonl = (path: string) => {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, any>);
};

export interface ScienceConfigOptions {
  /** Config files, relative to the checkout root (NeMo Gym's own, unchanged), plus any absolute ones. */
  configs: string[];
  /** Policy: example prompt → answer text. */
  answers: ReadonlyMap<string, string>;
  /** Judge: judge prompt → verdict text. */
  judge: (prompt: string) => string;
  /** Extra args; `judgeUrl` is the judge engine's base URL (…/v1), for overrides and judge configs. */
  extraArgs?: (judgeUrl: string, dir: string) => string[];
  env?: NodeJS.ProcessEnv;
}

/**
 * `gym eval run --config <configs…> --input resources_servers/<id>/data/example.jsonl` from a NeMo
 * Gym-shaped checkout, the policy through vllm_model in front of one fake engine and the judge in
 * front of another.
 */
export async function runScienceConfig(id: string, options: ScienceConfigOptions): Promise<ScienceConfigRun> {
  const checkout = nemoGymCheckout([id]);
  const policy = await startFakeEngine({ policy: (turns) => ({ text: options.answers.get(lastUser(turns)) ?? "I do not know." }) });
  const judge = await startFakeEngine({ model: "judge", policy: (turns) => ({ text: options.judge(lastUser(turns)) }) });
  const dir = mkdtempSync(join(tmpdir(), `gym-config-${id}-`));
  try {
    const output = join(dir, "out.jsonl");
    const result = await runGym(
      [
        "eval", "run",
        ...options.configs.flatMap((c) => ["--config", c]),
        "--input", `resources_servers/${id}/data/example.jsonl`,
        "--model-type", "vllm_model", "--model-url", policy.baseUrl, "--model", "m",
        "-o", output, "--quiet",
        ...(options.extraArgs?.(judge.baseUrl, dir) ?? []),
      ],
      { cwd: checkout.root, timeoutMs: 120_000, env: options.env },
    );
    const rows = readJsonl(output).sort((a, b) => a._ng_task_index - b._ng_task_index || a._ng_rollout_index - b._ng_rollout_index);
    const failures = readJsonl(join(dir, "out_failures.jsonl"));
    let metrics: Array<Record<string, any>> = [];
    try {
      metrics = JSON.parse(readFileSync(join(dir, "out_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    } catch {
      // no metrics file (a failed run)
    }
    return { result, rows, failures, metrics, judgeRequests: judge.requests.map(({ path, body }) => ({ path, body })) };
  } finally {
    await policy.close();
    await judge.close();
    rmSync(dir, { recursive: true, force: true });
    checkout.remove();
  }
}

/** Example rows' prompts → answer texts, in row order. */
export function answersFor(rows: Array<Record<string, any>>, texts: readonly string[]): Map<string, string> {
  return new Map(rows.map((row, i) => [promptOf(row), texts[i]!]));
}
