// A `POST /v1/rollouts` body turned into work: validated as a whole before the stream starts (so a bad
// request is a 422 naming every bad row, never a stream that dies half-way), then expanded lazily into
// work items with the collector's own materialiser (and, for the plan line, each row's task and
// rollout indices, one entry per row) — the same task indices, repeats, seeds and agent
// routing as `gym eval run` on the same rows. The request may ask for at most
// MAX_ROLLOUTS_PER_REQUEST pairs, and its pairs are made one at a time as the scheduler admits them,
// handing the event loop back every few hundred: a 1 KB request can neither exhaust memory nor stall
// the other servers of the process.
import { setImmediate as nextTurn } from "node:timers/promises";
import { z } from "zod";
import { RequestValidationError, zodDetails, type ValidationDetail } from "../http/errors.js";
import { DataRow, ResponsesCreateParams } from "../protocol/index.js";
import { ROLLOUT_FORMATS } from "../protocol/rollout_service.js";
import type { WorkItem } from "./scheduler.js";
import { Materializer, repeatsOf as rowsOf } from "./materialize.js";
import { pairKey } from "./lines.js";
import { parseRepeatsSpec, resolveRepeats } from "./plan.js";

export const MAX_SERVICE_CONCURRENCY = 4096;
/** Rollouts (rows × repeats) one request may ask for: far above a training step's batch; split larger work. */
export const MAX_ROLLOUTS_PER_REQUEST = 1_000_000;
/** Work items made between two turns of the event loop. */
const ITEMS_PER_TURN = 256;

export const RolloutRequest = z.strictObject({
  /** Data rows, as lines of an input JSONL would be. */
  rows: z.array(z.record(z.string(), z.unknown())),
  /** Rollouts per row: an integer, or a per-agent map with `_default`. */
  num_repeats: z
    .union([z.number().int().min(1).max(MAX_ROLLOUTS_PER_REQUEST), z.record(z.string(), z.number().int().min(1).max(MAX_ROLLOUTS_PER_REQUEST))])
    .optional(),
  /** Rollouts in flight at once for this request. */
  concurrency: z.number().int().min(1).max(MAX_SERVICE_CONCURRENCY).optional(),
  /** Merged into every row's `responses_create_params` (temperature, top_p, max_output_tokens, …). */
  responses_create_params: ResponsesCreateParams.omit({ input: true }).partial().optional(),
  /** Agent for rows without `agent_ref` (default: the only agent, if there is exactly one). */
  agent: z.string().min(1).optional(),
  /** Put each rollout's index into `responses_create_params.seed`. */
  num_repeats_add_seed: z.boolean().optional(),
  /** Deadline of one whole rollout, in seconds. */
  // Absent: the same default deadline as `gym eval run` (DEFAULT_ROLLOUT_TIMEOUT_S); 0: none.
  rollout_timeout_s: z.number().nonnegative().optional(),
  /** "raw" (default): each line is the scored rollout; "tokens": its token export (prompt/response ids, mask, logprobs, reward). */
  format: z.enum(ROLLOUT_FORMATS).optional(),
  /** Start the stream with a plan line (every requested pair), so a cut stream's missing pairs can be named. */
  plan: z.boolean().optional(),
});
export type RolloutRequest = z.infer<typeof RolloutRequest>;

/** Where a row came from, in messages: `rows[3]` reads better than a file name and line. */
const ROWS = "rows";

export interface RolloutPlan {
  /** How many (task, rollout) pairs the request asks for. */
  requested: number;
  /**
   * Requested pair keys (`pairKey`) in plan order, appended as `items()` makes them: complete once
   * `items()` is exhausted (it is, whenever the scheduler ran every item), so missing pairs can be named.
   */
  keys: number[];
  /** Unused `num_repeats` keys and the like: reported in the summary. */
  warnings: string[];
  /** Per request row, `[task, first rollout, count]` (the plan line): one entry per row, not per rollout. */
  pairs(): Promise<Array<[number, number, number]>>;
  /** The work, made lazily (iterate once). */
  items(): AsyncGenerator<WorkItem>;
}

const SHOWN_PROBLEMS = 50;

