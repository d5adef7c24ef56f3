// Exit codes and the one way the CLI reports a fatal error: a single paragraph naming the cause.
import { redactUrlsIn } from "../http/url_secrets.js";

export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  missing: 3,
  tooManyFailures: 4,
} as const;

/** Errors whose message is already a complete, user-facing paragraph (no stack trace needed). */
const USER_ERRORS = new Set(["ConfigError", "JsonlError", "InputError", "UsageError", "ModelUnreachableError"]);

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export function exitCodeFor(error: unknown): number {
  return error instanceof Error && USER_ERRORS.has(error.name) ? EXIT.usage : EXIT.unexpected;
}

export function fail(error: unknown, code: number = exitCodeFor(error)): never {
  const isUserError = error instanceof Error && USER_ERRORS.has(error.name);
  const text = error instanceof Error ? (isUserError || !error.stack ? error.message : error.stack) : String(error);
  // The last line of defence: whatever quoted a URL on the way up, its password does not reach the terminal.
  process.stderr.write(`gym: error: ${redactUrlsIn(text)}\n`);
  process.exit(code);
}
