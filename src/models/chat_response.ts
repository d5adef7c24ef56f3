// A Chat Completions reply → a Responses object: reasoning item (if any), message item (if any
// text), one function_call item per tool call, `finish_reason: length` → incomplete, usage renamed.
// With token capture, the sampled ids and logprobs go on the last output item (NeMo Gym's contract).
import { HttpError } from "../http/errors.js";
import type { OutputItem, ResponseObject, ResponsesCreateParams, Usage } from "../protocol/index.js";
import { buildResponse, newId } from "./response_object.js";
import { splitThink } from "../tokens/think.js";

export interface ChatResponseOptions {
  model: string;
  /** The engine split reasoning out (`reasoning_content` / `reasoning`); otherwise parse `<think>`. */
  usesReasoningParser: boolean;
  /** The caller asked for logprobs (`top_logprobs` / `include`): the choice's go on the output_text part. */
  outputLogprobs?: boolean;
}

/** Chat `logprobs.content` → Responses output_text `logprobs` (token, logprob, bytes, top_logprobs). */
function outputTextLogprobs(choice: Record<string, any>): unknown[] {
  const bytes = (entry: Record<string, any>) => (Array.isArray(entry.bytes) ? entry.bytes : [...Buffer.from(String(entry.token ?? ""), "utf8")]);
  const content: Array<Record<string, any>> = Array.isArray(choice.logprobs?.content) ? choice.logprobs.content : [];
  return content.map((entry) => ({
    token: String(entry.token),
    logprob: Number(entry.logprob),
    bytes: bytes(entry),
    top_logprobs: (Array.isArray(entry.top_logprobs) ? entry.top_logprobs : []).map((alt: Record<string, any>) => ({ token: String(alt.token), logprob: Number(alt.logprob), bytes: bytes(alt) })),
  }));
}

export interface TokenInfo {
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_log_probs: number[];
}

export function chatUsage(usage: Record<string, any> | null | undefined): Usage {
  const input = Number(usage?.prompt_tokens ?? 0);
  const output = Number(usage?.completion_tokens ?? 0);
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: Number(usage?.total_tokens ?? input + output),
    input_tokens_details: { cached_tokens: Number(usage?.prompt_tokens_details?.cached_tokens ?? 0) },
    output_tokens_details: { reasoning_tokens: Number(usage?.completion_tokens_details?.reasoning_tokens ?? 0) },
  };
}

/** The first choice, or a 502 saying what came back instead. */
export function firstChoice(completion: unknown, engineUrl: string): Record<string, any> {
  const choice = (completion as { choices?: unknown[] } | null)?.choices?.[0] as Record<string, any> | undefined;
  if (!choice || typeof choice.message !== "object" || choice.message === null) {
    throw new HttpError(502, `engine ${engineUrl} answered without choices[0].message: ${JSON.stringify(completion).slice(0, 300)}`);
  }
  return choice;
}

/** Sampled ids and logprobs from a vLLM choice (`logprobs.content[].token` = `token_id:N` with return_tokens_as_token_ids). */
export function generationTokens(choice: Record<string, any>, engineUrl: string): Omit<TokenInfo, "prompt_token_ids"> {
  const content: Array<Record<string, any>> | undefined = choice.logprobs?.content;
  if (!Array.isArray(content)) {
    throw new HttpError(502, `engine ${engineUrl} returned no logprobs although return_token_id_information is on; is it vLLM?`);
  }
  const ids: number[] = Array.isArray(choice.token_ids)
    ? choice.token_ids
    : content.map((entry) => {
        const match = /^token_id:(\d+)$/.exec(String(entry.token));
        if (!match) throw new HttpError(502, `engine ${engineUrl} returned token ${JSON.stringify(entry.token)}, not "token_id:N"; it must honour return_tokens_as_token_ids`);
        return Number(match[1]);
      });
  return { generation_token_ids: ids, generation_log_probs: content.map((entry) => Number(entry.logprob)) };
}

export function fromChatCompletion(
  params: ResponsesCreateParams,
  completion: Record<string, any>,
  choice: Record<string, any>,
  options: ChatResponseOptions,
  tokens?: TokenInfo,
): ResponseObject {
  const message = choice.message as Record<string, any>;
  const incomplete = choice.finish_reason === "length";
  let content = typeof message.content === "string" ? message.content : "";
  const reasoning: string[] = [];
  const parsed = message.reasoning_content ?? message.reasoning;
  if (typeof parsed === "string" && parsed) reasoning.push(parsed);
  if (!options.usesReasoningParser) {
    const split = splitThink(content);
    reasoning.push(...split.reasoning);
    content = split.text;
  }

  const output: OutputItem[] = [];
  for (const text of reasoning) {
    output.push({ id: newId("rs"), type: "reasoning", summary: [{ type: "summary_text", text }], status: "completed" });
  }
  if (content.trim()) {
    output.push({
      id: newId("msg"),
      type: "message",
      role: "assistant",
      status: incomplete ? "incomplete" : "completed",
      content: [{ type: "output_text", text: content, annotations: [], ...(options.outputLogprobs ? { logprobs: outputTextLogprobs(choice) } : {}) }],
    });
  }
  for (const call of (message.tool_calls ?? []) as Array<Record<string, any>>) {
    output.push({
      id: newId("fc"),
      type: "function_call",
      call_id: typeof call.id === "string" && call.id ? call.id : newId("call"),
      name: String(call.function?.name ?? ""),
      arguments: typeof call.function?.arguments === "string" ? call.function.arguments : JSON.stringify(call.function?.arguments ?? {}),
      status: "completed",
    });
  }
  if (tokens) {
    // The ids must ride on an item even when the model said nothing visible (e.g. only an end token).
    if (output.length === 0) {
      output.push({ id: newId("msg"), type: "message", role: "assistant", status: incomplete ? "incomplete" : "completed", content: [{ type: "output_text", text: content, annotations: [] }] });
    }
    Object.assign(output[output.length - 1]!, tokens);
  }
  return buildResponse(params, {
    model: typeof completion.model === "string" ? completion.model : options.model,
    output,
    incomplete,
    usage: chatUsage(completion.usage),
    ...(typeof completion.created === "number" ? { createdAt: completion.created } : {}),
  });
}
