// What every route handler needs around its reply: a JSON body sent as JSON whatever its value, and
// a signal that tells the work done for a request that its asker has gone.
import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import { stringifyWithFloats, type FloatShape } from "../protocol/python_json.js";

/**
 * Sends `value` as a JSON body, even a bare string (Fastify would send a string as text/plain), so
 * the caller can hand the body on as it is (an agent gives a tool's result to the model unchanged).
 * With `floats`, the integral numbers it names are written as Python floats (`1.0`), as NeMo Gym's do.
 */
export function sendJson(reply: FastifyReply, value: unknown, floats?: FloatShape): FastifyReply {
  return reply.type("application/json").send(floats ? stringifyWithFloats(value, floats) : JSON.stringify(value));
}

/**
 * An abort signal that fires, with `reason` as its error, when the client closes the connection
 * before the response has finished: calls made on its behalf (a rollout's model calls, a stream of
 * rollouts) stop instead of running on for nobody. `close` follows a normal end too; only a close
 * before the end is a hang-up.
 */
export function abortOnHangUp(response: ServerResponse, reason = "the caller closed the connection"): AbortSignal {
  const controller = new AbortController();
  response.on("close", () => {
    if (!response.writableFinished) controller.abort(new Error(reason));
  });
  return controller.signal;
}
