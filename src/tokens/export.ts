// Rollouts → what an RL trainer consumes: one token sequence per rollout with a loss mask.
// `prompt_ids` is the first model call's prompt; `response_ids` is everything after it — sampled
// tokens (mask 1, their logprobs) interleaved with the tokens the environment and chat template
// added between calls (mask 0, logprob 0). Each call's prompt must start with every id seen so far
// (NeMo RL's contiguity rule); a rollout that breaks it is refused, never exported off-policy.
import { createReadStream } from "node:fs";
import { callTokensOf, firstDivergence, NonContiguousError } from "./prefix.js";

export interface TokenRollout {
  prompt_ids: number[];
  response_ids: number[];
  /** 1 = sampled by the policy (train on it), 0 = prompt continuation from the environment/template. */
  response_mask: number[];
  /** The engine's logprob of each sampled token; 0 where the mask is 0. */
  response_logprobs: number[];
  reward: number | null;
  _ng_task_index: number | null;
  _ng_rollout_index: number | null;
  agent_ref: unknown;
}

export class NoTokensError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NoTokensError";
  }
}

/** The output items of a rollout line (`response.output`), or of a bare Responses object. */
function outputItems(rollout: Record<string, any>): unknown[] {
  const output = rollout.response?.output ?? rollout.output;
  return Array.isArray(output) ? output : [];
}

/** Flattens one rollout (a line of `gym eval run`'s output JSONL) into ids, mask and logprobs. */
export function flattenRollout(rollout: Record<string, any>): TokenRollout {
  const calls = callTokensOf(outputItems(rollout));
  const first = calls[0];
  if (!first) {
    throw new NoTokensError(
      "the rollout carries no token ids: collect it with return_token_id_information: true on the policy model (vllm_model or local_model)",
    );
  }
  const sequence: number[] = [...first.prompt_token_ids];
  const promptLength = sequence.length;
  const mask: number[] = [];
  const logprobs: number[] = [];
  calls.forEach((call, index) => {
    const at = firstDivergence(sequence, call.prompt_token_ids);
    if (at !== -1) {
      throw new NonContiguousError(
        `model call ${index + 1} does not continue the ids of the calls before it (first difference at token ${at} of ${sequence.length}): ` +
          `its prompt was re-rendered rather than extended. Collect with on_policy_prompts: true.`,
        at,
      );
    }
    const added = call.prompt_token_ids.slice(sequence.length);
    sequence.push(...added);
    for (let i = 0; i < added.length; i++) {
      mask.push(0);
      logprobs.push(0);
    }
    const generated = call.generation_token_ids;
    const lp = call.generation_log_probs ?? [];
    if (lp.length !== generated.length) {
      throw new NonContiguousError(`model call ${index + 1} has ${generated.length} generated ids but ${lp.length} logprobs`);
    }
    sequence.push(...generated);
    for (let i = 0; i < generated.length; i++) {
      mask.push(1);
      logprobs.push(lp[i]!);
    }
  });
  return {
    prompt_ids: sequence.slice(0, promptLength),
    response_ids: sequence.slice(promptLength),
    response_mask: mask,
    response_logprobs: logprobs,
    reward: typeof rollout.reward === "number" ? rollout.reward : null,
    _ng_task_index: rollout._ng_task_index ?? null,
    _ng_rollout_index: rollout._ng_rollout_index ?? null,
    agent_ref: rollout.agent_ref ?? null,
  };
}

export interface ExportProblem {
  line: number;
  task: unknown;
  rollout: unknown;
  message: string;
}

export interface ExportSummary {
  written: number;
  problems: ExportProblem[];
}

/**
 * Streams a rollouts JSONL into a tokens JSONL (one `TokenRollout` per line). Rollouts that cannot
 * be exported are skipped and listed in `problems`; the caller decides whether that is fatal.
 */
export async function exportTokens(rolloutsPath: string, write: (line: string) => void): Promise<ExportSummary> {
  // Imported here: the rollout service imports this module for flattenRollout alone (issue 23, start-up).
  const { createInterface } = await import("node:readline");
  const lines = createInterface({ input: createReadStream(rolloutsPath, "utf8"), crlfDelay: Infinity });
  const problems: ExportProblem[] = [];
  let written = 0;
  let lineNumber = 0;
  for await (const text of lines) {
    lineNumber++;
    if (!text.trim()) continue;
    let rollout: Record<string, any>;
    try {
      rollout = JSON.parse(text) as Record<string, any>;
    } catch (error) {
      problems.push({ line: lineNumber, task: null, rollout: null, message: `not JSON: ${(error as Error).message}` });
      continue;
    }
    try {
      write(`${JSON.stringify(flattenRollout(rollout))}\n`);
      written++;
    } catch (error) {
      if (!(error instanceof NonContiguousError || error instanceof NoTokensError)) throw error;
      problems.push({ line: lineNumber, task: rollout._ng_task_index ?? null, rollout: rollout._ng_rollout_index ?? null, message: error.message });
    }
  }
  return { written, problems };
}
