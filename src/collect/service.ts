// The rollout service: `POST /v1/rollouts` takes rows and streams back one NDJSON line per finished
// rollout, in completion order, then a summary that accounts for every requested pair (see
// protocol/rollout_service.ts). It is `gym eval run` without files: the same materialiser, the same scheduler
// (bounded admission, deadlines, failure classes) and the same agent calls, for trainers that call the
// environment side thousands of times per step. The head server mounts it; `gym serve` runs it alone.
import type { FastifyInstance, FastifyReply } from "fastify";
import type { ServerResponse } from "node:http";
import { truncate, type RetryPolicy } from "../http/client.js";
import { HttpError, parseOr422 } from "../http/errors.js";
import { abortOnHangUp } from "../http/reply.js";
import { rolloutBodyLimit } from "../http/server.js";
import { flattenRollout, NoTokensError } from "../tokens/export.js";
import { NonContiguousError } from "../tokens/prefix.js";
import { formatPairs } from "./accounting.js";
import { agentRunner, DEFAULT_ROLLOUT_TIMEOUT_S } from "./collect.js";
import { runScheduler, type Outcome, type WorkItem } from "./scheduler.js";
import { pairKey, pairOf } from "./lines.js";
import { planRollouts, RolloutRequest, type RolloutPlan } from "./service_request.js";
import {
  NDJSON,
  REQUESTED_HEADER,
  ROLLOUTS_PATH,
  TOKENS_FAILURE_CLASS,
  type MissingRollout,
  type PlanLine,
  type RolloutSummary,
  type ServiceStats,
  type StreamErrorLine,
} from "../protocol/rollout_service.js";

export interface RolloutServiceOptions {
  /** Agent instance name → base URL, read per request (a head's instances can change). */
  agents: () => ReadonlyMap<string, string> | Promise<ReadonlyMap<string, string>>;
  /** Rollouts in flight per request when the request does not say. */
  defaultConcurrency?: number;
  /**
   * `gym serve --concurrency auto`: how many rollouts may be in flight now (src/collect/auto_admission.ts),
   * for requests that do not say; `defaultConcurrency` is then the ceiling.
   */
  admit?: (inFlight: number) => number;
  /** Retries of each agent `/run` call (connection errors, 429, 5xx); default as `gym eval run`. */
  retry?: RetryPolicy;
}

const MISSING_ERROR_CHARS = 500;

/** Resolves when `res` can take more, or is gone. */
function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

