// A tiny random-weight model (Qwen3 architecture, 2 layers, width 64) around a real Hugging Face
// tokenizer, written as GGUF. Its answers are noise, but everything around them is real: llama.cpp
// tokenizes with the real vocabulary and merges, the GGUF carries the real chat template, and
// grammar-constrained sampling makes valid tool calls — so tests and benchmarks exercise the
// local engine end to end without downloading a model.
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeGguf, type MetadataValue, type TensorSpec } from "./gguf_writer.js";

export interface TinyModelOptions {
  /** A Hugging Face model folder with tokenizer.json and tokenizer_config.json (a BPE tokenizer). */
  tokenizerDir: string;
  layers?: number;
  width?: number;
  heads?: number;
  kvHeads?: number;
  ffWidth?: number;
  contextLength?: number;
  seed?: number;
}

/** llama.cpp token types. */
const NORMAL = 1;
const CONTROL = 3;
const USER_DEFINED = 4;

/** Deterministic N(0, std) values (mulberry32 + Box–Muller), so the same seed gives the same file. */
function gaussianFiller(seed: number, std: number): (out: Float32Array) => void {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (out) => {
    for (let i = 0; i < out.length; i += 2) {
      const r = Math.sqrt(-2 * Math.log(uniform() || 1e-12)) * std;
      const theta = 2 * Math.PI * uniform();
      out[i] = r * Math.cos(theta);
      if (i + 1 < out.length) out[i + 1] = r * Math.sin(theta);
    }
  };
}

const ones = (out: Float32Array) => out.fill(1);

function tokenString(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && typeof (value as { content?: unknown }).content === "string") return (value as { content: string }).content;
  return null;
}

/** Vocabulary, token types and merges in GGUF's `gpt2` tokenizer form. */
function vocabulary(tokenizer: Record<string, any>) {
  const model = tokenizer.model as { type: string; vocab: Record<string, number>; merges: Array<string | [string, string]> };
  if (model.type !== "BPE") throw new Error(`tiny model: only byte-level BPE tokenizers are supported, not ${model.type}`);
  const added = (tokenizer.added_tokens ?? []) as Array<{ id: number; content: string; special: boolean }>;
  let size = 0;
  for (const id of Object.values(model.vocab)) size = Math.max(size, id + 1);
  for (const token of added) size = Math.max(size, token.id + 1);
  const tokens: string[] = Array.from({ length: size }, (_, i) => `[PAD${i}]`);
  const types = new Int32Array(size).fill(NORMAL);
  for (const [text, id] of Object.entries(model.vocab)) tokens[id] = text;
  for (const token of added) {
    tokens[token.id] = token.content;
    types[token.id] = token.special ? CONTROL : USER_DEFINED;
  }
  const merges = model.merges.map((m) => (Array.isArray(m) ? `${m[0]} ${m[1]}` : m));
  return { tokens, types, merges };
}

