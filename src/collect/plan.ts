// The plan of a run: every requested (task, rollout) pair as a materialised row, written to
// `<stem>_materialized_inputs.jsonl` before any rollout starts. Two streaming passes over the input:
// the first validates every row and learns which agents it uses (so a bad `num_repeats` map is one
// error before anything runs), the second writes the plan. The plan file appears atomically (written
// beside, then renamed), so a resume can trust any plan it finds.
import { closeSync, openSync, renameSync, rmSync } from "node:fs";
import { BufferedFile } from "./buffered_file.js";
import { parse as parseYaml } from "yaml";
import { readJsonl, type JsonlLine } from "./jsonl.js";
import { Materializer, RowRoutingError, type MaterializedRow, type StartedLine } from "./materialize.js";
import { resultLine } from "./lines.js";
import { applyPrompt, type PromptConfig } from "./prompt_config.js";
import { UserError } from "../config/user_error.js";

/**
 * The input's lines, with the prompt config applied when there is one. The line's text stays the
 * original, so task indices (identical input lines share one) do not depend on the prompt.
 */
async function* inputLines(options: PlanOptions): AsyncGenerator<JsonlLine> {
  const prompt = options.prompt;
  for await (const line of readJsonl(options.inputPath)) {
    yield prompt ? { ...line, value: applyPrompt(prompt, line, options.inputPath) } : line;
  }
}

export class PlanError extends UserError {}

export type RepeatsSpec = number | Record<string, number>;

/** Reads `--num-repeats` / `num_repeats`: an integer, or a per-agent map given as JSON or YAML flow. */
export function parseRepeatsSpec(value: unknown): RepeatsSpec {
  if (value === undefined || value === null || value === "") return 1;
  let spec: unknown = value;
  if (typeof value === "string") {
    try {
      spec = parseYaml(value);
    } catch {
      throw new PlanError(`--num-repeats must be an integer or a map like '{"my_agent": 32, "_default": 1}', got ${value}`);
    }
  }
  if (typeof spec === "number") {
    if (!Number.isInteger(spec) || spec < 1) throw new PlanError(`--num-repeats must be a whole number ≥ 1, got ${JSON.stringify(value)}`);
    return spec;
  }
  if (spec && typeof spec === "object" && !Array.isArray(spec)) {
    const bad = Object.entries(spec).filter(([, v]) => typeof v !== "number" || !Number.isInteger(v) || v < 1);
    if (bad.length > 0) {
      throw new PlanError(`num_repeats values must be whole numbers ≥ 1; bad: ${bad.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ")}`);
    }
    return spec as Record<string, number>;
  }
  throw new PlanError(`--num-repeats must be an integer or a per-agent map, got ${JSON.stringify(value)}`);
}

/** Checks a repeats map against the agents the input uses: one error for all gaps, warnings for unused keys. */
export function resolveRepeats(spec: RepeatsSpec, agentsInInput: ReadonlySet<string>): { repeatsOf: (agent: string) => number; warnings: string[] } {
  if (typeof spec === "number") return { repeatsOf: () => spec, warnings: [] };
  const fallback = spec._default;
  const missing = [...agentsInInput].filter((a) => !(a in spec));
  if (fallback === undefined && missing.length > 0) {
    throw new PlanError(
      `num_repeats has no entry for agent(s) ${missing.map((a) => `"${a}"`).join(", ")} used by the input, and no "_default"; ` +
        `add them or a "_default" (given keys: ${Object.keys(spec).join(", ")})`,
    );
  }
  const unused = Object.keys(spec).filter((k) => k !== "_default" && !agentsInInput.has(k));
  const warnings = unused.length > 0 ? [`num_repeats key(s) ${unused.map((k) => `"${k}"`).join(", ")} match no input row's agent`] : [];
  return { repeatsOf: (agent) => spec[agent] ?? fallback ?? 1, warnings };
}

export interface Shard {
  index: number;
  count: number;
}

export function parseShard(text: string | undefined): Shard | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index >= count) throw new PlanError(`--shard must be I/N with 0 ≤ I < N (e.g. 0/4), got ${text}`);
  return { index, count };
}

export interface PlanOptions {
  inputPath: string;
  planPath: string;
  knownAgents: ReadonlySet<string>;
  defaultAgent?: string;
  repeats: RepeatsSpec;
  limit?: number;
  paramOverrides?: Record<string, unknown>;
  /** Put the rollout index into `responses_create_params.seed`. */
  addSeed?: boolean;
  shard?: Shard;
  /** Builds each row's `responses_create_params.input` from its fields (`prompt_config`). */
  prompt?: PromptConfig;
  /**
   * NeMo-Skills' random seeds: each seed is one more full set of repeats, and seed `s` owns rollout
   * indices `s·W … s·W + W − 1` of a task with `W` rollouts per set. Runs of different seeds therefore
   * never share a (task, rollout) pair and merge into one file; with `addSeed` the sampling seeds differ too.
   */
  seeds?: readonly number[];
}

