// The cohort: the N rollouts of one prompt that genrm_compare scores against each other (NeMo Gym
// 07d6b0d app.py `verify` with num_rollouts_per_prompt > 1). Each /verify call puts its rollout into
// the cohort's slot and waits; a pair is compared as soon as both its rollouts are in; when the
// cohort is full and every comparison is done, every waiting call gets its reward.
//
// Where Gymkit differs, and why:
// - Slot. NeMo Gym numbers a cohort's rollouts in arrival order. When the request carries its task and
//   rollout indices, Gymkit uses rollout index mod N (cohort = rollout index div N), so which pairs are
//   compared does not depend on timing, and a run re-scores identically from its recording. Without
//   indices, arrival order, as NeMo Gym.
// - Who asks. Comparison (i, j) is asked on behalf of slot i's rollout (rollout header of slot i, its
//   judge call ordinals in (judge pass, i, j) order, one call at a time per slot), and recorded in
//   that rollout's row (`genrm_evaluations`, when `record_comparisons` is on), so replaying a row's
//   recorded calls answers exactly the calls made for it.
// - Failure. A GenRM call that fails (transport, timeout, non-2xx, not a Response) is a JudgeFailure;
//   NeMo Gym scores such a pair with the default scores instead. Since every reward of the cohort is
//   relative to the others, the whole cohort is `judge_failed` (never a made-up score), and
//   `gym eval reverify --judge-failed-only` re-judges all of it together.
import type { JudgeClient, JudgeEvaluation } from "../../judge/index.js";
import type { ResponsesCreateParams } from "../../protocol/index.js";
import { aggregateRewards, comparisonPairs, type Adjustments, type Compared, type ComparisonStrategy } from "./aggregate.js";
import type { ConversationMessage } from "./conversation.js";
import { answerForGenRM, parseVerdict, type Verdict } from "./genrm_output.js";

export interface CohortSettings {
  size: number;
  strategy: ComparisonStrategy;
  judgesPerComparison: number;
  template: ResponsesCreateParams;
  /** The principle sent in metadata; undefined when use_principle is off. */
  principle: string | undefined;
  defaultScore: number;
  defaultRanking: number;
  parseRetries: number;
  parseRetrySleepMs: number;
  /** Gymkit's `strict`: the GenRM's last fenced verdict is read, not its first. */
  strictVerdict?: boolean;
  adjustments: Adjustments;
}

/** One recorded GenRM call: what was sent and received, and which comparison and attempt it was. */
export interface GenRMEvaluation extends JudgeEvaluation {
  response_i: number;
  response_j: number;
  judge_idx: number;
  attempt: number;
}

interface Comparison {
  i: number;
  j: number;
  judge: number;
  verdict?: Verdict;
}

interface Slot {
  response?: unknown;
  filled: Promise<void>;
  fill: () => void;
}

export class Cohort {
  private readonly slots: Slot[];
  private readonly comparisons: Comparison[];
  private readonly calls: GenRMEvaluation[][];
  private arrived = 0;
  private failure: unknown;
  private readonly chains: Array<Promise<void>>;
  private readonly outcome: Promise<number[]>;
  private settle!: { resolve: (rewards: number[]) => void; reject: (error: unknown) => void };

  /**
   * `clientOf(slot)` gives the judge client calls for that slot's comparisons go through (one per
   * slot, so its call ordinals follow that slot's comparisons in order).
   */
  constructor(
    private readonly settings: CohortSettings,
    private readonly conversation: readonly ConversationMessage[],
    clientOf: (slot: number) => JudgeClient,
  ) {
    const n = settings.size;
    this.slots = Array.from({ length: n }, () => {
      let fill!: () => void;
      const filled = new Promise<void>((resolve) => (fill = resolve));
      return { filled, fill };
    });
    this.calls = Array.from({ length: n }, () => []);
    const pairs = comparisonPairs(settings.strategy, n);
    const comparisons: Comparison[] = [];
    for (let judge = 0; judge < settings.judgesPerComparison; judge++) for (const [i, j] of pairs) comparisons.push({ i, j, judge });
    // NeMo Gym sums the verdicts in (judge pass, i, j) order.
    comparisons.sort((a, b) => a.judge - b.judge || a.i - b.i || a.j - b.j);
    this.comparisons = comparisons;
    this.outcome = new Promise<number[]>((resolve, reject) => (this.settle = { resolve, reject }));
    this.outcome.catch(() => {});
    this.chains = this.slots.map((_, slot) => this.runChain(slot, clientOf));
  }