/** Builds the GGUF at `path`. */
export function writeTinyModel(path: string, options: TinyModelOptions): void {
  const layers = options.layers ?? 2;
  const width = options.width ?? 64;
  const heads = options.heads ?? 4;
  const kvHeads = options.kvHeads ?? 2;
  const headDim = width / heads;
  const ffWidth = options.ffWidth ?? 128;
  const seed = options.seed ?? 1;
  const tokenizer = JSON.parse(readFileSync(join(options.tokenizerDir, "tokenizer.json"), "utf8")) as Record<string, any>;
  const config = JSON.parse(readFileSync(join(options.tokenizerDir, "tokenizer_config.json"), "utf8")) as Record<string, any>;
  const { tokens, types, merges } = vocabulary(tokenizer);
  const idOf = (name: unknown) => {
    const text = tokenString(name);
    const id = text === null ? -1 : tokens.indexOf(text);
    return id;
  };
  const eos = idOf(config.eos_token);
  const pad = idOf(config.pad_token);
  const bos = idOf(config.bos_token);

  const arch = "qwen3";
  const metadata: Array<[string, MetadataValue]> = [
    ["general.architecture", { type: "string", value: arch }],
    ["general.name", { type: "string", value: `gymkit-tiny-${arch}` }],
    ["general.alignment", { type: "u32", value: 32 }],
    [`${arch}.context_length`, { type: "u32", value: options.contextLength ?? 4096 }],
    [`${arch}.embedding_length`, { type: "u32", value: width }],
    [`${arch}.block_count`, { type: "u32", value: layers }],
    [`${arch}.feed_forward_length`, { type: "u32", value: ffWidth }],
    [`${arch}.attention.head_count`, { type: "u32", value: heads }],
    [`${arch}.attention.head_count_kv`, { type: "u32", value: kvHeads }],
    [`${arch}.attention.key_length`, { type: "u32", value: headDim }],
    [`${arch}.attention.value_length`, { type: "u32", value: headDim }],
    [`${arch}.attention.layer_norm_rms_epsilon`, { type: "f32", value: 1e-6 }],
    [`${arch}.rope.freq_base`, { type: "f32", value: 1_000_000 }],
    ["tokenizer.ggml.model", { type: "string", value: "gpt2" }],
    // The pre-tokenizer regex llama.cpp applies; `qwen2` is Qwen2/2.5/3's.
    ["tokenizer.ggml.pre", { type: "string", value: "qwen2" }],
    ["tokenizer.ggml.tokens", { type: "string[]", value: tokens }],
    ["tokenizer.ggml.token_type", { type: "i32[]", value: types }],
    ["tokenizer.ggml.merges", { type: "string[]", value: merges }],
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: Boolean(config.add_bos_token) }],
  ];
  if (eos >= 0) metadata.push(["tokenizer.ggml.eos_token_id", { type: "u32", value: eos }]);
  if (pad >= 0) metadata.push(["tokenizer.ggml.padding_token_id", { type: "u32", value: pad }]);
  if (bos >= 0) metadata.push(["tokenizer.ggml.bos_token_id", { type: "u32", value: bos }]);
  else if (pad >= 0) metadata.push(["tokenizer.ggml.bos_token_id", { type: "u32", value: pad }]);
  if (typeof config.chat_template === "string") metadata.push(["tokenizer.chat_template", { type: "string", value: config.chat_template }]);

  let tensorSeed = seed * 1000;
  const random = () => gaussianFiller(tensorSeed++, 0.02);
  // Embeddings are tied (no output.weight), as in the small Qwen3 models.
  const tensors: TensorSpec[] = [
    { name: "token_embd.weight", dims: [width, tokens.length], fill: random() },
    { name: "output_norm.weight", dims: [width], fill: ones },
  ];
  for (let i = 0; i < layers; i++) {
    const blk = `blk.${i}`;
    tensors.push(
      { name: `${blk}.attn_norm.weight`, dims: [width], fill: ones },
      { name: `${blk}.attn_q.weight`, dims: [width, heads * headDim], fill: random() },
      { name: `${blk}.attn_k.weight`, dims: [width, kvHeads * headDim], fill: random() },
      { name: `${blk}.attn_v.weight`, dims: [width, kvHeads * headDim], fill: random() },
      { name: `${blk}.attn_output.weight`, dims: [heads * headDim, width], fill: random() },
      { name: `${blk}.attn_q_norm.weight`, dims: [headDim], fill: ones },
      { name: `${blk}.attn_k_norm.weight`, dims: [headDim], fill: ones },
      { name: `${blk}.ffn_norm.weight`, dims: [width], fill: ones },
      { name: `${blk}.ffn_gate.weight`, dims: [width, ffWidth], fill: random() },
      { name: `${blk}.ffn_up.weight`, dims: [width, ffWidth], fill: random() },
      { name: `${blk}.ffn_down.weight`, dims: [ffWidth, width], fill: random() },
    );
  }
  writeGguf(path, metadata, tensors);
}

/**
 * The tiny model for a tokenizer folder, built once and kept in the OS temp folder (keyed by the
 * tokenizer files and options), so repeated test runs reuse it. ~40 MB for a 150k vocabulary.
 */
export function tinyModelPath(options: TinyModelOptions): string {
  const hash = createHash("sha256");
  hash.update(readFileSync(join(options.tokenizerDir, "tokenizer.json")));
  hash.update(readFileSync(join(options.tokenizerDir, "tokenizer_config.json")));
  hash.update(JSON.stringify({ ...options, tokenizerDir: undefined, format: 1 }));
  const dir = join(tmpdir(), "gymkit-tiny-models");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `tiny-${hash.digest("hex").slice(0, 16)}.gguf`);
  if (!existsSync(path)) {
    // Written under a unique name and renamed: parallel test workers never read a half-written file.
    const partial = `${path}.${process.pid}.${Date.now()}.partial`;
    writeTinyModel(partial, options);
    renameSync(partial, path);
  }
  return path;
}
