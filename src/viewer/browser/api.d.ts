// What the viewer's JSON API (src/viewer/routes/) answers, as the page's script (app.ts) reads it.
// Global declarations, like the script itself: the page runs one classic script, with no modules.

/** A row as written by the collector or NeMo Gym: arbitrary JSON, read defensively. */
type Row = Record<string, any>;
type Pair = { task: number; rollout: number };
interface Histogram {
  min: number;
  max: number;
  counts: number[];
}
interface AgentSummary {
  name: string;
  rollouts: number;
  failures: number;
  mean_reward: number | null;
  reward_histogram: Histogram | null;
  key_metrics: Record<string, unknown> | null;
  /** Key metrics left out as identifiers or constants (src/viewer/key_metrics.ts). */
  hidden_key_metrics?: Array<{ name: string; reason: string }>;
}
interface Summary {
  rollouts_path: string;
  files: { metrics: { error: string | null } };
  counts: {
    rollouts: number;
    failures: number;
    failed_pairs: number;
    duplicate_pairs: number;
    tasks: number;
    agents: number;
    planned: number | null;
    missing_pairs: number | null;
    malformed_lines: number;
  };
  missing_pairs: Pair[];
  malformed_lines: Array<{ file: string; line: number; reason: string }>;
  failure_classes: Record<string, number>;
  agents: AgentSummary[];
}
interface Listing extends Pair {
  agent: string;
  status: "success" | "failure";
  reward: number | null;
  attempt: number;
  failure_class: string | null;
  terminal: boolean | null;
  snippet?: string;
  tool_calls?: number | null;
  answer?: string;
  error?: string;
  unreadable?: string;
}
interface RolloutPage {
  total: number;
  rows: Listing[];
  search?: { complete: boolean; scanned_bytes: number; max_matches: number };
}
interface TaskLine {
  task: number;
  /** The first line of the task's first user message. */
  prompt: string | null;
  agents: string[];
  rollouts: number;
  failures: number;
  mean_reward: number | null;
  min_reward: number | null;
  max_reward: number | null;
  passes: number;
  pass_rate: number | null;
}
interface TaskList {
  total: number;
  sort: string;
  pass_threshold: number;
  rows: TaskLine[];
}
interface Attempt {
  attempt: number;
  failure_class: string;
  terminal: boolean;
  error: unknown;
}
interface Rollout extends Pair {
  agent: string;
  status: "success" | "failure";
  reward: number | null;
  source: { file: string; line: number };
  previous: Pair | null;
  next: Pair | null;
  successes: number;
  row: Row | null;
  episode: EpisodeView | null;
  attempts: Attempt[];
  planned_row: Row | null;
}
/** A multi-turn episode step by step (src/viewer/episode_steps.ts): ranges of the row's prompt and output. */
type Span = [number, number];
interface StepView {
  step: number;
  observation: { input: Span | null; output: Span | null };
  action: Span;
  tool_outputs: Span;
  reward: number | null;
  cumulative_reward: number | null;
  terminated: boolean | null;
  truncated: boolean | null;
}
interface EpisodeView {
  source: "recorded" | "model_turns";
  note: string;
  steps: StepView[];
  final_observation: string | null;
  end: "terminated" | "truncated" | "max_steps" | null;
  total_reward: number | null;
}
interface TaskView {
  task: number;
  total: number;
  offset: number;
  limit: number;
  stats: { rollouts: number; failures: number; mean_reward: number | null; min_reward: number | null; max_reward: number | null };
  group_level_metrics: Array<{ agent: string; metrics: Record<string, unknown> }>;
  responses_create_params: Row | null;
  rows: Listing[];
}
