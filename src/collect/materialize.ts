// Turning input lines into rollout requests: validate, pick the agent, apply sampling overrides,
// give each line its `_ng_task_index` (identical lines share one; an existing value is honoured) and
// expand repeats consecutively with `_ng_rollout_index` counting per task across all its lines.
import { createHash } from "node:crypto";
import { DataRow } from "../protocol/index.js";
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

export class Materializer {
  private readonly taskOfLine = new Map<bigint, number>();
  private readonly nextRollout = new Map<number, number>();
  private nextTask = 0;

  constructor(private readonly options: MaterializeOptions) {}

  /** Validates a line and returns its repeats; throws JsonlError naming the line on any problem. */
  expand(line: JsonlLine): MaterializedRow[] {
    const { file } = this.options;
    const parsed = DataRow.safeParse(line.value);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(row)"}: ${i.message}`).join("; ");
      throw new JsonlError(file, line.line, `invalid row: ${problems}`);
    }
    const row: Record<string, unknown> = { ...line.value };
    const agentName = this.agentOf(line);
    row.agent_ref = { ...((row.agent_ref as object | undefined) ?? {}), type: "responses_api_agents", name: agentName };
    if (this.options.paramOverrides && Object.keys(this.options.paramOverrides).length > 0) {
      row.responses_create_params = { ...(row.responses_create_params as object), ...this.options.paramOverrides };
    }
    const task = this.taskIndexOf(line);
    const repeats = this.options.numRepeats(agentName);
    const out: MaterializedRow[] = [];
    for (let i = 0; i < repeats; i++) {
      const rollout = this.nextRollout.get(task) ?? 0;
      this.nextRollout.set(task, rollout + 1);
      out.push({ ...row, _ng_task_index: task, _ng_rollout_index: rollout } as MaterializedRow);
    }
    return out;
  }

  private agentOf(line: JsonlLine): string {
    const ref = line.value.agent_ref as { name?: unknown } | undefined;
    const name = typeof ref?.name === "string" ? ref.name : this.options.defaultAgent;
    if (!name) {
      throw new JsonlError(this.options.file, line.line, "row has no agent_ref and no default agent was given (use --agent NAME, or --resources-server ID with a single agent)");
    }
    if (!this.options.knownAgents.has(name)) {
      const known = [...this.options.knownAgents].join(", ") || "(none)";
      throw new JsonlError(this.options.file, line.line, `unknown agent "${name}"; agents in this config: ${known}`);
    }
    return name;
  }

  private taskIndexOf(line: JsonlLine): number {
    const given = line.value._ng_task_index;
    if (typeof given === "number" && Number.isInteger(given) && given >= 0) {
      this.nextTask = Math.max(this.nextTask, given + 1);
      return given;
    }
    const hash = lineHash(line.text);
    let task = this.taskOfLine.get(hash);
    if (task === undefined) {
      task = this.nextTask++;
      this.taskOfLine.set(hash, task);
    }
    return task;
  }
}
