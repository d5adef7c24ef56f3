// A client for the rollout service (`POST /v1/rollouts` on a head server or `gym serve`). It yields
// rollout rows as they finish and fails loudly unless the stream proves it is complete: it must end
// with a summary line, the summary must agree with what arrived, and no requested pair may be
// missing. A stream that simply stops — a crashed server closes it cleanly — is an error, never a
// short epoch.
import { StringDecoder } from "node:string_decoder";
import { request as httpRequest } from "../http/undici_lite.js";
import { dispatcher, joinUrl, truncate } from "../http/client.js";
import {
  NDJSON,
  REQUESTED_HEADER,
  ROLLOUTS_PATH,
  type MissingRollout,
  type PlanLine,
  type RolloutFormat,
  type RolloutSummary,
  type StreamErrorLine,
} from "../protocol/rollout_service.js";

export type { MissingRollout, PlanLine, RolloutFormat, RolloutSummary } from "../protocol/rollout_service.js";

export interface RolloutRequestBody {
  rows: Array<Record<string, unknown>>;
  num_repeats?: number | Record<string, number>;
  concurrency?: number;
  responses_create_params?: Record<string, unknown>;
  agent?: string;
  num_repeats_add_seed?: boolean;
  rollout_timeout_s?: number;
  /** "tokens": each row is the rollout's token export (prompt_ids, response_ids, response_mask, response_logprobs, reward). */
  format?: RolloutFormat;
  /** Ask for the plan line (the client does unless this is false): lets a broken stream name its missing pairs. */
  plan?: boolean;
}

/** A rollout row: the verify reply plus `_ng_task_index`, `_ng_rollout_index`, `agent_ref`. */
export interface RolloutRow extends Record<string, unknown> {
  _ng_task_index: number;
  _ng_rollout_index: number;
  reward: number;
}

export interface RolloutClientOptions {
  /** Abort to cancel: the service stops every rollout of the request. */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Called with the summary once it has arrived and checked out (before any MissingRolloutsError). */
  onSummary?: (summary: RolloutSummary) => void;
}

/** The request was refused (4xx/5xx before any rollout ran): bad rows, unknown agent, no agents. */
export class RolloutRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`the rollout service answered ${status}: ${truncate(body, 2000)}`);
    this.name = "RolloutRequestError";
  }
}

/** The stream broke: no summary, an error line from the service, a bad line, or a lost connection. */
export class RolloutStreamError extends Error {
  constructor(
    message: string,
    readonly received: number,
    /** Requested pairs with no row yet, from the plan line (empty when the service sent none). */
    readonly missingPairs: Array<[number, number]> = [],
  ) {
    const shown = missingPairs.slice(0, 20).map(([t, r]) => `(${t}, ${r})`).join(", ");
    const more = missingPairs.length > 20 ? ` and ${missingPairs.length - 20} more` : "";
    super(`${message} (${received} rollout rows had arrived${missingPairs.length ? `; missing (task, rollout) ${shown}${more}` : ""})`);
    this.name = "RolloutStreamError";
  }
}

/** The pairs of a plan line that have not arrived. */
function notArrived(plan: PlanLine | undefined, seen: ReadonlySet<string>): Array<[number, number]> {
  const missing: Array<[number, number]> = [];
  const listed = new Set<string>();
  for (const [task, first, count] of plan?.pairs ?? []) {
    for (let r = first; r < first + count; r++) {
      const key = `${task}:${r}`;
      if (!seen.has(key) && !listed.has(key)) {
        listed.add(key);
        missing.push([task, r]);
      }
    }
  }
  return missing;
}

/** The stream completed, but some requested pairs have no rollout row. */
export class MissingRolloutsError extends Error {
  constructor(readonly summary: RolloutSummary) {
    const shown = summary.missing
      .slice(0, 10)
      .map((m) => `(${m._ng_task_index}, ${m._ng_rollout_index}) ${m.failure_class}`)
      .join(", ");
    const more = summary.missing.length > 10 ? ` and ${summary.missing.length - 10} more` : "";
    super(`${summary.missing.length} of ${summary.requested} requested rollouts are missing: ${shown}${more}`);
    this.name = "MissingRolloutsError";
  }

  get missing(): MissingRollout[] {
    return this.summary.missing;
  }
}

type Line =
  | { kind: "row"; row: RolloutRow }
  | { kind: "plan"; plan: PlanLine }
  | { kind: "summary"; summary: RolloutSummary }
  | { kind: "error"; error: StreamErrorLine };

function classify(text: string, received: number): Line {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RolloutStreamError(`the rollout stream has a line that is not JSON: ${truncate(text, 200)}`, received);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new RolloutStreamError(`the rollout stream has a line that is not an object: ${truncate(text, 200)}`, received);
  const object = value as Record<string, unknown>;
  // Rows always carry their pair; control lines never do (a dataset may have its own `type` field).
  if (typeof object._ng_task_index === "number") return { kind: "row", row: object as RolloutRow };
  if (object.type === "summary") return { kind: "summary", summary: object as unknown as RolloutSummary };
  if (object.type === "plan") return { kind: "plan", plan: object as unknown as PlanLine };
  if (object.type === "error") return { kind: "error", error: object as unknown as StreamErrorLine };
  throw new RolloutStreamError(`the rollout stream has an unknown line: ${truncate(text, 200)}`, received);
}

