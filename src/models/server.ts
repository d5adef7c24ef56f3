// The one piece that turns a model adapter (adapter.ts) into a model server: whatever the engine
// behind it, a Gymkit model server speaks the same HTTP — `POST /v1/responses`,
// `POST /v1/chat/completions` where the adapter has that capability, `GET /v1/models` — validates
// the same way, and records the same way. Adapters only turn a Responses request into a response.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { HttpError, parseOr422 } from "../http/errors.js";
import { abortOnHangUp } from "../http/reply.js";
import { createServer, rolloutBodyLimit } from "../http/server.js";
import { JUDGE_CALL_HEADER, ResponsesCreateParams, ROLLOUT_HEADER } from "../protocol/index.js";
import type { ModelAdapter, ModelRequestContext } from "./adapter.js";
import { addOpenAIErrorBodies } from "./openai_errors.js";
import { withRecording } from "./recorded.js";
import { createParamsAsParsed } from "../protocol/fast_parse.js";
import { refuseUnhonoured } from "./request_fields.js";
import { ResponseStore } from "./response_store.js";
import { parseRolloutHeader } from "./rollout_header.js";

export interface ModelServerOptions {
  /** Instance name (names the session cookie, as for every Gymkit server). */
  name: string;
  /** Implementation id, for error messages. */
  id: string;
  adapter: ModelAdapter;
  /** Append every served Responses call to this JSONL, in replay format (the engine's `record_path`). */
  recordPath?: string | null | undefined;
}

/** The Chat Completions body is the engine's business; we only check it is one and not a stream. */
const ChatBody = z.looseObject({ messages: z.array(z.unknown()), stream: z.boolean().nullish() });

/** Said for a streamed Chat Completions request (the Responses ones are refused by request_fields.ts). */
const STREAMING_UNSUPPORTED =
  "streaming is not supported by Gymkit model servers: send stream: false (or omit it); rollouts need the whole response anyway";

function requestContext(request: FastifyRequest, reply: FastifyReply): ModelRequestContext {
  const rollout = parseRolloutHeader(request.headers[ROLLOUT_HEADER]);
  const judgeCall = request.headers[JUDGE_CALL_HEADER];
  const ordinal = typeof judgeCall === "string" && /^\d+$/.test(judgeCall) ? Number(judgeCall) : null;
  return { rollout, judgeCall: ordinal, signal: abortOnHangUp(reply.raw) };
}

export function buildModelServer(options: ModelServerOptions): FastifyInstance {
  const adapter = options.recordPath ? withRecording(options.adapter, options.recordPath) : options.adapter;
  const app = createServer({ name: options.name });
  if (adapter.close) app.addHook("onClose", async () => adapter.close?.());
  addOpenAIErrorBodies(app);
  // A conversation with token ids of every earlier turn runs to tens of MiB.
  const carriesRollouts = { bodyLimit: rolloutBodyLimit() };

  // previous_response_id: resolved here, unless the engine behind keeps its own responses.
  const store = adapter.requestFields === "openai_model" ? null : new ResponseStore();

  app.post("/v1/responses", carriesRollouts, async (request, reply) => {
    // The quick parse gives what the schema would (key order too); the schema runs when it is not sure.
    const params = (createParamsAsParsed(request.body) as ResponsesCreateParams | undefined) ?? parseOr422(ResponsesCreateParams, request.body);
    // Every field is honoured or refused with a 400 naming it (request_fields.ts).
    refuseUnhonoured(params, adapter.requestFields, options.id);
    if (!store) return adapter.createResponse(params, requestContext(request, reply));
    const expanded = store.expand(params, options.id);
    const response = await adapter.createResponse(expanded, requestContext(request, reply));
    store.keep(expanded, response, Number(request.headers["content-length"] ?? 0));
    if (params.previous_response_id) return { ...response, previous_response_id: params.previous_response_id };
    return response;
  });

  app.post("/v1/chat/completions", carriesRollouts, async (request, reply) => {
    if (!adapter.chatCompletions) {
      throw new HttpError(404, `${options.id} does not serve /v1/chat/completions; use POST /v1/responses`);
    }
    const body = parseOr422(ChatBody, request.body);
    if (body.stream) throw new HttpError(400, STREAMING_UNSUPPORTED);
    return adapter.chatCompletions(body, requestContext(request, reply));
  });

  app.get("/v1/models", async () => ({
    object: "list",
    data: adapter.models().map((id) => ({ id, object: "model", created: 0, owned_by: "gymkit" })),
  }));

  return app;
}
