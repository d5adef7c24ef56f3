// The typed failures of a protocol-neutral episode (episode.ts). Each protocol layer maps `code` to
// its own error shape (OpenEnv's WebSocket error codes, MCP's tool errors, ORS's HTTP errors); none of
// them is a crash of the server.

export type EpisodeErrorCode =
  /** A step, tool call or answer before `reset`. */
  | "not_reset"
  /** The episode was closed (or its connection went away). */
  | "closed"
  /** The episode ended (a final answer was scored, or the environment terminated it): reset first. */
  | "done"
  /** A tool the episode's row does not offer (or the environment does not serve). */
  | "unknown_tool"
  /** Arguments or an action the environment refused, or that are not what the protocol takes. */
  | "invalid_args"
  /** A dataset row that does not exist (index out of range, no rows configured) or is malformed. */
  | "bad_row"
  /** The environment server failed, could not be reached, or answered something not its protocol. */
  | "environment_error";

export class EpisodeError extends Error {
  constructor(
    readonly code: EpisodeErrorCode,
    message: string,
    /** What the environment answered, when the failure is its reply (HTTP status and body text). */
    readonly upstream?: { status?: number; body?: string },
  ) {
    super(message);
    this.name = "EpisodeError";
  }
}

export function isEpisodeError(error: unknown): error is EpisodeError {
  return error instanceof EpisodeError;
}
