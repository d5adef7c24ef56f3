// Exit codes and the one way the CLI reports a fatal error: a single paragraph naming the cause.
import { redactUrlsIn } from "../config/url_secrets.js";
import { fileErrorFrom, isFsError } from "../config/file_errors.js";

export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  missing: 3,
  tooManyFailures: 4,
} as const;

/** Errors whose message is already a complete, user-facing paragraph (no stack trace needed). */
const USER_ERRORS = new Set(["ConfigError", "JsonlError", "InputError", "UsageError", "ModelUnreachableError", "FileError"]);

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Node's name for what a failed fs call was doing, in words ("cannot open …"). */
const ACTIONS: Record<string, string> = { open: "open", read: "read", write: "write", mkdir: "create the folder", rmdir: "remove", unlink: "remove", rename: "rename", scandir: "list the folder", stat: "read", lstat: "read", access: "use", copyfile: "copy" };

export function exitCodeFor(error: unknown): number {
  return error instanceof Error && (USER_ERRORS.has(error.name) || isFsError(error)) ? EXIT.usage : EXIT.unexpected;
}

export function fail(error: unknown, code: number = exitCodeFor(error)): never {
  // A file problem no command checked for up front still gets one line naming the path, not a stack.
  if (isFsError(error) && error.path !== undefined) error = fileErrorFrom(error, ACTIONS[error.syscall ?? ""] ?? "use", error.path);
  const isUserError = error instanceof Error && (USER_ERRORS.has(error.name) || isFsError(error));
  const text = error instanceof Error ? (isUserError || !error.stack ? error.message : error.stack) : String(error);
  // The last line of defence: whatever quoted a URL on the way up, its password does not reach the terminal.
  process.stderr.write(`gym: error: ${redactUrlsIn(text)}\n`);
  process.exit(code);
}
