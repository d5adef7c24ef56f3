// NeMo Gym's config for an environment, run unchanged by `gym eval run` from a NeMo Gym-shaped checkout
// on the recorded inputs, against an engine double that answers with the recorded replies; then every
// rollout compared with NeMo Gym's recorded one (the chosen fields exactly, the conversation turn by
// turn, the request's input) and the aggregate metrics with NeMo Gym's recorded metrics file. The game
// and reasoning environments' tests (blackjack, grl_tetris, grl_sokoban, example_multi_turn_gymnasium,
// reasoning_gym) each say only what differs: which recorded rollout a row is, and which fields count.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { readJsonlFile, runGym } from "./cli.js";
import { environmentFolder, nemoGymCheckout } from "./nemo_gym_catalog.js";

type Row = Record<string, any>;

export interface RecordedConfigRun {
  /** The environment's id (`resources_servers/<id>` in the checkout, `src/environments/<id>` here). */
  id: string;
  /** The engine double's base URL (…/v1), answering with the recorded replies. */
  engineUrl: string;
  /** NeMo Gym's recorded rollouts (`recordedRollouts(id)`); our rows must be as many. */
  recorded: Row[];
  /** The input: absolute, or relative to the checkout. Default: the recorded materialized inputs. */
  input?: string;
  /** More `gym eval run` arguments (e.g. `--agent NAME`). */
  args?: string[];
  /** Where the output goes (a test's temporary folder). */
  dir: string;
  /** The recorded rollout a row of ours is. Default: the one with its `_ng_task_index`. */
  theirsOf?: (row: Row) => Row | undefined;
  /** A row's name in assertion messages. Default: its task and rollout index. */
  label?: (row: Row) => string;
  /** Top-level fields compared exactly. Default: reward, terminated, truncated, info. */
  fields?: readonly string[];
  /** Compare `response.output` turn by turn as [role, text]. Default true. */
  turns?: boolean;
  /** Compare `responses_create_params.input`: as it is ("exact", the default), as [role, content] per message, or not. */
  input_compared?: "exact" | "role_content" | "none";
  /** Metric keys equal to NeMo Gym's recorded aggregate metrics (`data/example_rollouts_aggregate_metrics.json`). */
  metrics?: readonly string[];
  /** Metric keys equal to 12 decimal places (where a sum's order changes the last bit). */
  metricsClose?: readonly string[];
  /** What else each row must satisfy, beside its recorded rollout. */
  eachRow?: (row: Row, theirs: Row) => void;
}

const DEFAULT_FIELDS = ["reward", "terminated", "truncated", "info"] as const;

/** A response's turns as [role, text]. */
function turnsOf(rollout: Row): unknown[] {
  return rollout.response.output.map((item: any) => [item.role, typeof item.content === "string" ? item.content : item.content[0].text]);
}

/** Runs NeMo Gym's config as the options say and checks every row against its recording; returns our rows. */
export async function runRecordedConfig(options: RecordedConfigRun): Promise<Row[]> {
  const { id, recorded } = options;
  const checkout = nemoGymCheckout([id]);
  try {
    const out = join(options.dir, `${id}_rollouts.jsonl`);
    const input = options.input ?? `resources_servers/${id}/data/example_rollouts_materialized_inputs.jsonl`;
    const result = await runGym(
      ["eval", "run", "--config", `resources_servers/${id}/configs/${id}.yaml`, "--input", input, ...(options.args ?? []),
        "--model-type", "vllm_model", "--model-url", options.engineUrl, "--model", "m", "-o", out, "--quiet"],
      { cwd: checkout.root, timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonlFile(out);
    expect(rows).toHaveLength(recorded.length);

    const theirsOf = options.theirsOf ?? ((row: Row) => recorded.find((r) => r._ng_task_index === row._ng_task_index));
    const label = options.label ?? ((row: Row) => `task ${row._ng_task_index}, rollout ${row._ng_rollout_index}`);
    const fields = options.fields ?? DEFAULT_FIELDS;
    const matched = new Set<Row>();
    for (const row of rows) {
      const theirs = theirsOf(row);
      expect(theirs, `${label(row)}: no recorded rollout`).toBeDefined();
      matched.add(theirs!);
      expect(fields.map((f) => row[f]), label(row)).toEqual(fields.map((f) => theirs![f]));
      if (options.turns ?? true) expect(turnsOf(row), label(row)).toEqual(turnsOf(theirs!));
      const compared = options.input_compared ?? "exact";
      if (compared === "exact") expect(row.responses_create_params.input, label(row)).toEqual(theirs!.responses_create_params.input);
      if (compared === "role_content") {
        const messages = (r: Row) => r.responses_create_params.input.map((m: any) => [m.role, m.content]);
        expect(messages(row), label(row)).toEqual(messages(theirs!));
      }
      options.eachRow?.(row, theirs!);
    }
    // Every recorded rollout is some row's: none matched twice, none left out.
    expect(matched.size).toBe(recorded.length);

    if (options.metrics || options.metricsClose) {
      const ours = JSON.parse(readFileSync(out.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Row[];
      const theirs = JSON.parse(readFileSync(join(environmentFolder(id), "data", "example_rollouts_aggregate_metrics.json"), "utf8")) as Row[];
      for (const key of options.metrics ?? []) expect(ours[0]!.agent_metrics[key], key).toBe(theirs[0]!.agent_metrics[key]);
      for (const key of options.metricsClose ?? []) expect(ours[0]!.agent_metrics[key], key).toBeCloseTo(theirs[0]!.agent_metrics[key], 12);
    }
    return rows;
  } finally {
    checkout.remove();
  }
}
