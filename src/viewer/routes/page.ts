// The page at `/` for browsers (other clients get the `{"status":"ok"}` every Gymkit server answers
// there), and the security headers on every answer of the viewer.
import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

function sendPage(reply: FastifyReply, page: (nonce: string) => string) {
  // Row text is only ever put into the page as text (never markup); the policy is a second wall:
  // only the page's own script and style run, and nothing loads from elsewhere.
  const nonce = randomBytes(16).toString("base64");
  return reply
    .header(
      "content-security-policy",
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    )
    .type("text/html; charset=utf-8")
    .send(page(nonce));
}

/** `page` renders the page for a nonce (page.ts). */
export function pageRoute(app: FastifyInstance, page: (nonce: string) => string): void {
  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    // The Host check (DNS rebinding) is the server factory's, as for every Gymkit server.
    reply.headers(SECURITY_HEADERS);
    if (request.method === "GET" && request.url.split("?")[0] === "/" && /text\/html/.test(request.headers.accept ?? "")) {
      return sendPage(reply, page);
    }
  });
}
