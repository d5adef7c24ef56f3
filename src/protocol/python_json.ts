// JSON as NeMo Gym writes it: orjson over pydantic models and pandas results, where a value typed
// float is written with a decimal point even when it is integral (`"reward": 1.0`). Typed readers of
// rollout files (pandas, pyarrow, pydantic in strict mode, NeMo RL's loaders) take `1` for an int, so
// Gymkit writes the same. JavaScript has one number type: which values are floats is said by a
// FloatShape, matched against NVIDIA-NeMo/Gym 07d6b0d's models (see ROLLOUT_FLOATS, METRICS_FLOATS).

/**
 * `true`: the value, if a number, is a float (containers below it are left alone). An object maps
 * keys (or `*`, any other key; `[]` for the elements of an array) to the shape below them; `false`
 * stops a `*` from reaching a key.
 */
export type FloatShape = boolean | { readonly [key: string]: FloatShape };

// Indented output (metrics files, written once a run): an integral float is swapped for this marker
// string before JSON.stringify and turned back into `<digits>.0` after it. The NUL makes a collision
// with real text need a string that is exactly NUL, "f" and digits.
const MARK = "\u0000f";
const MARKED = /"\\u0000f(-?\d+)"/g;

function below(shape: FloatShape, key: string): FloatShape {
  if (typeof shape === "boolean") return false;
  return shape[key] ?? shape["*"] ?? false;
}

/** An integral number small enough to print as digits, written as Python prints a float. */
function isIntegralFloat(value: number): boolean {
  return Number.isInteger(value) && Math.abs(value) < 1e16;
}

function mark(value: unknown, shape: FloatShape): unknown {
  if (shape === false) return value;
  if (typeof value === "number") return shape === true && isIntegralFloat(value) ? `${MARK}${value}` : value;
  if (shape === true || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const inner = below(shape, "[]");
    if (inner === false) return value;
    return value.map((v) => mark(v, inner));
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, v] of Object.entries(value)) {
    const inner = below(shape, key);
    if (inner === false) continue;
    const next = mark(v, inner);
    if (next !== v) (copy ??= { ...(value as Record<string, unknown>) })[key] = next;
  }
  return copy ?? value;
}

// Compact output (every rollout line and `/verify` reply) in one pass: the shape is walked while
// writing, and whatever it does not reach is handed to JSON.stringify whole. The result is byte for
// byte what JSON.stringify gives with the marked floats turned into `<digits>.0`.

/** Object keys as JSON text: the same few keys recur on every line. */
const quotedKeys = new Map<string, string>();

function quoted(key: string): string {
  let text = quotedKeys.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    if (quotedKeys.size < 4096) quotedKeys.set(key, text);
  }
  return text;
}

/** JSON text of `value` under `shape`, or undefined where JSON.stringify would leave the value out. */
function write(value: unknown, shape: FloatShape): string | undefined {
  switch (typeof value) {
    case "number":
      if (shape === true && isIntegralFloat(value)) return `${value}.0`;
      return Number.isFinite(value) ? `${value}` : "null";
    case "boolean":
      return value ? "true" : "false";
    case "object":
      break;
    default:
      return JSON.stringify(value);
  }
  if (value === null) return "null";
  if (typeof shape === "boolean" || typeof (value as { toJSON?: unknown }).toJSON === "function") return JSON.stringify(value);
  if (Array.isArray(value)) {
    const inner = below(shape, "[]");
    if (inner === false) return JSON.stringify(value);
    let text = "[";
    for (let i = 0; i < value.length; i++) text += `${i > 0 ? "," : ""}${write(value[i], inner) ?? "null"}`;
    return `${text}]`;
  }
  return `{${writeFields(value as Record<string, unknown>, shape)}}`;
}

/**
 * The members of object `value` under `shape` as JSON text without the braces (`"a":1.0,"b":[]`),
 * skipping the keys in `omit`: for callers that put their own members around them.
 */
export function writeFields(value: Record<string, unknown>, shape: FloatShape, omit?: ReadonlySet<string>): string {
  let text = "";
  for (const key of Object.keys(value)) {
    if (omit?.has(key)) continue;
    const member = write(value[key], below(shape, key));
    if (member === undefined) continue;
    text += text === "" ? `${quoted(key)}:${member}` : `,${quoted(key)}:${member}`;
  }
  return text;
}

/** JSON.stringify, with the integral numbers `shape` calls floats written as `1.0`. Never mutates `value`. */
export function stringifyWithFloats(value: unknown, shape: FloatShape, indent?: number): string {
  if (!indent) return write(value, shape) as string;
  const text = JSON.stringify(mark(value, shape), null, indent);
  return text.includes("\\u0000f") ? text.replace(MARKED, "$1.0") : text;
}

/** Float fields of the Responses API models NeMo Gym validates requests and responses with. */
const SAMPLING: FloatShape = { temperature: true, top_p: true };
const RESPONSE: FloatShape = { created_at: true, temperature: true, top_p: true };

/**
 * A rollout line (a verify response plus the collector's keys): NeMo Gym's verify responses declare
 * `reward` and their own numeric measurements as floats (`set_overlap`, `library_reward`, the
 * multi-reward `reward_components`, …), so every top-level number except the `_ng_*` bookkeeping is
 * one. Nested values of an environment's own fields keep their types.
 */
export const ROLLOUT_FLOATS: FloatShape = {
  "*": true,
  _ng_task_index: false,
  _ng_rollout_index: false,
  _ng_attempt_index: false,
  _ng_failure_status: false,
  responses_create_params: SAMPLING,
  response: RESPONSE,
  reward_components: { "*": true },
};

const STATISTICS: FloatShape = { "*": true };

/**
 * One task's entry of `group_level_metrics`. Its `rollout_infos` hold each rollout's numbers as its
 * verify response had them: floats, except the ids and `intKeys` (token counts, and booleans counted
 * as 0/1), which are ints.
 */
export function groupMetricsFloats(intKeys: Iterable<string> = []): FloatShape {
  const info: Record<string, FloatShape> = { "*": true, _ng_task_index: false, _ng_rollout_index: false };
  for (const key of intKeys) info[key] = false;
  return {
    "*": true,
    _ng_task_index: false,
    num_rollouts: false,
    expected_num_rollouts: false,
    missing_num_rollouts: false,
    sample: false,
    rollout_infos: { "[]": info },
  };
}

/**
 * One agent's entry of an aggregate-metrics file (or an `/aggregate_metrics` reply): pandas gives
 * every statistic as a float; the per-task counts stay ints.
 */
export function agentMetricsFloats(intKeys: Iterable<string> = []): FloatShape {
  return {
    agent_metrics: STATISTICS,
    key_metrics: STATISTICS,
    group_level_metrics: { "[]": groupMetricsFloats(intKeys) },
    per_sample_aggregate: { "*": { "[]": true } },
  };
}
