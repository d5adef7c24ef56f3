// llama.cpp on CPU through node-llama-cpp, at the token level: a GGUF file gives the weights, the
// tokenizer and the chat template; Gymkit gives it prompt ids and gets back sampled ids with their
// raw logprobs. node-llama-cpp is an optional dependency, imported only when a local model starts.
import { availableParallelism } from "node:os";
import type { Llama, LlamaContext, LlamaContextSequence, LlamaGrammar, LlamaModel, Token } from "node-llama-cpp";
import type { ChatTokenizer } from "../../tokens/tokenizer.js";

type NodeLlamaCpp = typeof import("node-llama-cpp");

export const INSTALL_HINT =
  "local_model needs the optional package node-llama-cpp: `npm install node-llama-cpp@3` (CPU build ~85 MB; see src/tokens/README.md for installing without the ~640 MB of GPU builds)";

async function importNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  try {
    return await import("node-llama-cpp");
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") throw new Error(INSTALL_HINT, { cause: error });
    throw error;
  }
}

let llamaPromise: Promise<{ lib: NodeLlamaCpp; llama: Llama }> | undefined;

/** One llama.cpp runtime per process: the prebuilt CPU binary, never a download or a source build. */
function runtime(): Promise<{ lib: NodeLlamaCpp; llama: Llama }> {
  llamaPromise ??= (async () => {
    const lib = await importNodeLlamaCpp();
    try {
      const llama = await lib.getLlama({
        gpu: false,
        build: "never",
        usePrebuiltBinaries: true,
        skipDownload: true,
        progressLogs: false,
        logLevel: lib.LlamaLogLevel.error,
      });
      return { lib, llama };
    } catch (error) {
      throw new Error(
        `local_model: node-llama-cpp found no usable prebuilt CPU binary for ${process.platform}-${process.arch} ` +
          `(is @node-llama-cpp/${process.platform}-${process.arch} installed?): ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  })();
  llamaPromise.catch(() => (llamaPromise = undefined));
  return llamaPromise;
}

/** Threads for token generation: every core but one, which the servers' event loops need. */
export function defaultThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

export interface LocalEngineOptions {
  modelPath: string;
  threads: number;
  contextSize: number;
}

export interface GenerateOptions {
  promptIds: readonly number[];
  maxTokens: number;
  temperature: number;
  topP: number;
  /** null = no top-k cut (the full distribution, as vLLM's default). */
  topK: number | null;
  seed?: number | null | undefined;
  /** GBNF the output must match (e.g. a forced tool call). */
  grammar?: string | null;
  /** Compute the raw logprob of every sampled token. */
  logProbs: boolean;
  signal?: AbortSignal;
}

export interface Generation {
  ids: number[];
  logProbs: number[] | null;
  /** Stopped at maxTokens rather than at an end-of-generation token. */
  truncated: boolean;
}

/**
 * GGUF pre-tokenizer types whose Hugging Face tokenizer.json normalizes text to NFC first. llama.cpp
 * does not (the GGUF does not record a normalizer), so `e` + U+0301 would tokenize differently from
 * transformers and vLLM; Gymkit normalizes before handing text to llama.cpp.
 */
const NFC_PRE_TOKENIZERS = new Set(["qwen2"]);

/** llama.cpp's tokenizer and the GGUF's chat template, behind the interface src/tokens uses. */
class GgufTokenizer implements ChatTokenizer {
  readonly chatTemplate: string | null;
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  private readonly nfc: boolean;

  constructor(
    readonly source: string,
    private readonly model: LlamaModel,
  ) {
    const meta = (model.fileInfo.metadata as { tokenizer?: { chat_template?: unknown; ggml?: { pre?: unknown } } }).tokenizer;
    this.chatTemplate = typeof meta?.chat_template === "string" ? meta.chat_template : null;
    this.nfc = NFC_PRE_TOKENIZERS.has(String(meta?.ggml?.pre));
    this.bosToken = model.tokens.bosString;
    this.eosToken = model.tokens.eosString;
  }

  encode(text: string): number[] {
    // Special tokens in the rendered template are parsed as such; no BOS is added (templates write it).
    return Array.from(this.model.tokenize(this.nfc ? text.normalize("NFC") : text, true));
  }

  decode(ids: readonly number[]): string {
    return ids.length ? this.model.detokenize(ids as Token[], true) : "";
  }

  tokenId(token: string): number | undefined {
    const ids = this.model.tokenize(token, true);
    return ids.length === 1 ? ids[0] : undefined;
  }
}

/** A loaded GGUF with one context sequence; calls run one at a time and reuse the cached prefix. */
export class LocalEngine {
  readonly tokenizer: ChatTokenizer;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly lib: NodeLlamaCpp,
    private readonly llama: Llama,
    readonly model: LlamaModel,
    private readonly context: LlamaContext,
    private readonly sequence: LlamaContextSequence,
    readonly options: LocalEngineOptions,
  ) {
    this.tokenizer = new GgufTokenizer(options.modelPath, model);
  }

  static async load(options: LocalEngineOptions): Promise<LocalEngine> {
    const { lib, llama } = await runtime();
    const model = await llama.loadModel({ modelPath: options.modelPath, gpuLayers: 0 });
    // Always explicit: node-llama-cpp's default thread count oversubscribes small machines, and a
    // busy-waiting ggml thread pool on a shared core runs ~50x slower.
    const context = await model.createContext({ contextSize: options.contextSize, threads: options.threads, sequences: 1 });
    return new LocalEngine(lib, llama, model, context, context.getSequence(), options);
  }

  get contextSize(): number {
    return this.context.contextSize;
  }

  isEndOfGeneration(id: number): boolean {
    return this.model.isEogToken(id as Token);
  }

  /** Runs after every call queued before it (one sequence, one generation at a time). */
  generate(options: GenerateOptions): Promise<Generation> {
    const run = this.queue.then(() => this.generateNow(options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async generateNow(options: GenerateOptions): Promise<Generation> {
    options.signal?.throwIfAborted();
    const prompt = options.promptIds as Token[];
    if (prompt.length === 0) throw new Error("local_model: empty prompt");
    // Keep the KV cache for the common prefix (on-policy prompts extend the previous call's ids),
    // but always evaluate at least the last prompt token: its logits choose the first new token.
    const reuse = Math.min(this.sequence.compareContextTokens(prompt).firstDifferentIndex, prompt.length - 1);
    if (reuse < this.sequence.nextTokenIndex) {
      await this.sequence.eraseContextTokenRanges([{ start: reuse, end: this.sequence.nextTokenIndex }]);
    }

    let grammar: LlamaGrammar | undefined;
    if (options.grammar) grammar = await this.llama.createGrammar({ grammar: options.grammar });
    const grammarEvaluationState = grammar ? new this.lib.LlamaGrammarEvaluationState({ model: this.model, grammar }) : undefined;

    const ids: number[] = [];
    let truncated = false;
    if (options.maxTokens <= 0) truncated = true;
    else {
      const tokens = this.sequence.evaluate(prompt.slice(reuse), {
        temperature: options.temperature,
        topP: options.topP,
        // node-llama-cpp turns an absent topK into 40; null reaches llama.cpp as "no top-k sampler".
        topK: options.topK as number,
        minP: 0,
        ...(options.seed != null ? { seed: options.seed } : {}),
        ...(grammarEvaluationState ? { grammarEvaluationState } : {}),
        yieldEogToken: true,
      });
      for await (const token of tokens) {
        ids.push(token);
        if (this.model.isEogToken(token)) break;
        if (ids.length >= options.maxTokens) {
          truncated = true;
          break;
        }
        if (options.signal?.aborted) break;
      }
    }
    options.signal?.throwIfAborted();
    const logProbs = options.logProbs ? await this.rawLogProbs(prompt, ids) : null;
    return { ids, logProbs, truncated };
  }

  /**
   * log p(token) under the model's raw distribution (no temperature, top-p or grammar), by scoring
   * the sampled ids again in one batch: the sampler's own `confidence` is taken after temperature
   * and grammar, which is not what trainers compare their logprobs with. A greedy sampler leaves
   * the logits untouched, so its "selected" token carries the maximum logit, and
   * log p(t) = logit(t) − max − log Σ exp(logit − max).
   */
  private async rawLogProbs(prompt: readonly Token[], ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const start = prompt.length - 1;
    if (start < this.sequence.nextTokenIndex) await this.sequence.eraseContextTokenRanges([{ start, end: this.sequence.nextTokenIndex }]);
    const inputs = [prompt[start]!, ...(ids.slice(0, -1) as Token[])];
    const results = await this.sequence.controlledEvaluate(
      inputs.map((token, i) => [
        token,
        {
          generateNext: {
            logits: { filter: { tokens: [ids[i]! as Token], includeSelected: true } },
            totalLogitWeight: true,
            options: { temperature: 0 },
          },
        },
      ]),
    );
    return ids.map((id, i) => {
      const next = results[i]?.next;
      const logits = next?.logits;
      const logit = logits?.get(id as Token);
      if (!logits || logit === undefined || next?.totalLogitWeight === undefined) throw new Error(`local_model: no logits for generated token ${i}`);
      const max = Math.max(...logits.values());
      return logit - max - Math.log(next.totalLogitWeight);
    });
  }

  async dispose(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
  }
}
