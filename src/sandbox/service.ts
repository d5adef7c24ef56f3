// `POST /execute`, compatible with NeMo-Skills' sandbox API, so its clients (and any environment or
// tool) can run code here: `generated_code`, `timeout` (s), `language`, `std_input`,
// `max_output_characters` → `process_status` completed|timeout|error, `stdout`, `stderr`. Gymkit adds
// fields NeMo-Skills clients ignore: `sandbox_status` and `reason` (why a run that did not complete
// stopped) and `warning` (the session was restarted empty); the reason of a limit kill and the
// warning are also lines on stderr, which is what those clients show the model.
// `ipython` — the NeMo-Skills clients' default — is a stateful session per `X-Session-ID` header
// (one-shot without the header); `GET /sessions` lists them, `DELETE /sessions/<id>` ends one.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { HttpError, parseOr422 } from "../http/errors.js";
import { createServer } from "../http/server.js";
import { sendJson } from "../http/reply.js";
import { isLanguage, LANGUAGES, programFor } from "./languages.js";
import type { Sandbox } from "./runner.js";
import { SessionManager, SessionsExhaustedError } from "./sessions.js";
import type { RunLimits, RunStatus } from "./types.js";

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
  /** Gymkit's own status when not `ok` (runtime_error, timeout, memory, output_limit). */
  sandbox_status?: RunStatus;
  /** Why it stopped, in words: "killed: memory limit 512 MiB exceeded". */
  reason?: string;
  /** The ipython session was restarted empty before this cell, and why. */
  warning?: string;
}

/** Statuses whose cause the program's own stderr cannot show (the sandbox stopped it): said on stderr. */
const STOPPED_BY_SANDBOX = new Set<RunStatus>(["memory", "output_limit"]);

/** What `/execute` (and a tool built on it) answers for a run or a cell. */
export function executeReply(result: { status: RunStatus; stdout: string; stderr: string; reason?: string; warning?: string }, maxCharacters: number): ExecuteReply {
  let stderr = cutOutput(result.status === "timeout" && !result.stderr ? "Timed out\n" : result.stderr, maxCharacters);
  // The sandbox's own lines go outside the cut: a flood must not push them out of sight.
  if (result.reason && STOPPED_BY_SANDBOX.has(result.status)) stderr = `${stderr}${stderr && !stderr.endsWith("\n") ? "\n" : ""}sandbox: ${result.reason}\n`;
  if (result.warning) stderr = `sandbox: warning: ${result.warning}\n${stderr}`;
  return {
    process_status: processStatus(result.status),
    stdout: cutOutput(result.stdout, maxCharacters),
    stderr,
    ...(result.status === "ok" ? {} : { sandbox_status: result.status, ...(result.reason ? { reason: result.reason } : {}) }),
    ...(result.warning ? { warning: result.warning } : {}),
  };
}

export interface ServiceOptions {
  sandbox: Sandbox;
  /** Instance name (names the server's session cookie). */
  name?: string;
  /** Sessions idle this long are closed. Default 10 minutes. */
  sessionIdleMs?: number;
  /** Limits of every run and session besides the request's timeout (memory, output bytes, …). */
  limits?: Partial<Omit<RunLimits, "wallMs">>;
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
  const sessions = new SessionManager(sandbox, { idleMs: options.sessionIdleMs, limits: options.limits });
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
    let result: Parameters<typeof executeReply>[0];
    if (body.language === "ipython" && sessionId) {
      try {
        result = await sessions.execute(sessionId, body.generated_code, timeoutMs);
      } catch (error) {
        if (error instanceof SessionsExhaustedError) throw new HttpError(503, error.message, { detail: error.message });
        throw error;
      }
      reply.header("X-Session-ID", sessionId);
    } else {
      result = await sandbox.run({
        ...programFor(body.language, body.generated_code),
        stdin: body.std_input,
        limits: { ...options.limits, wallMs: timeoutMs },
      });
      if (result.status === "sandbox_error") throw new Error(`sandbox error: ${result.reason}`);
    }
    return sendJson(reply, executeReply(result, body.max_output_characters));
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
