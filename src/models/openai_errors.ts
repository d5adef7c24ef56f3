// Error bodies both kinds of client can read. Gymkit servers answer errors FastAPI-style
// (`{"detail": …}`, what NeMo Gym clients parse); OpenAI SDKs read only `error.message` and would
// report "(no body)". A model server is an OpenAI endpoint, so it adds the OpenAI shape beside.
import type { FastifyInstance } from "fastify";

function detailText(detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: { loc?: unknown[]; msg?: unknown }) => (Array.isArray(d?.loc) ? `${d.loc.join(".")}: ${String(d.msg)}` : JSON.stringify(d)))
      .join("; ");
  }
  return JSON.stringify(detail);
}

export function addOpenAIErrorBodies(app: FastifyInstance): void {
  app.addHook("onSend", async (_request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== "string") return payload;
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      return payload;
    }
    if (!body || typeof body !== "object" || Array.isArray(body) || !("detail" in body) || "error" in body) return payload;
    const type = reply.statusCode >= 500 ? "server_error" : "invalid_request_error";
    return JSON.stringify({ ...body, error: { message: detailText(body.detail), type, param: null, code: null } });
  });
}
