// The types an environment is written against: its definition (what `defineEnvironment` takes), the
// context every handler receives, and the implementation it returns. Kept apart from define.ts and
// server.ts so both can import them without importing each other.
import type { z } from "zod";
import type { ServerImplementation } from "../http/implementation.js";
import type { AggregateMetricsScope, AggregateResult } from "../metrics/aggregate.js";
import type { ResponseObject, ServerRef, VerifyRequest } from "../protocol/index.js";
import type { FunctionToolSpec } from "./tool_schema.js";

/** One running instance of an environment, as `setup` sees it. */
export interface EnvironmentInstance<C> {
  /** Instance name (the top-level config key), e.g. `example_multi_step`. */
  name: string;
  /** The instance's config fields, validated by `configSchema`. */
  config: C;
  /** Base URL of another instance the config refers to (e.g. a judge model server). */
  urlOf(ref: ServerRef | string): string;
}

/** What every handler of an environment receives besides its input. */
export interface EnvironmentContext<C, S, R = undefined> extends EnvironmentInstance<C> {
  /** This rollout's session id (from the session cookie the agent round-trips). */
  sessionId: string;
  /** Per-rollout state of this environment instance, keyed by session id. */
  sessions: Map<string, S>;
  /** What `setup` made for this instance (worker pools, clients, …); undefined without `setup`. */
  resources: R;
}

export interface ToolDefinition<A extends z.ZodObject, C, S, R = undefined> {
  /** Shown to the model in the tool's JSON schema. */
  description: string;
  /** Arguments. Missing required keys → 422; unknown keys are dropped, as NeMo Gym does. */
  args: A;
  /** Returns the tool result; it is sent to the agent as JSON. */
  handler(args: z.output<A>, ctx: EnvironmentContext<C, S, R>): unknown;
}

/**
 * `verify` returns the reward and the environment's own fields (NeMo Gym's verify response model:
 * declare every field, optional ones as null). The reply is `responses_create_params`, `response`,
 * `reward`, the row fields named by `verifyEchoes`, then these.
 */
export type VerifyResult = { reward: number } & Record<string, unknown>;

/** What `reset` returns (NeMo Gym's EnvResetResponse): the first observation (a user message), and info. */
export interface ResetResult {
  observation?: string | null;
  info?: Record<string, unknown>;
}

/**
 * What `step` returns (NeMo Gym's EnvStepResponse): the next observation (a user message; none ends
 * nothing by itself), this step's reward, whether the episode ended (terminated) or was cut
 * (truncated), and info. `info.tool_outputs` (`[{call_id, output}]`) answers the model's tool calls.
 */
export interface StepResult {
  observation?: string | null;
  reward?: number;
  terminated?: boolean;
  truncated?: boolean;
  info?: Record<string, unknown>;
}

/** The validated `/verify` body: the row (unknown fields kept), `response`, and the declared fields. */
export type VerifyInput<F extends z.ZodRawShape> = VerifyRequest & z.output<z.ZodObject<F>>;

/** The validated `/seed_session` body: the whole row, with the declared seed fields typed. */
export type SeedInput<G extends z.ZodRawShape> = Record<string, unknown> & z.output<z.ZodObject<G>>;

export interface MetricsContext<C> {
  name: string;
  config: C;
  /** The default aggregation (mean/max/min/median/std of every numeric field), to extend or replace. */
  defaults(verifyResponses: Array<Record<string, unknown>>): AggregateResult;
}

export interface EnvironmentDefinition<
  C,
  S,
  F extends z.ZodRawShape,
  G extends z.ZodRawShape,
  T extends Record<string, z.ZodObject>,
  R = undefined,