/** Validates the request against the running agents; throws a 422 naming every problem at once. */
export function planRollouts(request: RolloutRequest, agents: ReadonlySet<string>): RolloutPlan {
  const problems: ValidationDetail[] = [];
  const onlyAgent = agents.size === 1 ? [...agents][0] : undefined;
  const defaultAgent = request.agent ?? onlyAgent;
  if (request.agent !== undefined && !agents.has(request.agent)) {
    problems.push({ type: "value_error", loc: ["body", "agent"], msg: `unknown agent "${request.agent}"; running agents: ${[...agents].join(", ") || "(none)"}` });
  }
  const agentsInRows = new Set<string>();
  const agentOfRow: string[] = [];
  request.rows.forEach((row, index) => {
    const parsed = DataRow.safeParse(row);
    if (!parsed.success) {
      problems.push(...zodDetails(parsed.error, ["body", ROWS, index]));
      return;
    }
    const name = parsed.data.agent_ref?.name ?? defaultAgent;
    if (name === undefined) {
      const hint = agents.size === 0 ? "no agent is running" : `name one in "agent" or the row's agent_ref (running: ${[...agents].join(", ")})`;
      problems.push({ type: "value_error", loc: ["body", ROWS, index, "agent_ref"], msg: `row has no agent_ref and there is no default agent: ${hint}` });
    } else if (!agents.has(name)) {
      problems.push({ type: "value_error", loc: ["body", ROWS, index, "agent_ref", "name"], msg: `unknown agent "${name}"; running agents: ${[...agents].join(", ") || "(none)"}` });
    } else {
      agentsInRows.add(name);
      agentOfRow.push(name);
    }
  });
  let repeatsOf: (agent: string) => number = () => 1;
  let warnings: string[] = [];
  try {
    ({ repeatsOf, warnings } = resolveRepeats(parseRepeatsSpec(request.num_repeats), agentsInRows));
  } catch (error) {
    problems.push({ type: "value_error", loc: ["body", "num_repeats"], msg: (error as Error).message });
  }
  // Counted, not made: the materialiser gives every row exactly its agent's repeats.
  const requested = agentOfRow.reduce((sum, agent) => sum + repeatsOf(agent), 0);
  if (requested > MAX_ROLLOUTS_PER_REQUEST) {
    problems.push({
      type: "value_error",
      loc: ["body", "num_repeats"],
      msg: `the request asks for ${requested} rollouts (rows × num_repeats); at most ${MAX_ROLLOUTS_PER_REQUEST} per request: split the rows over several requests`,
    });
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, SHOWN_PROBLEMS);
    if (problems.length > SHOWN_PROBLEMS) shown.push({ type: "value_error", loc: ["body", ROWS], msg: `… and ${problems.length - SHOWN_PROBLEMS} more problems` });
    throw new RequestValidationError(shown);
  }

  const makeMaterializer = () =>
    new Materializer({
      file: ROWS,
      numRepeats: repeatsOf,
      defaultAgent,
      knownAgents: agents,
      paramOverrides: request.responses_create_params,
    });
  // Identical rows share a task index, as identical input lines do: the text is the row's JSON.
  const lines = function* () {
    for (let i = 0; i < request.rows.length; i++) {
      const value = request.rows[i]!;
      yield { line: i + 1, text: JSON.stringify(value), value };
    }
  };

  const keys: number[] = [];
  return {
    requested,
    keys,
    warnings,
    async pairs() {
      // A materialiser of its own: the same rows give the same indices as items() will, and no row is kept.
      const materializer = makeMaterializer();
      const pairs: Array<[number, number, number]> = [];
      let sinceTurn = 0;
      for (const line of lines()) {
        const begun = materializer.start(line);
        pairs.push([begun.task, begun.firstRollout, begun.repeats]);
        if (++sinceTurn >= ITEMS_PER_TURN) {
          sinceTurn = 0;
          await nextTurn();
        }
      }
      return pairs;
    },
    async *items() {
      const materializer = makeMaterializer();
      let sinceTurn = 0;
      for (const line of lines()) {
        for (const row of rowsOf(materializer.start(line))) {
          if (request.num_repeats_add_seed) row.responses_create_params = { ...(row.responses_create_params as object), seed: row._ng_rollout_index };
          keys.push(pairKey(row._ng_task_index, row._ng_rollout_index));
          yield { task: row._ng_task_index, rollout: row._ng_rollout_index, agent: row.agent_ref.name, attempt: 0, row };
          // The scheduler pulls the next item synchronously when a rollout fails fast: give the loop back.
          if (++sinceTurn >= ITEMS_PER_TURN) {
            sinceTurn = 0;
            await nextTurn();
          }
        }
      }
    },
  };
}
