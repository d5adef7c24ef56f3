// The verify response shape of NeMo Gym's rubric-judged servers (multichallenge, inverse_if at
// 07d6b0d): the server's declared fields first, then what is left of the request (its declared
// optional fields, null when absent, then the row's other fields in arrival order), minus the fields
// the server pops. A row field named like one of the response's own fields is the TypeError NeMo
// Gym's `Response(**payload, reward=..., ...)` raises: an error, not a silently replaced value.

/** The request's remaining fields as NeMo Gym's `body.model_dump()` minus `popped` carries them. */
export function carriedRowFields(
  request: Record<string, unknown>,
  declared: readonly string[],
  popped: readonly string[],
  own: readonly string[],
): Record<string, unknown> {
  const skip = new Set(["responses_create_params", "response", ...popped]);
  const clash = Object.keys(request).filter((key) => !skip.has(key) && (own.includes(key) || key === "reward"));
  if (clash.length > 0) {
    throw new TypeError(`the row carries ${clash.map((k) => JSON.stringify(k)).join(", ")}, which the verify response sets itself (NeMo Gym: "got multiple values for keyword argument")`);
  }
  const carried: Record<string, unknown> = {};
  for (const key of declared) if (!skip.has(key)) carried[key] = request[key] ?? null;
  for (const [key, value] of Object.entries(request)) if (!skip.has(key) && !(key in carried)) carried[key] = value;
  return carried;
}

/**
 * A rubric taken from a row's metadata (NeMo Gym iterates whatever is there): a list of objects;
 * an empty list, string or object is no criteria; anything else fails as NeMo Gym's `len()` / `.get`
 * would.
 */
export function rubricItems(value: unknown, where: string): Array<Record<string, unknown>> {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (item === null || typeof item !== "object" || Array.isArray(item)) throw new TypeError(`${where}: every rubric item must be an object, got ${JSON.stringify(item)}`);
    }
    return value as Array<Record<string, unknown>>;
  }
  if (value === "" || (value !== null && typeof value === "object" && Object.keys(value).length === 0)) return [];
  throw new TypeError(`${where}: the rubric must be a list of objects, got ${JSON.stringify(value)}`);
}

/** A field NeMo Gym's response model types `str`: anything else is its validation error. */
export function requireString(value: unknown, field: string): string {
  if (typeof value !== "string") throw new TypeError(`${field} must be a string (NeMo Gym's verify response model requires one), got ${JSON.stringify(value)}`);
  return value;
}