> {
  /** Implementation id as written in config YAML (`resources_servers: {<id>: {...}}`). */
  id: string;
  description: string;
  /** The instance's own config fields. Default: none (a strict empty object). */
  configSchema?: z.ZodType<C>;
  /** The shape of one session's state. Only types `ctx.sessions`; never checked at run time. */
  state?: z.ZodType<S>;
  /**
   * Row fields `/verify` reads, as NeMo Gym's verify request model declares them: required ones
   * are enforced there (422), defaults are filled in and echoed. Undeclared row fields are echoed too.
   */
  rowFields?: F;
  /** Row fields `/seed_session` reads (NeMo Gym's seed request model); enforced only on that route. */
  seedFields?: G;
  /**
   * Makes what one instance needs for its whole life (a worker pool, a client, a cache), once, when
   * the instance starts; every handler gets it as `ctx.resources`. Two instances never share it.
   */
  setup?(instance: EnvironmentInstance<C>): R | Promise<R>;
  /** Releases what `setup` made, when the instance's server closes. */
  teardown?(resources: R): void | Promise<void>;
  tools?: { [K in keyof T]: ToolDefinition<T[K], C, S, R> };
  /**
   * Answers a POST to any tool name not in `tools` (NeMo Gym servers that add a catch-all
   * `/{tool_name}` route, such as citation_if's): a string is sent as plain text, anything else as
   * JSON (conversational_tool_use_simulation's session routes and simulated tools). Without it such
   * a call is a 404.
   */
  toolFallback?(name: string, body: unknown, ctx: EnvironmentContext<C, S, R>): unknown;
  /**
   * Sessions one instance keeps; beyond it the least recently used is forgotten (a finished
   * rollout's). Default 100,000: far above any concurrency, bounded over a run of millions.
   */
  sessionCapacity?: number;
  /**
   * Also serve the tools over MCP at `/mcp`, as NeMo Gym's `expose_tools_over_mcp: true` does
   * (`/seed_session` replies then carry the `mcp` entry with the session token). Default false.
   */
  exposeToolsOverMcp?: boolean;
  /** Prepares this session's state from the row. Returns the reply body (default `{}`). */
  seedSession?(row: SeedInput<G>, ctx: EnvironmentContext<C, S, R>): unknown;
  /**
   * Row fields the verify response carries back, as NeMo Gym's verify response model declares them:
   * a list of names, or "all" for a model that allows extra fields (`extra="allow"`). Default none:
   * NeMo Gym's base verify response keeps only the request, the response and the reward.
   */
  verifyEchoes?: readonly string[] | "all";
  /** Scores a finished rollout. Every environment has `verify`, or, stepped by gymnasium_agent, `step`. */
  verify?(request: VerifyInput<F>, ctx: EnvironmentContext<C, S, R>): VerifyResult | Promise<VerifyResult>;
  /**
   * Gymnasium-style environments (NeMo Gym's GymnasiumServer, played by gymnasium_agent): `reset`
   * starts an episode from the row's fields (the row minus `responses_create_params`), `step` takes
   * each model response and returns observation, reward, terminated, truncated and info. The episode's
   * state lives in `ctx.sessions` and is dropped once the episode ends (at `/close` instead for an
   * environment with `close`). Such an environment has no `/verify`, `/seed_session` or tool routes:
   * the agent sums the step rewards.
   */
  reset?(metadata: Record<string, unknown>, ctx: EnvironmentContext<C, S, R>): ResetResult | undefined | Promise<ResetResult | undefined>;
  step?(action: ResponseObject, metadata: Record<string, unknown>, ctx: EnvironmentContext<C, S, R>): StepResult | Promise<StepResult>;
  /**
   * Optional explicit release of an episode (a Gymnasium-style environment holding a slot, a process,
   * a simulator). Given it, the environment serves `POST /close` and `reset` answers
   * `info.supports_explicit_close: true` (unless `reset` set that key itself), so gymnasium_agent
   * calls `/close` once after the episode — whether it ended well or failed — as NeMo Gym's agent does
   * for environments that declare it. The session's state then lives until `/close` (not dropped when
   * a step ends the episode) and is dropped after `close` runs; returns the reply body (default `{}`). A throw is the close failing: the agent keeps the episode's result and
   * reports `info.cleanup_warning`.
   */
  close?(ctx: EnvironmentContext<C, S, R>): unknown;
  /** `GET /reverify_mode`: "stateless" when `/verify` needs no session (it can be re-run later). */
  reverifyMode?: "stateless" | "unknown";
  /**
   * `GET /aggregate_metrics_scope`: "whole_run" when `aggregateMetrics` must see every rollout of a
   * run in one call (a statistic over all tasks at once, such as a fitted rating or a bootstrap, that
   * no merge of per-chunk results reproduces); the collector then sends the whole run in one call
   * instead of chunks of tasks. Default "chunked": the metrics are means over tasks that merge
   * exactly given `metric_weights` (see metrics/chunk_merge.ts).
   */
  aggregateMetricsScope?: AggregateMetricsScope;
  /** Replaces the default `/aggregate_metrics`; `ctx.defaults` gives the default result to build on. */
  aggregateMetrics?(
    verifyResponses: Array<Record<string, unknown>>,
    ctx: MetricsContext<C>,
  ): AggregateResult | Promise<AggregateResult>;
}

/** A resources-server implementation that also exposes its definition (for tooling and docs). */
export interface EnvironmentImplementation<C> extends ServerImplementation<C> {
  type: "resources_servers";
  description: string;
  /** The tools as Responses-API function tools, schemas derived from zod. */
  toolSpecs(): FunctionToolSpec[];
}
