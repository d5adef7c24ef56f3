// The judge model client of one verification. Judges are model servers named by reference in the
// environment's config (`judge_model_server`, `genrm_model_server`, ...), so they run behind the same
// adapters, replicas and retries as the policy. Every call carries the rollout header (the verify
// request's task and rollout indices) and its ordinal within this verification, so that record and
// replay key judge answers exactly as they key the policy's, whatever order concurrent calls land in.
import { callJson, CallError, joinUrl, type RetryPolicy } from "../http/client.js";
import { adaptiveLimit, isOverloadStatus, type SampleKind } from "../http/adaptive_limit.js";
import { JUDGE_CALL_HEADER, ResponseObject, ROLLOUT_HEADER, rolloutHeaderOfRow, type ResponsesCreateParams, type ServerRef } from "../protocol/index.js";
import { JudgeFailure } from "./failure.js";
import type { Limiter } from "./limiter.js";
import { chatJudgeText, finalJudgeText } from "./text.js";

/** Judge calls retry transient failures briefly; past that the rollout is a `judge_failed` failure. */
export const JUDGE_RETRY: RetryPolicy = { attempts: 3, initialDelayMs: 250, maxDelayMs: 2_000 };

/**
 * What a judge call tries again, whatever attempts and backoff the environment configured: the
 * statuses NeMo Gym 07d6b0d's judge retry takes as transient (conversational_tool_use_simulation's
 * `_is_retryable_judge_provider_error`: 408, 409, 425, 429 and every 5xx), connection errors, and an
 * attempt past its deadline (NeMo Gym retries a judge's timeout too).
 */
export function isJudgeRetryStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

function judgeRetry(policy: RetryPolicy): RetryPolicy {
  return { retryStatus: isJudgeRetryStatus, retryTimeouts: true, ...policy };
}

/** One Responses judge call as NeMo Gym records it in `judge_evaluations`: what was sent and what came back. */
export interface JudgeEvaluation {
  responses_create_params: ResponsesCreateParams;
  response: ResponseObject;
}

/** One Chat Completions judge call: the request body, the reply, and the reply's text. */
export interface ChatJudgeCall {
  request: Record<string, unknown>;
  completion: Record<string, unknown>;
  text: string | undefined;
}

export interface JudgeClientOptions {
  /** Deadline of one attempt, in seconds. Default 600 (NeMo Gym's client has none shorter). */
  timeoutSeconds?: number;
  retry?: RetryPolicy;
  /** Bounds this instance's judge calls in flight (NeMo Gym's `judge_endpoint_max_concurrency`). */
  limiter?: Limiter;
  signal?: AbortSignal;
}

/** What a verify handler's context offers that the client needs: the URL of a referenced server. */
interface UrlResolver {
  urlOf(ref: ServerRef | string): string;
}

export class JudgeClient {
  private calls = 0;
  private readonly retry: RetryPolicy;

  constructor(
    private readonly baseUrl: string,
    private readonly rollout: string | undefined,
    private readonly options: JudgeClientOptions = {},
  ) {
    this.retry = judgeRetry(options.retry ?? JUDGE_RETRY);
  }

  /** A client for the judge `ref` names, for the verification of `request`. */
  static for(ctx: UrlResolver, ref: ServerRef | string, request: Record<string, unknown>, options: JudgeClientOptions = {}): JudgeClient {
    let url: string;
    try {
      url = ctx.urlOf(ref);
    } catch (error) {
      // A judge that is not defined (e.g. `gym eval reverify` without it) fails the rollout's judging, visibly.
      throw new JudgeFailure("ConfigError", (error as Error).message);
    }
    return new JudgeClient(url, rolloutHeaderOfRow(request), options);
  }

  /** POSTs a Responses request to the judge; returns what was sent and the Response, or throws JudgeFailure. */
  async responses(params: ResponsesCreateParams): Promise<JudgeEvaluation & { text: string | undefined }> {
    const body = await this.post("/v1/responses", params);
    const parsed = ResponseObject.safeParse(body);
    if (!parsed.success) {
      throw new JudgeFailure("ValidationError", `the judge's reply is not a Response: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    }
    return { responses_create_params: params, response: parsed.data, text: finalJudgeText(parsed.data) };
  }

  /** POSTs a Chat Completions request to the judge; returns the reply and its first choice's text. */
  async chat(request: Record<string, unknown>): Promise<ChatJudgeCall> {
    const body = await this.post("/v1/chat/completions", request);
    const choices = body !== null && typeof body === "object" ? (body as Record<string, unknown>).choices : undefined;
    if (!Array.isArray(choices)) throw new JudgeFailure("ValidationError", "the judge's reply is not a Chat Completion (no `choices` list)");
    // As NeMo Gym's ChatCompletion model validates it: every choice carries a message object.
    const bad = choices.findIndex((c) => c === null || typeof c !== "object" || typeof (c as Record<string, unknown>).message !== "object" || (c as Record<string, unknown>).message === null);
    if (bad >= 0) throw new JudgeFailure("ValidationError", `the judge's reply is not a Chat Completion (choices.${bad} has no \`message\` object)`);
    const completion = body as Record<string, unknown>;
    return { request, completion, text: chatJudgeText(completion) };
  }

  private async post(path: string, body: unknown): Promise<unknown> {
    // The ordinal is taken when the call is made, not when it lands: calls started together keep
    // the order the environment started them in.
    const ordinal = this.calls++;
    const headers: Record<string, string> = { [JUDGE_CALL_HEADER]: String(ordinal) };
    if (this.rollout) headers[ROLLOUT_HEADER] = this.rollout;
    const send = () =>
      callJson(joinUrl(this.baseUrl, path), {
        body,
        headers,
        timeoutMs: (this.options.timeoutSeconds ?? 600) * 1000,
        retry: this.retry,
        signal: this.options.signal,
      });
    // `--concurrency auto`: inside the configured limiter (a hard cap), one adaptive gate for the
    // judge calls of this process, fed their latency and overload (429, 503, 504, a timeout).
    const gate = adaptiveLimit("judge", "judge");
    const gated = gate ? () => gate.run(send, judgeSample) : send;
    try {
      return await (this.options.limiter ? this.options.limiter.run(gated) : gated());
    } catch (error) {
      throw asJudgeFailure(error);
    }
  }
}

/** What a judge call says of the judge's load, for the adaptive gate. */
function judgeSample(outcome: { ok: true } | { ok: false; error: unknown }): SampleKind {
  if (outcome.ok) return "ok";
  const error = outcome.error;
  if (error instanceof CallError && (error.kind === "timeout" || isOverloadStatus(error.status))) return "overload";
  return "other";
}

/** A failed call as NeMo Gym names it: `<ExcType>: <message>`. */
function asJudgeFailure(error: unknown): JudgeFailure {
  if (error instanceof JudgeFailure) return error;
  if (error instanceof CallError) {
    const badBody = error.kind === "status" && error.status !== undefined && error.status >= 200 && error.status < 300;
    const type = error.kind === "timeout" ? "TimeoutError" : error.kind === "connection" ? "ConnectionError" : badBody ? "JSONDecodeError" : "HTTPStatusError";
    return new JudgeFailure(type, error.message);
  }
  return new JudgeFailure(error instanceof Error ? error.name : "Error", String(error instanceof Error ? error.message : error));
}
