// What a model adapter is: the one interface every engine behind a Gymkit model server implements
// (the shape of the Vercel AI SDK's `LanguageModel`). It speaks protocol types only — a Responses
// request in, a Responses object out — and knows nothing of HTTP: `buildModelServer` (server.ts)
// serves any adapter as `/v1/responses`, `/v1/chat/completions` and `/v1/models`, and
// `withRecording` (recorded.ts) records any adapter's answers for replay_model.
//
// A new engine is one file, `src/models/<id>.ts`, plus its line in orchestrate/registry.ts:
//
//   export const MyModelConfig = z.strictObject({ model: z.string(), ...RecordingFields });
//   export function myAdapter(config: MyModelConfig): ModelAdapter {
//     return {
//       models: () => [config.model],
//       // Which column of request_fields.ts applies (add one if none fits the engine).
//       requestFields: "vllm_model",
//       async createResponse(params, context) {
//         // params: validated ResponsesCreateParams (never a stream). Call the engine, honour
//         // context.signal, stick to context.rollout if the engine has replicas; return a whole
//         // ResponseObject (response_object.ts builds one). Token capture goes on the last output
//         // item as prompt_token_ids / generation_token_ids / generation_log_probs. Throw
//         // HttpError(status, message) for what the caller should hear as that status.
//       },
//     };
//   }
//   export default {
//     type: "responses_api_models", id: "my_model", configSchema: MyModelConfig,
//     build: async ({ name, config }) => buildModelServer({ name, id: "my_model", adapter: myAdapter(config), recordPath: config.record_path }),
//   } satisfies ServerImplementation<MyModelConfig>;
//
// The optional members are the adapter's capabilities; the server offers what an adapter has.
import type { ResponseObject, ResponsesCreateParams, RolloutRef } from "../protocol/index.js";
import type { RequestFieldsKind } from "./request_fields.js";

/** What a call knows beyond its request. */
export interface ModelRequestContext {
  /** The rollout the call belongs to (from the `x-gymkit-rollout` header); null when the caller did not say. */
  rollout: RolloutRef | null;
  /** Which judge call of the rollout's verification this is (the `x-gymkit-judge-call` header); null for policy calls. */
  judgeCall?: number | null;
  /** Aborted when the caller hangs up, so an abandoned call stops costing engine time. */
  signal: AbortSignal;
}

export interface ModelAdapter {
  /** Model ids listed by `GET /v1/models`. */
  models(): string[];
  /** Which column of request_fields.ts applies: the server refuses what this kind cannot honour before calling the adapter. */
  requestFields: RequestFieldsKind;
  /** One model call: the whole response, with the token fields on its last output item when the engine captures them. */
  createResponse(params: ResponsesCreateParams, context: ModelRequestContext): Promise<ResponseObject>;
  /**
   * Capability: a Chat Completions passthrough, for adapters whose engine speaks it (the body is
   * checked to be a non-streaming Chat Completions request; the engine's reply is returned as is).
   * Without it the server answers 404 on `/v1/chat/completions`.
   */
  chatCompletions?(body: Record<string, unknown>, context: ModelRequestContext): Promise<unknown>;
  /** Capability: releases what the adapter holds (an in-process engine); called once when its server closes. */
  close?(): Promise<void>;
}
