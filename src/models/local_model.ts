// `local_model`: a GGUF model run in-process by llama.cpp on CPU (node-llama-cpp), from the file
// path alone — tokenizer and chat template come from the GGUF. Every call is a token-level call:
// Gymkit renders the chat template, builds the prompt ids (on-policy: extending the ids of earlier
// calls), samples, and parses the raw completion (`<think>`, Hermes `<tool_call>`). With
// `return_token_id_information` the ids and raw logprobs go on the last output item, as vllm_model.
import { basename } from "node:path";
import { existsSync } from "node:fs";
import { z } from "zod";
import { HttpError } from "../http/errors.js";
import type { ServerImplementation } from "../http/implementation.js";
import type { ResponsesCreateParams } from "../protocol/index.js";
import type { ModelAdapter } from "./adapter.js";
import { defaultThreads, LocalEngine } from "./local/llama.js";
import { jsonGrammar, toolCallGrammar, type GrammarTool } from "./local/tool_grammar.js";
import { RecordingFields } from "./recorded.js";
import { emptyIncompleteResponse } from "./response_object.js";
import { buildModelServer } from "./server.js";
import { asHttpApp } from "../http/server.js";
import { buildTokenPrompt, endOfTurnId, loadChatTemplates, responseFromRawCompletion, toolCallFormatOf, type TokenTurnConfig } from "./token_turn.js";
import { TOOL_CALL_FORMATS } from "../tokens/tool_parsers.js";

export const LocalModelConfig = z.strictObject({
  /** A GGUF file (weights, tokenizer and chat template). */
  model_path: z.string().min(1),
  /** Model id served by `/v1/models` and put on responses; default: the file name without `.gguf`. */
  model: z.string().min(1).nullish(),
  /** CPU threads for llama.cpp; default: every core but one. Too many on a busy machine is far slower, not faster. */
  threads: z.number().int().positive().nullish(),
  /** Context window in tokens (prompt + generation). */
  context_size: z.number().int().positive().default(4096),
  /** Prompt/generation token ids and raw generation logprobs on the last output item of each call. */
  return_token_id_information: z.boolean().default(false),
  /** Keep earlier calls' ids as the prompt prefix (needs the token fields, i.e. return_token_id_information). */
  on_policy_prompts: z.boolean().default(true),
  /**
   * How the model writes tool calls, named as vLLM's `--tool-call-parser` (hermes, llama3_json,
   * mistral, qwen3_coder, deepseek_v3, openai = gpt-oss harmony); checked at start-up against the
   * chat template. Default: the format the template writes.
   */
  tool_call_parser: z.enum(TOOL_CALL_FORMATS).nullish(),
  /** The token closing each message of the chat template; default: the GGUF's EOS token. */
  end_of_turn_token: z.string().min(1).nullish(),
  replace_developer_role_with_system: z.boolean().default(true),
  chat_template_kwargs: z.record(z.string(), z.unknown()).nullish(),
  /** Sampling defaults for requests that set none (vLLM's: temperature 1, top_p 1, no top-k). */
  temperature: z.number().nonnegative().default(1),
  top_p: z.number().positive().max(1).default(1),
  /** Keep only the k most likely tokens; null = the full distribution (exact, but slower on large vocabularies). */
  top_k: z.number().int().positive().nullish(),
  ...RecordingFields,
});
export type LocalModelConfig = z.infer<typeof LocalModelConfig>;

const ID = "local_model";

/** Tools a forced tool call may use: all of them for "required", one for a named choice. */
function forcedTools(params: ResponsesCreateParams): GrammarTool[] | null {
  const choice = params.tool_choice as unknown;
  const tools = (params.tools ?? []).filter((t) => t.type === "function") as Array<{ name: string; parameters?: Record<string, unknown> | null }>;
  if (choice === "required") {
    if (tools.length === 0) throw new HttpError(400, `${ID}: tool_choice "required" but no function tools were given`);
    return tools;
  }
  if (choice && typeof choice === "object" && (choice as { type?: unknown }).type === "function") {
    const name = (choice as { name?: unknown }).name;
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new HttpError(400, `${ID}: tool_choice names ${JSON.stringify(name)}, which is not among the tools`);
    return [tool];
  }
  return null;
}

