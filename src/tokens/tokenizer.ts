// Tokenizers, as the rest of Gymkit sees them: text ⇄ ids plus the chat template that goes with
// them. One implementation reads a Hugging Face model folder (`tokenizer.json` +
// `tokenizer_config.json`) with @huggingface/tokenizers; local_model supplies another backed by
// llama.cpp's own tokenizer, so the same on-policy code serves both engines.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";

export interface TextTokenizer {
  /**
   * Text → ids, adding no BOS/EOS of its own: chat templates write every special token they
   * want, and `transformers.apply_chat_template(tokenize=True)` encodes the same way.
   */
  encode(text: string): number[];
  /** Ids → text with special tokens kept (so `<think>` and `<tool_call>` survive); `[]` → `""`. */
  decode(ids: readonly number[]): string;
  /** The id of a token spelled exactly so (e.g. `<|im_end|>`), if the vocabulary has one. */
  tokenId(token: string): number | undefined;
}

export interface ChatTokenizer extends TextTokenizer {
  /** Where it came from, for error messages (a folder or a GGUF path). */
  source: string;
  /** The Jinja chat template; null if the model ships none. */
  chatTemplate: string | null;
  /** A separate template for requests with tools (named `tool_use`), which transformers prefers then. */
  toolUseTemplate?: string | null;
  /** Template variables `bos_token` / `eos_token` (strings, as transformers passes them). */
  bosToken: string | null;
  eosToken: string | null;
}

type AddedTokenLike = string | { content?: unknown } | null | undefined;

function tokenString(value: AddedTokenLike): string | null {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && typeof value.content === "string") return value.content;
  return null;
}

function readJson(path: string): Record<string, any> {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, any>;
  } catch (error) {
    throw new Error(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/**
 * The template transformers would use: `chat_template.jinja` beside the config (newer saves), else
 * `tokenizer_config.json`'s `chat_template`, which may be a list of named templates — then
 * `tool_use` when tools are given and it exists, else `default`, as transformers picks.
 */
function chatTemplateOf(dir: string, config: Record<string, any>, wantTools: boolean): string | null {
  const file = join(dir, "chat_template.jinja");
  if (existsSync(file)) return readFileSync(file, "utf8");
  const template = config.chat_template;
  if (typeof template === "string") return template;
  if (Array.isArray(template)) {
    const named = new Map(template.map((t: { name: string; template: string }) => [t.name, t.template]));
    return (wantTools ? named.get("tool_use") : undefined) ?? named.get("default") ?? null;
  }
  return null;
}

export class HfTokenizer implements ChatTokenizer {
  readonly chatTemplate: string | null;
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  readonly toolUseTemplate: string | null;
  private readonly tokenizer: Tokenizer;
  private readonly vocab: Map<string, number>;

  constructor(readonly source: string) {
    const config = readJson(join(source, "tokenizer_config.json"));
    const json = readJson(join(source, "tokenizer.json"));
    this.tokenizer = new Tokenizer(json, config);
    this.vocab = this.tokenizer.get_vocab(true);
    this.chatTemplate = chatTemplateOf(source, config, false);
    this.toolUseTemplate = chatTemplateOf(source, config, true);
    this.bosToken = tokenString(config.bos_token);
    this.eosToken = tokenString(config.eos_token);
  }

  encode(text: string): number[] {
    if (text === "") return [];
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: readonly number[]): string {
    // @huggingface/tokenizers throws on an empty list; an empty generation is legitimate.
    if (ids.length === 0) return "";
    // No clean-up of spaces before punctuation: transformers 5 skips it for BPE too, and it is
    // not invertible, which parsing a raw completion must be.
    return this.tokenizer.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  tokenId(token: string): number | undefined {
    return this.vocab.get(token);
  }
}

const cache = new Map<string, HfTokenizer>();

/** Loads (once per process: ~0.4 s for a 150k vocabulary) the tokenizer of a local model folder. */
export function loadTokenizer(dir: string): HfTokenizer {
  const path = resolve(dir);
  let tokenizer = cache.get(path);
  if (!tokenizer) {
    if (!existsSync(join(path, "tokenizer.json"))) {
      throw new Error(`tokenizer folder ${path} has no tokenizer.json (point tokenizer_path at a Hugging Face model folder)`);
    }
    tokenizer = new HfTokenizer(path);
    cache.set(path, tokenizer);
  }
  return tokenizer;
}
