// Exit codes and the one way the CLI reports a fatal error: a single paragraph naming the cause.
import { redactUrlsIn } from "../config/url_secrets.js";
import { fileErrorFrom, isFsError } from "../config/file_errors.js";
import { UserError } from "../config/user_error.js";

export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  missing: 3,
  tooManyFailures: 4,
  /** The engine went away mid-run (a --model-server-cmd that exited, or every replica unreachable): the rest is left for --resume. */
  engineUnavailable: 5,
} as const;

/** A flag or argument the command cannot use (its checks beyond what commander does). */
export class UsageError extends UserError {}

/** Node's name for what a failed fs call was doing, in words ("cannot open …"). */
const ACTIONS: Record<string, string> = { open: "open", read: "read", write: "write", mkdir: "create the folder", rmdir: "remove", unlink: "remove", rename: "rename", scandir: "list the folder", stat: "read", lstat: "read", access: "use", copyfile: "copy" };

/** The user's to fix, and said in full by its message: a UserError, or a file Node could not use. */
function isUserError(error: unknown): boolean {
  return error instanceof UserError || isFsError(error);
}

export function exitCodeFor(error: unknown): number {
  return isUserError(error) ? EXIT.usage : EXIT.unexpected;
}

export function fail(error: unknown, code: number = exitCodeFor(error)): never {
  // A file problem no command checked for up front still gets one line naming the path, not a stack.
  if (isFsError(error) && error.path !== undefined) error = fileErrorFrom(error, ACTIONS[error.syscall ?? ""] ?? "use", error.path);
  const text = error instanceof Error ? (isUserError(error) || !error.stack ? error.message : error.stack) : String(error);
  // The last line of defence: whatever quoted a URL on the way up, its password does not reach the terminal.
  process.stderr.write(`gym: error: ${redactUrlsIn(text)}\n`);
  process.exit(code);
}