export interface Plan {
  path: string;
  /** Requested rollouts in this plan (this shard only). */
  total: number;
  agents: Set<string>;
  warnings: string[];
}

async function scanAgents(options: PlanOptions): Promise<Set<string>> {
  const materializer = new Materializer({
    file: options.inputPath,
    numRepeats: () => 1,
    defaultAgent: options.defaultAgent,
    knownAgents: options.knownAgents,
  });
  const agents = new Set<string>();
  const problems = new RoutingProblems();
  let rows = 0;
  for await (const line of inputLines(options)) {
    if (options.limit !== undefined && rows >= options.limit) break;
    rows++;
    try {
      for (const row of materializer.expand(line)) agents.add(row.agent_ref.name);
    } catch (error) {
      problems.add(error);
    }
  }
  problems.throwIfAny();
  return agents;
}

/** Routing problems are collected so one error names every row; anything else stops at once. */
class RoutingProblems {
  private readonly messages: string[] = [];

  /** Keeps a routing error; rethrows any other. */
  add(error: unknown): void {
    if (error instanceof RowRoutingError) this.messages.push(error.message);
    else throw error;
  }

  get count(): number {
    return this.messages.length;
  }

  throwIfAny(): void {
    const problems = this.messages;
    if (problems.length === 0) return;
    const shown = problems.slice(0, 20).join("\n  ");
    const more = problems.length > 20 ? `\n  … and ${problems.length - 20} more rows` : "";
    throw new PlanError(`${problems.length} input row(s) cannot be routed to an agent:\n  ${shown}${more}`);
  }
}

/**
 * Whether one read of the input can both check and plan it: the agents a run's rows use only matter
 * before planning when a per-agent repeats map (checked against them first) or a seed's rollout
 * offsets (the widths pass, which stops at the first unroutable row) need them. Otherwise the rows
 * are checked as they are planned, routing problems gathered over the whole read just as the
 * separate pass gathers them.
 */
function checkWhilePlanning(options: Pick<PlanOptions, "repeats" | "seeds">): boolean {
  const seeds = options.seeds ?? [0];
  return typeof options.repeats === "number" && seeds.length === 1 && seeds[0] === 0;
}

export async function writePlan(options: PlanOptions): Promise<Plan> {
  const oneRead = checkWhilePlanning(options);
  const agents = oneRead ? new Set<string>() : await scanAgents(options);
  const problems = new RoutingProblems();
  const { repeatsOf, warnings } = resolveRepeats(options.repeats, agents);
  const materializerOptions = {
    file: options.inputPath,
    numRepeats: repeatsOf,
    defaultAgent: options.defaultAgent,
    knownAgents: options.knownAgents,
    paramOverrides: options.paramOverrides,
  };
  const seeds = options.seeds ?? [0];
  const widths = seeds.some((seed) => seed !== 0) ? await taskWidths(options, materializerOptions) : undefined;
  let total = 0;
  let rows = 0;
  const tasks = new Set<number>();
  await writeAtomically(options.planPath, async (write) => {
    // Seed-major order, as NeMo-Skills runs its seeds one after another.
    for (const seed of seeds) {
      const materializer = new Materializer(materializerOptions);
      rows = 0;
      for await (const line of inputLines(options)) {
        if (options.limit !== undefined && rows >= options.limit) break;
        rows++;
        let expanded: MaterializedRow[];
        try {
          expanded = materializer.expand(line);
        } catch (error) {
          if (!oneRead) throw error;
          problems.add(error);
          continue;
        }
        for (const row of expanded) {
          if (oneRead) agents.add(row.agent_ref.name);
          // Nothing is written once a row cannot be routed: the plan is refused as a whole.
          if (problems.count > 0) continue;
          const task = row._ng_task_index;
          tasks.add(task);
          if (options.shard && task % options.shard.count !== options.shard.index) continue;
          if (seed !== 0) row._ng_rollout_index += seed * widths!.get(task)!;
          if (options.addSeed) row.responses_create_params = { ...(row.responses_create_params as object), seed: row._ng_rollout_index };
          write(resultLine(task, row._ng_rollout_index, row));
          total++;
        }
      }
    }
    problems.throwIfAny();
    if (total === 0) throw new PlanError(emptyPlanMessage(options, rows, tasks.size));
  });
  return { path: options.planPath, total, agents, warnings };
}

/** Rollouts per seed of every task: known only after every line is read, as identical lines share a task. */
async function taskWidths(options: PlanOptions, materializerOptions: ConstructorParameters<typeof Materializer>[0]): Promise<Map<number, number>> {
  const materializer = new Materializer(materializerOptions);
  const widths = new Map<number, number>();
  let rows = 0;
  for await (const line of inputLines(options)) {
    if (options.limit !== undefined && rows >= options.limit) break;
    rows++;
    const started = materializer.start(line);
    widths.set(started.task, Math.max(widths.get(started.task) ?? 0, started.firstRollout + started.repeats));
  }
  return widths;
}

