// The one builder for model servers: whatever the engine behind it, a Gymkit model server speaks
// the same HTTP — `POST /v1/responses`, `POST /v1/chat/completions`, `GET /v1/models` — validates
// the same way, and records the same way. Adapters only turn a Responses request into a response.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { HttpError, parseOr422 } from "../http/errors.js";
import { abortOnHangUp } from "../http/reply.js";
import { createServer, rolloutBodyLimit } from "../http/server.js";
import { ResponsesCreateParams, type ResponseObject, ROLLOUT_HEADER, type RolloutRef } from "../protocol/index.js";
import { addOpenAIErrorBodies } from "./openai_errors.js";
import { Recorder } from "./recording.js";
import { parseRolloutHeader } from "./rollout_header.js";

export interface ModelRequestContext {
  /** From the `x-gymkit-rollout` header; null when the caller did not say. */
  rollout: RolloutRef | null;
  /** Aborted when the caller hangs up, so an abandoned call stops costing engine time. */
  signal: AbortSignal;
}

export interface ModelAdapter {
  /** Model ids listed by `GET /v1/models`. */
  models(): string[];
  createResponse(params: ResponsesCreateParams, context: ModelRequestContext): Promise<ResponseObject>;
  /** A Chat Completions passthrough, for adapters whose engine speaks it. */
  chatCompletions?(body: Record<string, unknown>, context: ModelRequestContext): Promise<unknown>;
}

export interface ModelServerOptions {
  /** Instance name (names the session cookie, as for every Gymkit server). */
  name: string;
  /** Implementation id, for error messages. */
  id: string;
  adapter: ModelAdapter;
  /** Append every served Responses call to this JSONL, in replay format. */
  recordPath?: string | null | undefined;
}

/** The Chat Completions body is the engine's business; we only check it is one and not a stream. */
const ChatBody = z.looseObject({ messages: z.array(z.unknown()), stream: z.boolean().nullish() });

const STREAMING_UNSUPPORTED =
  "streaming is not supported by Gymkit model servers: send stream: false (or omit it); rollouts need the whole response anyway";

function requestContext(request: FastifyRequest, reply: FastifyReply): ModelRequestContext {
  const rollout = parseRolloutHeader(request.headers[ROLLOUT_HEADER]);
  return { rollout, signal: abortOnHangUp(reply.raw) };
}

export function buildModelServer(options: ModelServerOptions): FastifyInstance {
  const { adapter } = options;
  const recorder = options.recordPath ? new Recorder(options.recordPath) : undefined;
  const app = createServer({ name: options.name });
  addOpenAIErrorBodies(app);
  // A conversation with token ids of every earlier turn runs to tens of MiB.
  const carriesRollouts = { bodyLimit: rolloutBodyLimit() };

  app.post("/v1/responses", carriesRollouts, async (request, reply) => {
    const params = parseOr422(ResponsesCreateParams, request.body);
    if (params.stream) throw new HttpError(400, STREAMING_UNSUPPORTED);
    const context = requestContext(request, reply);
    const response = await adapter.createResponse(params, context);
    recorder?.append(context.rollout, params, response);
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
