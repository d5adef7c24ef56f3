// On-policy prefix correction. Re-rendering the chat template every turn re-tokenizes earlier model
// output differently from what was sampled (BPE merges differently; templates drop `<think>` blocks
// and re-serialize tool-call JSON), so a trainer fed the fresh render learns from tokens the policy
// never produced. Instead, a call's prompt is the previous call's prompt + sampled ids, followed by
// only the part of the fresh render that comes after the n-th end-of-turn token, where n is the
// number of end-of-turn tokens already in those ids (the one closing the previous model turn is the
// last). What follows is exactly what the environment added: tool outputs, new user turns, and the
// generation prompt. Template families whose messages do not all close with one token (DeepSeek-V3,
// gpt-oss) place the new part after the render's last model turn instead (turns.ts).
//
// A template that rewrites the start of the conversation when it grows (Mistral Nemo/7B v0.3 move
// the system prompt and the tool list into the *last* user turn) cannot be extended this way: the
// new part would repeat what the policy already saw in another place. Such a call is refused with
// NonContiguousError naming the first rewritten token, as a non-contiguous rollout is.
import type { TurnFormat } from "./turns.js";

/** The token fields Gymkit puts on the last output item of each model call. */
export interface CallTokens {
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_log_probs?: number[];
}

/** A rollout that would train on ids the policy did not see: never continued silently. */
export class NonContiguousError extends Error {
  /** The first token position where the ids stop continuing the earlier ones, when there is one. */
  readonly position: number | undefined;
  constructor(message: string, position?: number) {
    super(message);
    this.name = "NonContiguousError";
    this.position = position;
  }
}

function isIdList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => Number.isInteger(v));
}

/** The model calls recorded in a list of Responses items (input or output), in order. */
export function callTokensOf(items: readonly unknown[]): CallTokens[] {
  const calls: CallTokens[] = [];
  for (const item of items) {
    const fields = item as Partial<CallTokens> | null;
    if (fields && isIdList(fields.prompt_token_ids) && isIdList(fields.generation_token_ids)) {
      calls.push({
        prompt_token_ids: fields.prompt_token_ids,
        generation_token_ids: fields.generation_token_ids,
        ...(Array.isArray(fields.generation_log_probs) ? { generation_log_probs: fields.generation_log_probs } : {}),
      });
    }
  }
  return calls;
}

/** Index of the first position where `ids` does not continue `prefix`, or -1 when it does. */
export function firstDivergence(prefix: readonly number[], ids: readonly number[]): number {
  const n = Math.min(prefix.length, ids.length);
  for (let i = 0; i < n; i++) if (prefix[i] !== ids[i]) return i;
  return prefix.length > ids.length ? ids.length : -1;
}

function excerpt(ids: readonly number[], at: number): string {
  return `[…${ids.slice(Math.max(0, at - 3), at + 4).join(", ")}…]`;
}

/**
 * Every id the policy has seen or produced so far: the last call's prompt and generation. Checks
 * that each earlier call is a prefix of it (NeMo RL's rule), else throws NonContiguousError.
 */
export function idsSoFar(calls: readonly CallTokens[]): number[] {
  const last = calls[calls.length - 1];
  if (!last) return [];
  for (let i = 0; i < calls.length - 1; i++) {
    const call = calls[i]!;
    const earlier = [...call.prompt_token_ids, ...call.generation_token_ids];
    const at = firstDivergence(earlier, last.prompt_token_ids);
    if (at !== -1) {
      throw new NonContiguousError(
        `model call ${calls.length} of this rollout does not extend call ${i + 1}: its prompt differs at token ${at} ` +
          `(${excerpt(last.prompt_token_ids, at)} where call ${i + 1} had ${excerpt(earlier, at)}). ` +
          `Training on it would use tokens the policy never saw; enable on_policy_prompts or keep the items' token fields unchanged.`,
        at,
      );
    }
  }
  return [...last.prompt_token_ids, ...last.generation_token_ids];
}