/** What a plan would hold, per agent: its tasks and its rollouts (pairs). */
export interface PlanPreview {
  total: number;
  tasks: number;
  agents: Map<string, { tasks: number; rollouts: number }>;
  warnings: string[];
}

/**
 * Everything `writePlan` checks — every line parsed and validated, every row routed to an agent the
 * config defines, the repeats map against those agents, a shard that gets no task — and what the plan
 * would hold, without writing anything: run before the engine or any server starts, and by --dry-run.
 */
export async function previewPlan(options: Omit<PlanOptions, "planPath">): Promise<PlanPreview> {
  const planOptions = { ...options, planPath: "" };
  const oneRead = checkWhilePlanning(options);
  const agents = oneRead ? new Set<string>() : await scanAgents(planOptions);
  const problems = new RoutingProblems();
  const { repeatsOf, warnings } = resolveRepeats(options.repeats, agents);
  const materializer = new Materializer({ file: options.inputPath, numRepeats: repeatsOf, defaultAgent: options.defaultAgent, knownAgents: options.knownAgents });
  const perAgent = new Map<string, { tasks: Set<number>; rollouts: number }>();
  const allTasks = new Set<number>();
  const shardTasks = new Set<number>();
  let total = 0;
  let rows = 0;
  for await (const line of inputLines(planOptions)) {
    if (options.limit !== undefined && rows >= options.limit) break;
    rows++;
    let started: StartedLine;
    try {
      started = materializer.start(line);
    } catch (error) {
      if (!oneRead) throw error;
      problems.add(error);
      continue;
    }
    allTasks.add(started.task);
    if (options.shard && started.task % options.shard.count !== options.shard.index) continue;
    const agent = (started.row.agent_ref as { name: string }).name;
    const entry = perAgent.get(agent) ?? { tasks: new Set<number>(), rollouts: 0 };
    entry.tasks.add(started.task);
    // Each seed is one more full set of the repeats (see `seeds`).
    const rollouts = started.repeats * (options.seeds?.length ?? 1);
    entry.rollouts += rollouts;
    perAgent.set(agent, entry);
    shardTasks.add(started.task);
    total += rollouts;
  }
  problems.throwIfAny();
  if (total === 0) throw new PlanError(emptyPlanMessage(planOptions, rows, allTasks.size));
  return {
    total,
    tasks: shardTasks.size,
    agents: new Map([...perAgent].map(([agent, e]) => [agent, { tasks: e.tasks.size, rollouts: e.rollouts }])),
    warnings,
  };
}

/** Why a plan came out empty, in the user's terms: an empty file, a --limit, or a shard with no task. */
function emptyPlanMessage(options: PlanOptions, rows: number, tasks: number): string {
  if (rows === 0) return `${options.inputPath} has no rows (no non-blank lines): there is nothing to run`;
  const shard = options.shard!;
  const limited = options.limit !== undefined ? ` within --limit ${options.limit}` : "";
  return `shard ${shard.index}/${shard.count} gets no tasks: the input has ${tasks} task${tasks === 1 ? "" : "s"}${limited} and none has an index ≡ ${shard.index} (mod ${shard.count}); use at most ${tasks} shard${tasks === 1 ? "" : "s"}`;
}

/**
 * Writes `path` through `<path>.partial`, renamed into place only when `fill` succeeds: a resume can
 * trust any plan it finds, and a failure (bad line, empty input, full disk) leaves no partial file.
 */
export async function writeAtomically(path: string, fill: (write: (text: string) => void) => Promise<void>): Promise<void> {
  const partial = `${path}.partial`;
  const fd = openSync(partial, "w");
  try {
    try {
      const file = new BufferedFile(fd);
      await fill((text) => file.write(text));
      file.flush();
    } finally {
      closeSync(fd);
    }
    renameSync(partial, path);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/**
 * The shards of `count` that no task of the input (within `limit`) falls into: a job array would run
 * them only to fail on an empty plan, so `eval submit` refuses them before anything is submitted.
 */
export async function emptyShards(inputPath: string, count: number, limit?: number): Promise<{ empty: number[]; tasks: number }> {
  const tasks = new Materializer({ file: inputPath, numRepeats: () => 1, knownAgents: new Set() });
  const covered = new Set<number>();
  const seen = new Set<number>();
  let rows = 0;
  for await (const line of readJsonl(inputPath)) {
    if (limit !== undefined && rows >= limit) break;
    rows++;
    const task = tasks.taskOf(line);
    seen.add(task);
    covered.add(task % count);
    // Every shard has a task: no need to read on.
    if (covered.size === count) break;
  }
  return { empty: Array.from({ length: count }, (_, i) => i).filter((i) => !covered.has(i)), tasks: seen.size };
}

/** Streams the rows of a plan file, in plan order. */
export async function* planRows(planPath: string): AsyncGenerator<Record<string, unknown> & { _ng_task_index: number; _ng_rollout_index: number; agent_ref: { type: string; name: string } }> {
  for await (const line of readJsonl(planPath)) yield line.value as never;
}
