// The OpenAI Responses API subset Gymkit speaks, as zod schemas.
// Objects are "loose" (unknown keys pass through untouched) except the create-params body, which
// rejects unknown keys like NeMo Gym does so that `max_tokens`-style typos fail loudly.
import { z } from "zod";

/** Token fields carried on the last output item of each model call when token capture is on. */
export const TokenFields = {
  prompt_token_ids: z.array(z.number().int()).optional(),
  generation_token_ids: z.array(z.number().int()).optional(),
  generation_log_probs: z.array(z.number()).optional(),
};

export const InputTextPart = z.looseObject({ type: z.literal("input_text"), text: z.string() });
export const OutputTextPart = z.looseObject({
  type: z.literal("output_text"),
  text: z.string(),
  annotations: z.array(z.unknown()).optional(),
});
export const ContentPart = z.looseObject({ type: z.string() });

export const MessageRole = z.enum(["user", "system", "developer", "assistant"]);

export const MessageItem = z.looseObject({
  type: z.literal("message").optional(),
  role: MessageRole,
  content: z.union([z.string(), z.array(ContentPart)]),
  id: z.string().nullish(),
  status: z.string().nullish(),
  ...TokenFields,
});

export const FunctionCallItem = z.looseObject({
  type: z.literal("function_call"),
  name: z.string(),
  arguments: z.string(),
  call_id: z.string(),
  id: z.string().nullish(),
  status: z.string().nullish(),
  ...TokenFields,
});

export const FunctionCallOutputItem = z.looseObject({
  type: z.literal("function_call_output"),
  call_id: z.string(),
  output: z.union([z.string(), z.array(ContentPart)]),
  id: z.string().nullish(),
  status: z.string().nullish(),
});

export const ReasoningItem = z.looseObject({
  type: z.literal("reasoning"),
  id: z.string().nullish(),
  summary: z.array(z.looseObject({ type: z.string(), text: z.string() })).default([]),
  content: z.array(z.looseObject({ type: z.string(), text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
  ...TokenFields,
});

/** Any item the model may be given. A message may omit `type` (the API allows "easy" messages). */
export const InputItem = z.union([MessageItem, FunctionCallItem, FunctionCallOutputItem, ReasoningItem]);

/** Output items: the known kinds, and any other typed item (passed through untouched). */
export const OutputItem = z.union([
  MessageItem.extend({ type: z.literal("message") }),
  FunctionCallItem,
  FunctionCallOutputItem,
  ReasoningItem,
  z.looseObject({ type: z.string() }),
]);

export const FunctionTool = z.looseObject({
  type: z.literal("function"),
  name: z.string(),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
export const Tool = z.union([FunctionTool, z.looseObject({ type: z.string() })]);

/**
 * The body of `POST /v1/responses` (non-streaming). Strict: an unknown key is a 422 naming it.
 * The key list is OpenAI's `ResponseCreateParams` (openai SDK 6.49); what each model server does
 * with each key is models/request_fields.ts.
 */
export const ResponsesCreateParams = z.strictObject({
  input: z.union([z.string(), z.array(InputItem)]),
  background: z.boolean().nullish(),
  context_management: z.unknown().optional(),
  conversation: z.unknown().optional(),
  include: z.array(z.string()).nullish(),
  instructions: z.string().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  max_tool_calls: z.number().int().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  model: z.string().nullish(),
  moderation: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  prompt: z.unknown().optional(),
  prompt_cache_key: z.string().nullish(),
  prompt_cache_options: z.unknown().optional(),
  prompt_cache_retention: z.string().nullish(),
  reasoning: z.looseObject({}).nullish(),
  safety_identifier: z.string().nullish(),
  service_tier: z.string().nullish(),
  store: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.unknown().optional(),
  temperature: z.number().nullish(),
  text: z.unknown().optional(),
  tool_choice: z.unknown().optional(),
  tools: z.array(Tool).nullish(),
  top_logprobs: z.number().int().nullish(),
  top_p: z.number().nullish(),
  truncation: z.string().nullish(),
  user: z.string().nullish(),
  // Sampling seed: an extension vLLM and SGLang honour; `--num-repeats-add-seed` sets it.
  seed: z.number().int().nullish(),
});

export const Usage = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  input_tokens_details: z.looseObject({ cached_tokens: z.number() }).optional(),
  output_tokens_details: z.looseObject({ reasoning_tokens: z.number() }).optional(),
});

export const ResponseStatus = z.enum(["completed", "incomplete", "failed", "in_progress", "cancelled", "queued"]);

export const ResponseObject = z.looseObject({
  id: z.string(),
  object: z.literal("response"),
  created_at: z.number(),
  model: z.string(),
  output: z.array(OutputItem),
  // Optional[ResponseStatus] = None in the OpenAI SDK model NeMo Gym validates with: null is accepted.
  status: ResponseStatus.nullish(),
  incomplete_details: z.looseObject({ reason: z.string() }).nullish(),
  error: z.unknown().optional(),
  usage: Usage.nullish(),
});

export type InputItem = z.infer<typeof InputItem>;
export type OutputItem = z.infer<typeof OutputItem>;
export type MessageItem = z.infer<typeof MessageItem>;
export type FunctionCallItem = z.infer<typeof FunctionCallItem>;
export type FunctionCallOutputItem = z.infer<typeof FunctionCallOutputItem>;
export type ReasoningItem = z.infer<typeof ReasoningItem>;
export type FunctionTool = z.infer<typeof FunctionTool>;
export type ResponsesCreateParams = z.infer<typeof ResponsesCreateParams>;
export type Usage = z.infer<typeof Usage>;
export type ResponseObject = z.infer<typeof ResponseObject>;

/** The concatenated `output_text` of every assistant message, as the OpenAI SDK's `output_text`. */
export function outputText(response: { output: readonly unknown[] }): string {
  let text = "";
  for (const item of response.output as Array<Record<string, unknown>>) {
    if (item.type !== "message" || !Array.isArray(item.content)) continue;
    for (const part of item.content as Array<Record<string, unknown>>) {
      if (part.type === "output_text" && typeof part.text === "string") text += part.text;
    }
  }
  return text;
}

export function emptyUsage(): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    total_tokens: 0,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
}

/** Adds the numbers of two detail objects key by key (a key either lacks counts as 0); other values of `a` are kept. */
function addDetails(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...b, ...a };
  for (const [key, value] of Object.entries(b ?? {})) {
    const mine = a?.[key];
    if (typeof value === "number" && (typeof mine === "number" || mine === undefined)) out[key] = (mine ?? 0) + value;
  }
  return out;
}

/** Adds usage b into a: the token counts and every count of the details (an engine's own, too); other fields of a are kept. */
export function addUsage(a: Usage, b: Usage | null | undefined): Usage {
  if (!b) return a;
  return {
    ...a,
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    input_tokens_details: addDetails({ cached_tokens: 0, ...a.input_tokens_details }, { cached_tokens: 0, ...b.input_tokens_details }) as Usage["input_tokens_details"],
    output_tokens_details: addDetails({ reasoning_tokens: 0, ...a.output_tokens_details }, { reasoning_tokens: 0, ...b.output_tokens_details }) as Usage["output_tokens_details"],
  };
}