  get full(): boolean {
    return this.arrived === this.settings.size;
  }

  /** Puts a rollout's response into its slot; returns its reward once the whole cohort is scored. */
  async enter(slot: number, response: unknown): Promise<{ reward: number; calls: GenRMEvaluation[] }> {
    const place = this.slots[slot]!;
    if (place.response !== undefined) throw new Error(`genrm_compare: slot ${slot} of this cohort was already verified; a cohort takes each rollout once`);
    place.response = response;
    this.arrived++;
    place.fill();
    if (this.full) void this.finish();
    const rewards = await this.outcome;
    return { reward: rewards[slot]!, calls: this.calls[slot]! };
  }

  /** The next free slot in arrival order (for requests without rollout indices). */
  nextSlot(): number {
    return this.arrived;
  }

  private async finish(): Promise<void> {
    await Promise.allSettled(this.chains);
    if (this.failure !== undefined) {
      this.settle.reject(this.failure);
      return;
    }
    try {
      const compared: Compared[] = this.comparisons.map(({ i, j, judge, verdict }) => ({ i, j, judge, verdict: verdict! }));
      this.settle.resolve(aggregateRewards(compared, this.slots.map((s) => s.response), this.settings.adjustments));
    } catch (error) {
      this.settle.reject(error);
    }
  }

  /** Slot `owner`'s comparisons, one after another, each once both its responses are in. */
  private async runChain(owner: number, clientOf: (slot: number) => JudgeClient): Promise<void> {
    const owned = this.comparisons.filter((c) => c.i === owner);
    if (owned.length === 0) return;
    try {
      const client = clientOf(owner);
      for (const comparison of owned) {
        await Promise.all([this.slots[comparison.i]!.filled, this.slots[comparison.j]!.filled]);
        if (this.failure !== undefined) return;
        comparison.verdict = await this.compare(client, comparison);
      }
    } catch (error) {
      this.failure ??= error;
    }
  }

  /** One comparison: ask the GenRM, re-asking (after a pause) while its reply has no verdict; then the defaults. */
  private async compare(client: JudgeClient, comparison: Comparison): Promise<Verdict> {
    const s = this.settings;
    const metadata: Record<string, string> = {
      response_1: answerForGenRM(this.slots[comparison.i]!.response),
      response_2: answerForGenRM(this.slots[comparison.j]!.response),
    };
    if (s.principle !== undefined) metadata.principle = s.principle;
    const params: ResponsesCreateParams = {
      ...structuredClone(s.template),
      input: this.conversation.map(({ role, content }) => ({ content, role, type: "message" })) as ResponsesCreateParams["input"],
      metadata,
    };
    const attempts = Math.max(1, s.parseRetries + 1);
    for (let attempt = 0; attempt < attempts; attempt++) {
      const call = await client.responses(params);
      this.calls[comparison.i]!.push({
        responses_create_params: call.responses_create_params,
        response: call.response,
        response_i: comparison.i,
        response_j: comparison.j,
        judge_idx: comparison.judge,
        attempt,
      });
      const verdict = parseVerdict(answerForGenRM(call.response), s.defaultScore, s.defaultRanking, s.strictVerdict);
      if (verdict) return verdict;
      if (attempt < attempts - 1 && s.parseRetrySleepMs > 0) await new Promise((resolve) => setTimeout(resolve, s.parseRetrySleepMs));
    }
    return [s.defaultScore, s.defaultScore, s.defaultRanking];
  }
}