/** `text.format` json_schema / json_object → a grammar for one JSON value; null for plain text. */
function structuredOutputGrammar(params: ResponsesCreateParams): string | null {
  const format = (params.text as { format?: { type?: unknown; schema?: Record<string, unknown> } | null } | null | undefined)?.format;
  if (!format || format.type === "json_object") return format ? jsonGrammar(null) : null;
  return format.type === "json_schema" ? jsonGrammar(format.schema ?? null) : null;
}

export async function localAdapter(config: LocalModelConfig): Promise<ModelAdapter> {
  if (!existsSync(config.model_path)) throw new Error(`${ID}: model_path ${config.model_path} does not exist (a .gguf file is expected)`);
  const engine = await LocalEngine.load({ modelPath: config.model_path, threads: config.threads ?? defaultThreads(), contextSize: config.context_size });
  const tokenizer = engine.tokenizer;
  const model = config.model ?? basename(config.model_path).replace(/\.gguf$/i, "");
  const turn: TokenTurnConfig = {
    label: ID,
    tokenizer,
    endOfTurnId: endOfTurnId(tokenizer, config.end_of_turn_token, ID),
    onPolicy: config.on_policy_prompts,
    replaceDeveloperRoleWithSystem: config.replace_developer_role_with_system,
    chatTemplateKwargs: config.chat_template_kwargs,
    toolCallFormat: toolCallFormatOf(tokenizer, config.tool_call_parser, ID),
  };
  const stopIds = new Set<number>([turn.endOfTurnId]);

  return {
    models: () => [model],
    requestFields: "local_model",

    // The model's weights and context live in this process until its server closes.
    close: () => engine.dispose(),

    async createResponse(params, context) {
      await loadChatTemplates();
      const prompt = buildTokenPrompt(params, turn);
      const room = engine.contextSize - prompt.ids.length;
      // As vllm_model does for an engine's context-length error: an empty, incomplete response.
      if (room <= 0) return emptyIncompleteResponse(params, model);
      const forced = prompt.tools ? forcedTools(params) : null;
      if (forced && turn.toolCallFormat !== "hermes") {
        // The grammar writes Hermes <tool_call> JSON; another format's parser would not read it.
        throw new HttpError(400, `${ID}: tool_choice ${JSON.stringify(params.tool_choice)} is enforced with a Hermes <tool_call> grammar, but this model's tool_call_parser is ${JSON.stringify(turn.toolCallFormat)}; use "auto"`);
      }
      const structured = structuredOutputGrammar(params);
      if (forced && structured) throw new HttpError(400, `${ID}: a forced tool call (tool_choice ${JSON.stringify(params.tool_choice)}) and text.format structured output cannot both hold for one generation`);
      const generation = await engine.generate({
        promptIds: prompt.ids,
        maxTokens: Math.min(params.max_output_tokens ?? room, room),
        temperature: params.temperature ?? config.temperature,
        topP: params.top_p ?? config.top_p,
        topK: config.top_k ?? null,
        seed: params.seed,
        grammar: forced ? toolCallGrammar(forced) : structured,
        logProbs: config.return_token_id_information,
        signal: context.signal,
      });
      // Any end-of-generation token the model stopped on is not text to parse.
      const last = generation.ids[generation.ids.length - 1];
      const stops = last !== undefined && engine.isEndOfGeneration(last) ? new Set([...stopIds, last]) : stopIds;
      return responseFromRawCompletion(
        params,
        { promptIds: prompt.ids, generationIds: generation.ids, logProbs: generation.logProbs, truncated: generation.truncated },
        { model, tokenizer, stopIds: stops, capture: config.return_token_id_information, parseTools: Boolean(prompt.tools) && params.tool_choice !== "none", toolCallFormat: turn.toolCallFormat, tools: prompt.tools },
      );
    },
  };
}

const implementation: ServerImplementation<LocalModelConfig> = {
  type: "responses_api_models",
  id: ID,
  configSchema: LocalModelConfig,
  async build({ name, config }) {
    return asHttpApp(buildModelServer({ name, id: ID, adapter: await localAdapter(config), recordPath: config.record_path }));
  },
};

export default implementation;
