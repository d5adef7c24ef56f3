// Errors that map to HTTP statuses. Validation failures use FastAPI's 422 `{"detail":[...]}` shape
// so that NeMo Gym clients (and people used to them) read them the same way.
import type { z } from "zod";

export interface ValidationDetail {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input?: unknown;
}

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export class RequestValidationError extends HttpError {
  constructor(readonly detail: ValidationDetail[]) {
    super(422, detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; "), { detail });
    this.name = "RequestValidationError";
  }
}

/** Turns zod issues into FastAPI-style details, rooted at `loc` (e.g. ["body"]). */
export function zodDetails(error: z.ZodError, root: Array<string | number> = ["body"]): ValidationDetail[] {
  return error.issues.flatMap((issue): ValidationDetail[] => {
    const loc = [...root, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    if (issue.code === "unrecognized_keys") {
      // One entry per key with the key in `loc`, as FastAPI/pydantic report it.
      return issue.keys.map((key) => ({ type: "extra_forbidden", loc: [...loc, key], msg: "Extra inputs are not permitted" }));
    }
    if (issue.code === "invalid_type" && /received undefined/.test(issue.message)) {
      return [{ type: "missing", loc, msg: "Field required" }];
    }
    return [{ type: issue.code, loc, msg: issue.message }];
  });
}

/** Parses `value` with `schema`, throwing a 422-mapped error naming every bad field. */
export function parseOr422<S extends z.ZodType>(schema: S, value: unknown, root: Array<string | number> = ["body"]): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new RequestValidationError(zodDetails(result.error, root));
  return result.data;
}