export function mountRolloutService(app: FastifyInstance, options: RolloutServiceOptions): void {
  const stats: ServiceStats = {
    active_requests: 0,
    in_flight: 0,
    requests: { completed: 0, incomplete: 0, cancelled: 0, failed: 0 },
    rollouts: { succeeded: 0, failed: 0, cancelled: 0 },
  };

  app.get(ROLLOUTS_PATH, async () => stats);

  // A trainer's batch of rows (with their prompts) is one request.
  app.post(ROLLOUTS_PATH, { bodyLimit: rolloutBodyLimit(), config: { streams: true } }, async (request, reply) => {
    const body = parseOr422(RolloutRequest, request.body);
    const agentUrls = await options.agents();
    if (agentUrls.size === 0) throw new HttpError(503, "no agent is running: start servers whose config defines a responses_api_agents instance");
    const plan = planRollouts(body, new Set(agentUrls.keys()));
    const planLine: PlanLine | undefined = body.plan ? { type: "plan", requested: plan.requested, format: body.format ?? "raw", pairs: await plan.pairs() } : undefined;
    await stream(reply, body, plan, agentUrls, planLine);
  });

  async function stream(reply: FastifyReply, body: RolloutRequest, plan: RolloutPlan, agentUrls: ReadonlyMap<string, string>, planLine: PlanLine | undefined): Promise<void> {
    const started = Date.now();
    const res = reply.raw;
    reply.hijack();
    res.writeHead(200, { "content-type": NDJSON, "cache-control": "no-store", [REQUESTED_HEADER]: String(plan.requested) });
    res.flushHeaders();
    const gone = abortOnHangUp(res, "the client closed the rollout stream");
    const write = (line: string) => {
      if (!res.destroyed) res.write(line);
    };
    const format = body.format ?? "raw";
    if (planLine) write(`${JSON.stringify(planLine)}\n`);

    stats.active_requests++;
    const succeeded = new Set<number>();
    const failures = new Map<number, MissingRollout>();
    const rewards = new Map<string, { sum: number; n: number }>();
    const run = agentRunner(agentUrls, { retry: options.retry });

    async function* admitted(): AsyncGenerator<WorkItem> {
      for await (const item of plan.items()) {
        // Backpressure: a client that reads slowly slows admission instead of growing a buffer here.
        if (res.writableNeedDrain && !gone.aborted) await drained(res, gone);
        if (gone.aborted) return;
        yield item;
      }
    }

    const onOutcome = (outcome: Outcome) => {
      const key = pairKey(outcome.item.task, outcome.item.rollout);
      if (outcome.ok && format === "tokens") {
        const tokens = tokenLine(outcome.line);
        if (typeof tokens !== "string") {
          // Finished, but no trainer can use it: a counted failure naming why, never a silent drop.
          stats.rollouts.failed++;
          failures.set(key, {
            _ng_task_index: outcome.item.task,
            _ng_rollout_index: outcome.item.rollout,
            agent_ref: outcome.item.row.agent_ref,
            failure_class: TOKENS_FAILURE_CLASS,
            error: truncate(tokens.message, MISSING_ERROR_CHARS),
            ...(tokens.position === undefined ? {} : { first_difference: tokens.position }),
          });
          return;
        }
        outcome = { ...outcome, line: tokens };
      }
      if (outcome.ok) {
        succeeded.add(key);
        stats.rollouts.succeeded++;
        const r = rewards.get(outcome.item.agent) ?? { sum: 0, n: 0 };
        r.sum += outcome.reward;
        r.n++;
        rewards.set(outcome.item.agent, r);
        write(outcome.line);
      } else if (gone.aborted) {
        // Stopped because the client hung up: not a failure of the rollout, and nobody will read why.
        stats.rollouts.cancelled++;
      } else {
        stats.rollouts.failed++;
        failures.set(key, {
          _ng_task_index: outcome.item.task,
          _ng_rollout_index: outcome.item.rollout,
          agent_ref: outcome.item.row.agent_ref,
          failure_class: outcome.failure.failureClass,
          error: truncate(outcome.failure.message, MISSING_ERROR_CHARS),
        });
      }
    };

    try {
      await runScheduler({
        items: admitted(),
        execute: async (item, signal) => {
          stats.in_flight++;
          try {
            // The client hanging up aborts every rollout in flight, all the way down to the engine.
            return await run(item, AbortSignal.any([signal, gone]));
          } finally {
            stats.in_flight--;
          }
        },
        concurrency: body.concurrency ?? options.defaultConcurrency ?? 16,
        ...(body.concurrency === undefined && options.admit ? { admit: options.admit } : {}),
        total: plan.requested,
        deadlineMs: rolloutDeadlineMs(body.rollout_timeout_s),
        onOutcome,
      });
      if (gone.aborted) {
        stats.requests.cancelled++;
        return;
      }
      const summary = summarize(plan, succeeded, failures, rewards, started);
      write(`${JSON.stringify(summary)}\n`);
      if (summary.missing.length > 0) {
        stats.requests.incomplete++;
        const pairs = { count: summary.missing.length, first: summary.missing.slice(0, 20).map((m): [number, number] => [m._ng_task_index, m._ng_rollout_index]) };
        const line: StreamErrorLine = {
          type: "error",
          code: "rollouts_missing",
          message: `${summary.missing.length} of ${summary.requested} requested rollouts are missing: (task, rollout) ${formatPairs(pairs)}`,
        };
        write(`${JSON.stringify(line)}\n`);
      } else {
        stats.requests.completed++;
      }
    } catch (error) {
      stats.requests.failed++;
      // No summary: the client must treat this stream as failed, whatever it received so far.
      const line: StreamErrorLine = { type: "error", code: "internal_error", message: error instanceof Error ? error.message : String(error) };
      write(`${JSON.stringify(line)}\n`);
    } finally {
      stats.active_requests--;
      if (!res.destroyed) res.end();
    }
  }
}

/** A raw rollout line as its token export line (what `gym eval export --format tokens` writes), or why it has none. */
function tokenLine(line: string): string | { message: string; position?: number } {
  try {
    return `${JSON.stringify(flattenRollout(JSON.parse(line) as Record<string, unknown>))}\n`;
  } catch (error) {
    if (error instanceof NonContiguousError) return { message: error.message, position: error.position };
    if (error instanceof NoTokensError) return { message: error.message };
    throw error;
  }
}

function summarize(
  plan: RolloutPlan,
  succeeded: ReadonlySet<number>,
  failures: ReadonlyMap<number, MissingRollout>,
  rewards: ReadonlyMap<string, { sum: number; n: number }>,
  started: number,
): RolloutSummary {
  const missing: MissingRollout[] = [];
  const classes: Record<string, number> = {};
  for (const key of plan.keys) {
    if (succeeded.has(key)) continue;
    const failure = failures.get(key);
    if (failure) {
      classes[failure.failure_class] = (classes[failure.failure_class] ?? 0) + 1;
      missing.push(failure);
    } else {
      // Cannot happen while the scheduler runs every item; named anyway rather than silently dropped.
      const [task, rollout] = pairOf(key);
      missing.push({ _ng_task_index: task, _ng_rollout_index: rollout, failure_class: "not_run", error: "the rollout never ran" });
    }
  }
  return {
    type: "summary",
    requested: plan.requested,
    succeeded: succeeded.size,
    failed: failures.size,
    missing,
    failure_classes: classes,
    mean_reward: Object.fromEntries([...rewards].map(([agent, r]) => [agent, r.n ? r.sum / r.n : 0])),
    warnings: plan.warnings,
    elapsed_s: (Date.now() - started) / 1000,
  };
}

/** A request's `rollout_timeout_s`: absent = the default deadline (a stuck rollout must not hold its slot for ever), 0 = none. */
export function rolloutDeadlineMs(seconds: number | undefined): number | undefined {
  if (seconds === undefined) return DEFAULT_ROLLOUT_TIMEOUT_S * 1000;
  return seconds === 0 ? undefined : seconds * 1000;
}
