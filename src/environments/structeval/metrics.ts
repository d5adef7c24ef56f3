// structeval's own aggregate metrics (NeMo Gym 07d6b0d `compute_metrics`), merged over the default
// reward profile: mean render and key-validation scores, and mean reward / render / key scores per
// output type, per input type and per task name (`statistics.mean`).
import { pyMean } from "../../verifiers/structured/index.js";

const num = (v: unknown, fallback = 0): number => (typeof v === "number" ? v : typeof v === "boolean" ? Number(v) : fallback);
const str = (v: unknown): string => (v === undefined ? "unknown" : String(v));

/** Verify responses in NeMo Gym's task grouping order (by task index, then arrival). */
export function byTask(rows: ReadonlyArray<Record<string, unknown>>): Array<Record<string, unknown>> {
  const groups = new Map<number, Array<Record<string, unknown>>>();
  for (const row of rows) {
    const task = typeof row._ng_task_index === "number" ? row._ng_task_index : 0;
    if (!groups.has(task)) groups.set(task, []);
    groups.get(task)!.push(row);
  }
  return [...groups.keys()].sort((a, b) => a - b).flatMap((task) => groups.get(task)!);
}

export function structevalMetrics(rows: ReadonlyArray<Record<string, unknown>>): Record<string, number> {
  const byOutput = new Map<string, number[]>();
  const byInput = new Map<string, number[]>();
  const byTaskName = new Map<string, number[]>();
  const renderByOutput = new Map<string, number[]>();
  const keyByOutput = new Map<string, number[]>();
  const render: number[] = [];
  const keys: number[] = [];
  const push = (m: Map<string, number[]>, k: string, v: number) => {
    if (!m.has(k)) m.set(k, []);
    m.get(k)!.push(v);
  };
  for (const r of byTask(rows)) {
    const reward = num(r.reward);
    const ot = str(r.output_type);
    const rs = num(r.render_score);
    const ks = num(r.key_validation_score);
    push(byOutput, ot, reward);
    push(byInput, str(r.input_type), reward);
    push(byTaskName, str(r.task_name), reward);
    render.push(rs);
    keys.push(ks);
    push(renderByOutput, ot, rs);
    push(keyByOutput, ot, ks);
  }
  const out: Record<string, number> = {};
  if (render.length) out["mean/render_score"] = pyMean(render)!;
  if (keys.length) out["mean/key_validation_score"] = pyMean(keys)!;
  const add = (prefix: string, m: Map<string, number[]>) => {
    for (const [k, v] of m) if (v.length) out[`${prefix}${k}`] = pyMean(v)!;
  };
  add("mean/reward_output_", byOutput);
  add("mean/reward_input_", byInput);
  add("mean/reward_", byTaskName);
  add("mean/render_score_", renderByOutput);
  add("mean/key_validation_score_", keyByOutput);
  return out;
}
