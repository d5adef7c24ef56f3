// A multi-turn episode split into steps for the viewer (GET /api/rollouts/:task/:rollout, `episode`).
//
// gymnasium_agent (src/agents/gymnasium_agent.ts, EpisodeStep) writes `steps`, which says where each
// step's model output and environment output lie in `response.output` and what the environment
// answered (reward, terminated, truncated). A row without it — written by NeMo Gym (its
// gymnasium_agent at 07d6b0d keeps only the total reward and the last step's ends) or by an older
// Gymkit — that still looks like an episode is split at the model's turns instead, with no per-step
// rewards, and says so. Everything here is ranges into the row, never copies of its items: the page
// slices the row it already has.

type Row = Record<string, unknown>;
type Range = [number, number];

export interface StepView {
  /** 1-based. */
  step: number;
  /** What the model saw new before acting: a range of the prompt (`responses_create_params.input`; step 1) and/or of `response.output`. */
  observation: { input: Range | null; output: Range | null };
  /** The model's response at this step: a range of `response.output`. */
  action: Range;
  /** The environment's tool outputs for this step's tool calls: a range of `response.output`. */
  tool_outputs: Range;
  reward: number | null;
  cumulative_reward: number | null;
  terminated: boolean | null;
  truncated: boolean | null;
}

export interface EpisodeView {
  /** "recorded": the row's own `steps`; "model_turns": split at the model's turns, no per-step rewards. */
  source: "recorded" | "model_turns";
  note: string;
  steps: StepView[];
  /** The observation the environment answered to the last step (not in the output: the episode ended). */
  final_observation: string | null;
  /** How the episode ended, from the row's terminated/truncated; "max_steps" when the agent cut it. */
  end: "terminated" | "truncated" | "max_steps" | null;
  /** The sum of the step rewards (recorded steps only). */
  total_reward: number | null;
}

const isToolOutput = (item: unknown) => isObject(item) && item.type === "function_call_output";
function isObject(value: unknown): value is Row {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
/** Items the environment (not the model) put into the output: tool outputs and user/system/developer messages. */
function isEnvironmentItem(item: unknown): boolean {
  if (!isObject(item)) return false;
  if (item.type === "function_call_output") return true;
  const role = item.role;
  return (item.type === undefined || item.type === "message") && (role === "user" || role === "system" || role === "developer");
}

function endOf(row: Row, lastRecorded: { terminated: boolean; truncated: boolean } | null): EpisodeView["end"] {
  if (row.terminated === true) return "terminated";
  if (row.truncated !== true) return null;
  return lastRecorded && !lastRecorded.terminated && !lastRecorded.truncated ? "max_steps" : "truncated";
}

/** Why `steps` is not Gymkit's per-step record for this output, or null when it is. */
function recordProblem(steps: unknown, outputLength: number): string | null {
  if (!Array.isArray(steps) || steps.length === 0) return "steps is not a non-empty array";
  let at = 0;
  for (const [i, step] of steps.entries()) {
    if (!isObject(step)) return `steps[${i}] is not an object`;
    if (typeof step.reward !== "number" || typeof step.terminated !== "boolean" || typeof step.truncated !== "boolean") return `steps[${i}] lacks a numeric reward or boolean terminated/truncated`;
    for (const key of ["model_output", "env_output"] as const) {
      const range = step[key];
      if (!Array.isArray(range) || range.length !== 2 || !range.every((n) => Number.isInteger(n))) return `steps[${i}].${key} is not a [start, end] pair of integers`;
      if (range[0] !== at || range[1] < range[0]) return `steps[${i}].${key} is [${range.join(", ")}], expected to start at ${at}`;
      at = range[1];
    }
  }
  return at === outputLength ? null : `the steps cover ${at} of ${outputLength} output items`;
}

/** Tool outputs first, then the observation: the split of one step's environment output. */
function splitEnvironmentOutput(output: unknown[], [start, end]: Range): { tools: Range; observation: Range } {
  let toolsEnd = start;
  while (toolsEnd < end && isToolOutput(output[toolsEnd])) toolsEnd++;
  return { tools: [start, toolsEnd], observation: [toolsEnd, end] };
}

function fromRecord(row: Row, output: unknown[], inputLength: number, steps: Row[]): EpisodeView {
  const views: StepView[] = [];
  let total = 0;
  let observation: Range | null = null;
  for (const [i, step] of steps.entries()) {
    const env = splitEnvironmentOutput(output, step.env_output as Range);
    total += step.reward as number;
    views.push({
      step: i + 1,
      observation: { input: i === 0 ? [0, inputLength] : null, output: observation },
      action: step.model_output as Range,
      tool_outputs: env.tools,
      reward: step.reward as number,
      cumulative_reward: total,
      terminated: step.terminated as boolean,
      truncated: step.truncated as boolean,
    });
    observation = env.observation;
  }
  const last = steps[steps.length - 1]!;
  return {
    source: "recorded",
    note: "steps as the agent recorded them: each with the environment's reward and ends",
    steps: views,
    final_observation: typeof last.final_observation === "string" ? last.final_observation : null,
    end: endOf(row, last as { terminated: boolean; truncated: boolean }),
    total_reward: total,
  };
}

function fromModelTurns(row: Row, output: unknown[], inputLength: number, why: string): EpisodeView {
  const views: StepView[] = [];
  let i = 0;
  // Environment items before the model's first turn are part of what it saw first.
  while (i < output.length && isEnvironmentItem(output[i])) i++;
  let observation: Range | null = i > 0 ? [0, i] : null;
  while (i < output.length) {
    const start = i;
    while (i < output.length && !isEnvironmentItem(output[i])) i++;
    const actionEnd = i;
    while (i < output.length && isEnvironmentItem(output[i])) i++;
    const split = splitEnvironmentOutput(output, [actionEnd, i]);
    views.push({
      step: views.length + 1,
      observation: { input: views.length === 0 ? [0, inputLength] : null, output: observation },
      action: [start, actionEnd],
      tool_outputs: split.tools,
      reward: null,
      cumulative_reward: null,
      terminated: null,
      truncated: null,
    });
    observation = split.observation;
  }
  return {
    source: "model_turns",
    note: `split at the model's turns, without per-step rewards: ${why}; the rollout's reward is the episode's total`,
    steps: views,
    final_observation: null,
    end: endOf(row, null),
    total_reward: null,
  };
}

/**
 * The step view of a successful rollout, or null when it is not a multi-turn episode: no `steps`, no
 * top-level terminated/truncated (NeMo Gym's Gymnasium rollouts carry them) and no user message
 * inside the output (an observation or a simulated user's turn).
 */
export function episodeSteps(row: Row): EpisodeView | null {
  const response = row.response;
  if (!isObject(response) || !Array.isArray(response.output) || response.output.length === 0) return null;
  const output = response.output as unknown[];
  const params = row.responses_create_params;
  const input = isObject(params) ? params.input : undefined;
  const inputLength = Array.isArray(input) ? input.length : typeof input === "string" ? 1 : 0;
  if (row.steps !== undefined) {
    const problem = recordProblem(row.steps, output.length);
    if (problem === null) return fromRecord(row, output, inputLength, row.steps as Row[]);
    return fromModelTurns(row, output, inputLength, `the row's steps is not the per-step record gymnasium_agent writes (${problem})`);
  }
  const episodeLike = typeof row.terminated === "boolean" || typeof row.truncated === "boolean" || output.some((item) => isObject(item) && item.role === "user");
  if (!episodeLike) return null;
  return fromModelTurns(row, output, inputLength, "the rollout has no per-step record (written by NeMo Gym, or by Gymkit before it kept one)");
}