export interface PrefixOptions {
  /** Token fields of the earlier model calls of this rollout, oldest first. */
  calls: readonly CallTokens[];
  /** The fresh render of the whole conversation (with generation prompt), tokenized. */
  freshIds: readonly number[];
  /** The end-of-turn token closing every message (`<|im_end|>` for Qwen, `<|eot_id|>` for Llama 3). */
  endOfTurnId: number;
  /** The template family's own turn ends, where they are not "every message closes with endOfTurnId". */
  turns?: TurnFormat | undefined;
  /**
   * How many trailing ids of a fresh render are the generation prompt. Given, the first call's
   * prompt (less that many ids) must still start the fresh render: the template did not rewrite it.
   */
  generationPromptLength?: number | undefined;
}

export interface PrefixResult {
  ids: number[];
  /** How many leading ids come from earlier calls (the rest is from the fresh render). */
  keptLength: number;
}

/** Refuses a fresh render that no longer starts with the first call's prompt (its history part). */
function checkStartKept(first: CallTokens, freshIds: readonly number[], generationPromptLength: number): void {
  const prompt = first.prompt_token_ids;
  const at = firstDivergence(prompt, freshIds);
  if (at === -1 || at >= prompt.length - generationPromptLength) return;
  throw new NonContiguousError(
    `the chat template rewrote the start of the conversation: the fresh render differs at token ${at} from the first call's prompt ` +
      `(${excerpt(freshIds, at)} where the policy saw ${excerpt(prompt, at)}). Some templates move the system prompt or the tool list ` +
      `into the last user turn (Mistral's do); appending the new turn to the ids sampled so far would show the policy that part twice. ` +
      `Drop the system prompt/tools that move, or serve this model without on_policy_prompts.`,
    at,
  );
}

function cutByCount(kept: number[], freshIds: readonly number[], endOfTurnId: number): number {
  // A turn cut by the token limit (or ended by another stop token) still needs closing: the fresh
  // render closes it, and the suffix must start after that.
  if (kept[kept.length - 1] !== endOfTurnId) kept.push(endOfTurnId);
  let n = 0;
  for (const id of kept) if (id === endOfTurnId) n++;
  let seen = 0;
  for (let i = 0; i < freshIds.length; i++) {
    if (freshIds[i] === endOfTurnId && ++seen === n) return i + 1;
  }
  throw new NonContiguousError(
    `the fresh chat-template render has ${seen} end-of-turn token(s) (id ${endOfTurnId}) but the ids sampled so far have ${n}: ` +
      `the template dropped or merged turns, so the new messages cannot be placed after them. Check end_of_turn_token for this template.`,
  );
}

function cutAfterLastTurn(kept: number[], freshIds: readonly number[], turns: TurnFormat): number {
  if (!turns.ends.includes(kept[kept.length - 1]!)) kept.push(turns.close);
  const cut = turns.afterLastModelTurn(freshIds);
  if (cut === -1) {
    throw new NonContiguousError(
      `the fresh ${turns.name} chat-template render has no complete model turn (${turns.describe}), but this rollout has sampled ${kept.length} ids: ` +
        `the new messages cannot be placed after them.`,
    );
  }
  return cut;
}

export function onPolicyPromptIds({ calls, freshIds, endOfTurnId, turns, generationPromptLength }: PrefixOptions): PrefixResult {
  if (calls.length === 0) return { ids: [...freshIds], keptLength: 0 };
  const kept = idsSoFar(calls);
  if (generationPromptLength !== undefined) checkStartKept(calls[0]!, freshIds, generationPromptLength);
  const cut = turns ? cutAfterLastTurn(kept, freshIds, turns) : cutByCount(kept, freshIds, endOfTurnId);
  return { ids: [...kept, ...freshIds.slice(cut)], keptLength: kept.length };
}
