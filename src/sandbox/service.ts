// `POST /execute`, compatible with NeMo-Skills' sandbox API, so its clients (and any environment or
// tool) can run code here: `generated_code`, `timeout` (s), `language`, `std_input`,
// `max_output_characters` → `process_status` completed|timeout|error, `stdout`, `stderr`.
// `ipython` — the NeMo-Skills clients' default — is a stateful session per `X-Session-ID` header
// (one-shot without the header); `GET /sessions` lists them, `DELETE /sessions/<id>` ends one.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { HttpError, parseOr422 } from "../http/errors.js";
import { createServer } from "../http/server.js";
import { isLanguage, LANGUAGES, programFor } from "./languages.js";
import type { Sandbox } from "./runner.js";
import { SessionManager, SessionsExhaustedError } from "./sessions.js";
import type { RunStatus } from "./types.js";

export const SESSION_HEADER = "x-session-id";
/** Longest timeout a caller may ask for, in seconds. */
const MAX_TIMEOUT_S = 3600;
/** Program text plus standard input: generous for generated code and test inputs, fixed. */
export const EXECUTE_BODY_LIMIT = 16 * 1024 * 1024;

const ExecuteRequest = z.looseObject({
  generated_code: z.string(),
  timeout: z.number().positive().max(MAX_TIMEOUT_S).default(10),
  language: z.string().default("ipython"),
  std_input: z.string().default(""),
  max_output_characters: z.number().int().positive().default(1000),
});

export interface ExecuteReply {
  process_status: "completed" | "timeout" | "error";
  stdout: string;
  stderr: string;
}

export interface ServiceOptions {
  sandbox: Sandbox;
  /** Instance name (names the server's session cookie). */
  name?: string;
  /** Sessions idle this long are closed. Default 10 minutes. */
  sessionIdleMs?: number;
}

/** NeMo-Skills' truncation: the first N characters, then a marker. */
export function cutOutput(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}<output cut>` : text;
}

export function processStatus(status: RunStatus): ExecuteReply["process_status"] {
  if (status === "ok") return "completed";
  return status === "timeout" ? "timeout" : "error";
}

export async function buildSandboxService(options: ServiceOptions): Promise<{ app: FastifyInstance; sessions: SessionManager }> {
  const { sandbox } = options;
  const sessions = new SessionManager(sandbox, { idleMs: options.sessionIdleMs });
  const app = createServer({ name: options.name ?? "sandbox" });
  app.addHook("onClose", async () => sessions.close());

  app.get("/health", async () => ({ status: "healthy", isolation: sandbox.isolation }));

  app.post("/execute", { bodyLimit: EXECUTE_BODY_LIMIT }, async (request, reply) => {
    const body = parseOr422(ExecuteRequest, request.body);
    if (!isLanguage(body.language)) {
      throw new HttpError(400, "unsupported language", {
        detail: `unsupported language "${body.language}"; supported: ${LANGUAGES.join(", ")}`,
      });
    }
    const timeoutMs = body.timeout * 1000;
    const sessionId = headerValue(request.headers[SESSION_HEADER]);
    let status: RunStatus;
    let stdout: string;
    let stderr: string;
    if (body.language === "ipython" && sessionId) {
      try {
        ({ status, stdout, stderr } = await sessions.execute(sessionId, body.generated_code, timeoutMs));
      } catch (error) {
        if (error instanceof SessionsExhaustedError) throw new HttpError(503, error.message, { detail: error.message });
        throw error;
      }
      reply.header("X-Session-ID", sessionId);
    } else {
      const result = await sandbox.run({
        ...programFor(body.language, body.generated_code),
        stdin: body.std_input,
        limits: { wallMs: timeoutMs },
      });
      if (result.status === "sandbox_error") throw new Error(`sandbox error: ${result.reason}`);
      ({ status, stdout, stderr } = result);
    }
    if (status === "timeout" && !stderr) stderr = "Timed out\n";
    const out: ExecuteReply = {
      process_status: processStatus(status),
      stdout: cutOutput(stdout, body.max_output_characters),
      stderr: cutOutput(stderr, body.max_output_characters),
    };
    return reply.type("application/json").send(JSON.stringify(out));
  });

  app.get("/sessions", async () => ({ sessions: sessions.list() }));

  app.delete<{ Params: { id: string } }>("/sessions/:id", async (request) => {
    const deleted = await sessions.delete(request.params.id);
    if (!deleted) throw new HttpError(404, "no such session", { detail: `no session "${request.params.id}"` });
    return { status: "deleted", session_id: request.params.id };
  });

  return { app, sessions };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first && first.length > 0 ? first : undefined;
}