/**
 * Yields rollout rows as they finish. Ends normally only if the stream ended with a summary that
 * accounts for every requested pair; otherwise throws (after yielding every row that did arrive):
 * `MissingRolloutsError` when pairs are missing, `RolloutStreamError` when the stream broke.
 */
export async function* streamRollouts(serviceUrl: string, body: RolloutRequestBody, options: RolloutClientOptions = {}): AsyncGenerator<RolloutRow> {
  const url = serviceUrl.replace(/\/+$/, "").endsWith(ROLLOUTS_PATH) ? serviceUrl : joinUrl(serviceUrl, ROLLOUTS_PATH);
  const response = await httpRequest(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: NDJSON, ...options.headers },
    body: JSON.stringify({ ...body, plan: body.plan ?? true }),
    dispatcher: dispatcher(),
    signal: options.signal,
  });
  if (response.statusCode !== 200) throw new RolloutRequestError(response.statusCode, await response.body.text());
  const requestedHeader = response.headers[REQUESTED_HEADER];
  const requested = typeof requestedHeader === "string" ? Number(requestedHeader) : undefined;

  let received = 0;
  let summary: RolloutSummary | undefined;
  let error: StreamErrorLine | undefined;
  let plan: PlanLine | undefined;
  const seen = new Set<string>();
  const broken = (message: string) => new RolloutStreamError(message, received, notArrived(plan, seen));
  const decoder = new StringDecoder("utf8");
  let buffer = "";
  const handle = (text: string): RolloutRow | undefined => {
    if (!text.trim()) return undefined;
    if (summary && !error) {
      // After the summary only an error line may follow.
      const line = classify(text, received);
      if (line.kind !== "error") throw new RolloutStreamError("the rollout stream continued after its summary", received);
      error = line.error;
      return undefined;
    }
    const line = classify(text, received);
    if (line.kind === "plan") {
      if (plan || received > 0) throw broken("the rollout stream has a plan line that is not its first line");
      plan = line.plan;
    } else if (line.kind === "summary") summary = line.summary;
    else if (line.kind === "error") error = line.error;
    else {
      const pair = `${line.row._ng_task_index}:${line.row._ng_rollout_index}`;
      if (seen.has(pair)) throw broken(`the rollout stream repeated (task, rollout) ${pair}`);
      seen.add(pair);
      received++;
      return line.row;
    }
    return undefined;
  };

  try {
    for await (const chunk of response.body) {
      buffer += decoder.write(chunk as Buffer);
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const text = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const row = handle(text);
        if (row) yield row;
      }
    }
  } catch (cause) {
    if (cause instanceof RolloutStreamError || options.signal?.aborted) throw cause;
    throw broken(`the rollout stream broke: ${cause instanceof Error ? cause.message : String(cause)}`);
  } finally {
    // A consumer that stops early (break, throw) hangs up, which cancels the rest on the service.
    if (!response.body.destroyed) response.body.destroy();
  }
  buffer += decoder.end();
  const last = handle(buffer);
  if (last) yield last;

  if (!summary) {
    throw broken(error ? `the rollout service failed: ${error.message}` : "the rollout stream ended without a summary line (the service stopped or the connection was cut)");
  }
  if (plan && plan.requested !== summary.requested) throw broken(`the summary counts ${summary.requested} requested rollouts but the plan line ${plan.requested}`);
  if (summary.succeeded !== received) throw new RolloutStreamError(`the summary counts ${summary.succeeded} succeeded rollouts but the stream carried ${received}`, received);
  if (requested !== undefined && summary.requested !== requested) {
    throw new RolloutStreamError(`the summary counts ${summary.requested} requested rollouts but the service announced ${requested}`, received);
  }
  if (summary.succeeded + summary.missing.length !== summary.requested) {
    throw new RolloutStreamError(`the summary does not add up: ${summary.succeeded} succeeded + ${summary.missing.length} missing ≠ ${summary.requested} requested`, received);
  }
  options.onSummary?.(summary);
  if (summary.missing.length > 0) throw new MissingRolloutsError(summary);
  if (error) throw new RolloutStreamError(`the rollout service reported an error after a complete summary: ${error.message}`, received);
}

export interface RolloutResult {
  rows: RolloutRow[];
  summary: RolloutSummary;
}

/** Runs the request to the end and returns every row with the summary; throws as `streamRollouts` does. */
export async function runRollouts(serviceUrl: string, body: RolloutRequestBody, options: RolloutClientOptions = {}): Promise<RolloutResult> {
  const rows: RolloutRow[] = [];
  let summary: RolloutSummary | undefined;
  for await (const row of streamRollouts(serviceUrl, body, { ...options, onSummary: (s) => ((summary = s), options.onSummary?.(s)) })) rows.push(row);
  return { rows, summary: summary! };
}
