// LLM-as-judge calls, as NeMo Gym's judges make them: a Responses request (a config template with
// its `input` replaced) POSTed to a model server's `/v1/responses`, and a verdict label read from the
// judge's final text. Any environment may use it; math_with_judge does (equivalence, order swapped).
//
// Failure semantics (NeMo Gym's `judge_failed`): a call that does not produce a Response — transport
// error, timeout, non-2xx status, a body that is not JSON or not a Response object — throws
// JudgeFailure, which the environment reports as a failure, never as a zero reward. A Response that
// arrives but carries no usable label is a verdict ("not equal"), not a failure.
import { callJson, CallError, DEFAULT_RETRY, joinUrl, type RetryPolicy } from "../http/client.js";
import { ResponseObject, type ResponsesCreateParams } from "../protocol/index.js";

export class JudgeFailure extends Error {
  /** Exception type name, as NeMo Gym's `_ng_failure_judge_error` starts with it. */
  readonly errorType: string;

  constructor(errorType: string, message: string) {
    super(message);
    this.name = "JudgeFailure";
    this.errorType = errorType;
  }

  /** `"<ExcType>: <msg>"`, the text NeMo Gym reports. */
  describe(): string {
    return `${this.errorType}: ${this.message}`;
  }
}

export interface JudgeCallOptions {
  /** Base URL of the judge model server (`http://host:port`). */
  baseUrl: string;
  timeoutMs?: number;
  retry?: RetryPolicy;
  signal?: AbortSignal;
}

/** One judge call as recorded in `judge_evaluations`: what was sent and what came back. */
export interface JudgeEvaluation {
  responses_create_params: ResponsesCreateParams;
  response: ResponseObject;
}

/** The template (deep-copied) with its `input` replaced by a system and a user message. */
export function judgeRequest(template: ResponsesCreateParams, system: string, user: string): ResponsesCreateParams {
  const params = structuredClone(template);
  params.input = [
    { type: "message", role: "system", content: system },
    { type: "message", role: "user", content: user },
  ];
  return params;
}

/** POSTs the request to `/v1/responses`; returns the Response or throws JudgeFailure. */
export async function callJudge(params: ResponsesCreateParams, options: JudgeCallOptions): Promise<JudgeEvaluation> {
  let body: unknown;
  try {
    body = await callJson(joinUrl(options.baseUrl, "/v1/responses"), {
      body: params,
      timeoutMs: options.timeoutMs,
      retry: options.retry ?? DEFAULT_RETRY,
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof CallError) {
      const badBody = error.kind === "status" && error.status !== undefined && error.status >= 200 && error.status < 300;
      const type = error.kind === "timeout" ? "TimeoutError" : error.kind === "connection" ? "ConnectionError" : badBody ? "JSONDecodeError" : "HTTPStatusError";
      throw new JudgeFailure(type, error.message);
    }
    throw new JudgeFailure(error instanceof Error ? error.name : "Error", String(error instanceof Error ? error.message : error));
  }
  const parsed = ResponseObject.safeParse(body);
  if (!parsed.success) {
    throw new JudgeFailure("ValidationError", `the judge's reply is not a Response: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  }
  return { responses_create_params: params, response: parsed.data };
}

/**
 * The judge's verdict text: the last output item must be a message whose last content part is
 * output_text (as NeMo Gym reads it); anything else has no text.
 */
export function finalJudgeText(response: ResponseObject): string | undefined {
  const last = response.output[response.output.length - 1] as Record<string, unknown> | undefined;
  if (!last || last.type !== "message" || !Array.isArray(last.content)) return undefined;
  const part = last.content[last.content.length - 1] as Record<string, unknown> | undefined;
  return part?.type === "output_text" && typeof part.text === "string" ? part.text : undefined;
}

/**
 * Which of two labels the text gives, the first occurrence winning: `positive` only if it occurs
 * and `negative` does not occur before it. No text or no label → false.
 */
export function firstLabelIs(text: string | undefined, positive: string, negative: string): boolean {
  if (text === undefined) return false;
  const yes = text.indexOf(positive);
  if (yes < 0) return false;
  const no = text.indexOf(negative);
  return no < 0 || yes < no;
}
