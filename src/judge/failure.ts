// What a failed judge call is (NeMo Gym's JudgeError, 07d6b0d nemo_gym/judge.py): a distinct outcome,
// never a wrong answer. A call that produced no reply to read — transport error, timeout, non-2xx,
// a body that is not JSON or not the expected object — throws JudgeFailure; `withJudgeFailsafe`
// turns it into the `judge_failed` row the collector routes to `<output>_failures.jsonl`, from where
// `gym eval reverify --judge-failed-only` re-judges it without re-running the policy. Every
// environment's `/verify` route applies it (environment_kit/server.ts), so authors only throw. A reply that
// arrived but carries no usable label is the environment's call (usually a verdict, not a failure).

/** A verify result (environment_kit/types.ts VerifyResult, restated to keep this module below the kit). */
type VerifyResult = { reward: number } & Record<string, unknown>;

export class JudgeFailure extends Error {
  /** Exception type name, as NeMo Gym's `_ng_failure_judge_error` starts with it. */
  readonly errorType: string;

  constructor(errorType: string, message: string) {
    super(message);
    this.name = "JudgeFailure";
    this.errorType = errorType;
  }

  /**
   * The text NeMo Gym reports: `"<ExcType>: <msg>"` for a failed call (its `reraise_judge_errors`
   * wraps the exception so), the bare message for a JudgeError a server raises itself (e.g.
   * simpleqa's "empty judge response": `str(JudgeError(msg))` is `msg`).
   */
  describe(): string {
    return this.errorType === "JudgeError" ? this.message : `${this.errorType}: ${this.message}`;
  }
}

/** The verify result of a rollout whose judge could not be asked: routed to failures, not scored. */
export function judgeFailedResult(error: JudgeFailure): VerifyResult {
  return { reward: 0.0, _ng_failure_class: "judge_failed", _ng_failure_judge_error: error.describe() };
}

/**
 * Wraps a verify function so that a JudgeFailure thrown anywhere inside it becomes a `judge_failed`
 * result. Only JudgeFailure: an ordinary bug in prompt assembly or scoring stays a 500, not a
 * misfiled judge failure.
 */
export function withJudgeFailsafe<A extends unknown[]>(verify: (...args: A) => VerifyResult | Promise<VerifyResult>): (...args: A) => Promise<VerifyResult> {
  return async (...args: A) => {
    try {
      return await verify(...args);
    } catch (error) {
      if (error instanceof JudgeFailure) return judgeFailedResult(error);
      throw error;
    }
  };
}
