// Turning input lines into rollout requests: validate, pick the agent, apply sampling overrides,
// give each line its `_ng_task_index` (identical lines share one; an existing value is honoured) and
// expand repeats consecutively with `_ng_rollout_index` counting per task across all its lines.
import { createHash } from "node:crypto";
import { DataRow } from "../protocol/index.js";
import { surelyDataRow } from "../protocol/fast_check.js";
import { JsonlError, type JsonlLine } from "./jsonl.js";

export interface MaterializeOptions {
  file: string;
  /** Repeats per agent name; `_default` applies to agents not listed. */
  numRepeats: (agentName: string) => number;
  /** Picks the agent for a row without `agent_ref`, or returns undefined. */
  defaultAgent?: string;
  /** Fields merged into every row's `responses_create_params` (temperature, top_p, …). */
  paramOverrides?: Record<string, unknown>;
  /** Agent names that exist; a row naming another is an error. */
  knownAgents: ReadonlySet<string>;
}

export interface MaterializedRow extends Record<string, unknown> {
  _ng_task_index: number;
  _ng_rollout_index: number;
  agent_ref: { type: "responses_api_agents"; name: string };
}

/** 64 bits of SHA-1: collision odds are negligible at any realistic input size, and it is 8 bytes a line. */
function lineHash(text: string): bigint {
  return createHash("sha1").update(text).digest().readBigUInt64BE(0);
}

/** A validated line with its task index and the rollout indices it takes: `firstRollout` onwards, `repeats` of them. */
export interface StartedLine {
  row: Record<string, unknown>;
  task: number;
  firstRollout: number;
  repeats: number;
}

/** The rows of a started line, one at a time, in rollout order. */
export function* repeatsOf(line: StartedLine): Generator<MaterializedRow> {
  for (let i = 0; i < line.repeats; i++) yield { ...line.row, _ng_task_index: line.task, _ng_rollout_index: line.firstRollout + i } as MaterializedRow;
}

/** A row that cannot be sent to any agent: no agent_ref and no default, an unknown agent, or a malformed agent_ref. */
export class RowRoutingError extends JsonlError {}

export class Materializer {
  private readonly taskOfLine = new Map<bigint, number>();
  /** Next rollout index of tasks seen more than once. */
  private readonly nextRollout = new Map<number, number>();
  private readonly explicitTasks = new Set<number>();
  private nextTask = 0;

  constructor(private readonly options: MaterializeOptions) {}

  /** Validates a line and returns its repeats; throws JsonlError naming the line on any problem. */
  expand(line: JsonlLine): MaterializedRow[] {
    return [...repeatsOf(this.start(line))];
  }

  /**
   * Validates a line and books its task and rollout indices, without making its repeats: callers that
   * must not hold all of a line's repeats at once (the rollout service) make them with `repeatsOf`.
   */
  start(line: JsonlLine): StartedLine {
    const { file } = this.options;
    // The quick check accepts the usual row without zod; anything else gets the schema and its message.
    const parsed = surelyDataRow(line.value) ? undefined : DataRow.safeParse(line.value);
    if (parsed && !parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(row)"}: ${i.message}`).join("; ");
      const unroutable = parsed.error.issues.some((i) => i.path[0] === "agent_ref");
      throw new (unroutable ? RowRoutingError : JsonlError)(file, line.line, `invalid row: ${problems}`);
    }
    const row: Record<string, unknown> = { ...line.value };
    const agentName = this.agentOf(line);
    row.agent_ref = { ...((row.agent_ref as object | undefined) ?? {}), type: "responses_api_agents", name: agentName };
    if (this.options.paramOverrides && Object.keys(this.options.paramOverrides).length > 0) {
      row.responses_create_params = { ...(row.responses_create_params as object), ...this.options.paramOverrides };
    }
    const { task, seenBefore, explicit } = this.taskIndexOf(line);
    const repeats = this.options.numRepeats(agentName);
    // Rollout indices count per task across every line that shares it. A first sighting starts at 0
    // and needs no entry (most tasks are seen once): only tasks seen again are tracked.
    const first = seenBefore ? (this.nextRollout.get(task) ?? repeats) : 0;
    if (seenBefore || explicit) this.nextRollout.set(task, first + repeats);
    return { row, task, firstRollout: first, repeats };
  }

  /** The task index `expand` gives this line (and records it, as `expand` does), without validating the row. */
  taskOf(line: JsonlLine): number {
    return this.taskIndexOf(line).task;
  }

  private agentOf(line: JsonlLine): string {
    const ref = line.value.agent_ref as { name?: unknown } | undefined;
    const name = typeof ref?.name === "string" ? ref.name : this.options.defaultAgent;
    if (!name) {
      throw new RowRoutingError(this.options.file, line.line, "row has no agent_ref and no default agent was given (use --agent NAME, or --resources-server ID with a single agent)");
    }
    if (!this.options.knownAgents.has(name)) {
      const known = [...this.options.knownAgents].join(", ") || "(none)";
      throw new RowRoutingError(this.options.file, line.line, `unknown agent "${name}"; agents in this config: ${known}`);
    }
    return name;
  }

  private taskIndexOf(line: JsonlLine): { task: number; seenBefore: boolean; explicit: boolean } {
    const given = line.value._ng_task_index;
    if (typeof given === "number" && Number.isInteger(given) && given >= 0) {
      this.nextTask = Math.max(this.nextTask, given + 1);
      // Lines that name their task may share it with different repeats: track all of them.
      const seenBefore = this.explicitTasks.has(given);
      this.explicitTasks.add(given);
      return { task: given, seenBefore, explicit: true };
    }
    const hash = lineHash(line.text);
    const task = this.taskOfLine.get(hash);
    if (task !== undefined) return { task, seenBefore: true, explicit: false };
    this.taskOfLine.set(hash, this.nextTask);
    return { task: this.nextTask++, seenBefore: false, explicit: false };
  }
}
