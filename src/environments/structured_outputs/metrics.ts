// structured_outputs' own aggregate metrics (NeMo Gym 07d6b0d `compute_metrics`), merged over the
// default reward profile: the mean reward per schema type, problem type, schema representation,
// response mode and each tool-call setting the rows carry (`statistics.mean`).
import { pyMean } from "../../verifiers/structured/index.js";

/** [key prefix, row field, how a value names its group (undefined: the row is not counted)]. */
const GROUPINGS: Array<[string, string, (v: unknown) => string | undefined]> = [];
const truthy = (v: unknown) => (typeof v === "string" && v !== "" ? v : v !== null && v !== undefined && v !== false && v !== 0 && v !== "" ? String(v) : undefined);
const present = (v: unknown) => (v === null || v === undefined ? undefined : String(v));
const bool = (v: unknown) => (v === null || v === undefined ? undefined : String(Boolean(v)));
GROUPINGS.push(
  ["mean/reward_", "schema_type", (v) => (v === undefined ? "unknown" : String(v))],
  ["mean/reward_", "problem_type", truthy],
  ["mean/reward_repr_", "schema_repr", truthy],
  ["mean/reward_response_mode_", "response_mode", truthy],
  ["mean/reward_tool_schema_mode_", "tool_schema_mode", truthy],
  ["mean/reward_tool_choice_", "tool_choice", truthy],
  ["mean/reward_parallel_tool_calls_", "parallel_tool_calls", bool],
  ["mean/reward_num_tools_", "num_tools", present],
  ["mean/reward_has_distractors_", "has_distractors", bool],
  ["mean/reward_instruction_layout_", "instruction_layout", truthy],
  ["mean/reward_instruction_detail_level_", "instruction_detail_level", truthy],
  ["mean/reward_system_instruction_style_", "system_instruction_style", truthy],
  ["mean/reward_tool_name_style_", "tool_name_style", truthy],
  ["mean/reward_distractor_style_", "distractor_style", truthy],
  ["mean/reward_tool_union_mode_", "tool_union_mode", truthy],
);

/** Verify responses in NeMo Gym's task grouping order (by task index, then arrival). */
function byTask(rows: ReadonlyArray<Record<string, unknown>>): Array<Record<string, unknown>> {
  const groups = new Map<number, Array<Record<string, unknown>>>();
  for (const row of rows) {
    const task = typeof row._ng_task_index === "number" ? row._ng_task_index : 0;
    if (!groups.has(task)) groups.set(task, []);
    groups.get(task)!.push(row);
  }
  return [...groups.keys()].sort((a, b) => a - b).flatMap((task) => groups.get(task)!);
}

export function structuredOutputsMetrics(rows: ReadonlyArray<Record<string, unknown>>): Record<string, number> {
  const groups = GROUPINGS.map(() => new Map<string, number[]>());
  for (const r of byTask(rows)) {
    const reward = typeof r.reward === "number" ? r.reward : 0;
    GROUPINGS.forEach(([, field, name], i) => {
      const key = name(r[field]);
      if (key === undefined) return;
      const m = groups[i]!;
      if (!m.has(key)) m.set(key, []);
      m.get(key)!.push(reward);
    });
  }
  const out: Record<string, number> = {};
  GROUPINGS.forEach(([prefix], i) => {
    for (const [key, values] of groups[i]!) if (values.length) out[`${prefix}${key}`] = pyMean(values)!;
  });
  return out;
}
